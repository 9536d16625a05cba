"""`evolve-action run` on a Vally stimulus of several `turns` against the loopback LLM fake:
the agent gets each user turn once it has answered the one before, in one conversation, and
graders that name a `turn` read the answer to that turn (and its time), as Vally grades them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.local_run import run_locally, serving
from tests.e2e.test_run_vally import judge, vally_repo
from tests.fakes.llm_server import Answer, FakeLLM, Request, call, scripted_agent, text
from tests.fakes.scripts import agent_and_judge, tool_names

EVAL = """\
name: greeter
config: {runs: 1}
environment:
  skills: [../../skills/greeter]
stimuli:
  - name: find-then-greet
    turns:
      - Who is the first guest in guests.txt?
      - Now greet them.
    environment:
      files: [{src: fixtures/guests.txt, dest: guests.txt}]
    rubric: [The greeting names the guest found in the first turn]
    graders:
      - {type: output-contains, turn: 0, config: {substring: first guest is Ada}}
      - {type: output-not-contains, turn: 0, config: {substring: hello.txt}}
      - {type: output-contains, turn: 1, config: {substring: hello.txt}}
      - {type: output-contains, config: {substring: greeted}}
      - {type: wall-time, turn: 1, config: {max: 60s}}
      - {type: completed, turn: 0}
      - {type: file-contains, config: {path: hello.txt, value: "Hello, Ada!"}}
      - {type: prompt, turn: 1}
"""

FIRST = "The first guest is Ada."
TURNS = (
    call("Read", file_path="guests.txt"),
    text(FIRST),
    call("Skill", skill="greeter"),
    call("Write", file_path="hello.txt", content="Hello, Ada!\n"),
    text("I greeted Ada in hello.txt."),
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return vally_repo(tmp_path, EVAL)


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with serving(agent_and_judge(TURNS, judge=judge), monkeypatch) as server:
        yield server


def _user_texts(request: Request) -> list[str]:
    said = []
    for message in request.messages:
        content = message.get("content")
        if message.get("role") != "user":
            continue
        if isinstance(content, str):
            said.append(content)
        else:
            said += [b["text"] for b in content if b.get("type") == "text"]
    return said


def test_run__each_user_turn_is_sent_after_the_answer_to_the_one_before(
    repo: Path, llm: FakeLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    done = run_locally(repo, capsys)
    assert "PASS  tests/greeter/eval.yaml find-then-greet" in done.out, done.out
    agent_calls = [r for r in llm.requests if "submit_grading" not in tool_names(r)]
    assert len(agent_calls) == len(TURNS)
    # The second user turn arrives only once the first is answered, in the same conversation.
    assert _user_texts(agent_calls[1]) == ["Who is the first guest in guests.txt?"]
    assert _user_texts(agent_calls[2]) == [
        "Who is the first guest in guests.txt?",
        "Now greet them.",
    ]
    assert FIRST in json.dumps(agent_calls[2].body)
    run = done.runs[0]
    assert run.transcript.turns == len(TURNS)
    assert {i.item_id: i.passed for i in run.items} == {
        "output-contains-1": True,  # turn 0's answer, not the final one
        "output-not-contains-2": True,
        "output-contains-3": True,
        "output-contains-4": True,  # no turn: the final answer
        "wall-time-5": True,
        "completed-6": True,
        "file-contains-7": True,
        "prompt-8": True,
    }
    (graded,) = [r for r in llm.requests if "submit_grading" in tool_names(r)]
    body = json.dumps(graded.body)
    assert "About the agent's answer to user turn 2" in body
    assert "The agent's answer to turn 1:" in body and FIRST in body
    assert "The agent's answer to turn 2:" in body


def test_run__a_grader_of_a_turn_never_reached_fails_and_says_why(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The agent is still working on turn 1 at the turn cap: turn 2 is never sent.
    agent = scripted_agent(call("Read", file_path="guests.txt"), repeat_last=True)

    def script(request: Request) -> Answer:
        return judge(request) if "submit_grading" in tool_names(request) else agent(request)

    with serving(script, monkeypatch):
        done = run_locally(repo, capsys, extra=["--max-turns", "3"])
    run = done.runs[0]
    items = {i.item_id: (i.passed, i.evidence) for i in run.items}
    assert items["output-contains-3"] == (
        False,
        "the conversation stopped before user turn 2 was answered",
    )
    assert items["wall-time-5"][0] is False
    assert "the conversation stopped at user turn 1 of 2" in run.transcript.notes
