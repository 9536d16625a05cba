"""`evolve-action run` on a Vally eval.yaml against the loopback LLM fake: the skill named by
`environment.skills` installed, `environment.files` staged, static graders as checks, the
`prompt` grader and its rubric in the one judge call on Vally's 1-5 scale, constraints and
`expect_activation` (true and false) as gates, and Vally's binary verdict."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.local_run import GREETER_TURNS, run_locally, serving, write_tree
from tests.fakes.llm_server import Answer, Call, FakeLLM, Request, calls
from tests.fakes.scripts import agent_and_judge, tool_names, user_text
from tests.sample_evals import GREETER_SKILL_MD

SKILL = GREETER_SKILL_MD

EVAL = """\
name: greeter
type: regression
environment:
  skills: [../../skills/greeter]
config: {runs: 1, timeout: 2m, executor: copilot-sdk}
stimuli:
  - name: greet-ada
    prompt: Greet the first guest in guests.txt.
    environment:
      files: [{src: fixtures/guests.txt, dest: guests.txt}]
    graders:
      - {type: output-contains, config: {substring: Ada}}
      - {type: file-contains, config: {path: hello.txt, value: "Hello, Ada!"}}
      - {type: output-not-matches, config: {pattern: "(?i)sorry"}}
      - type: prompt
    rubric:
      - The greeting names Ada
    constraints: {expect_tools: [create], reject_tools: [bash]}
    expect_activation: true
  - name: haiku-without-the-skill
    prompt: Write a haiku about autumn.
    expect_activation: false
    graders:
      - {type: output-contains, config: {substring: greeted}}
"""

_ITEM = re.compile(r"^(\d+)\. ", re.MULTILINE)


def judge(request: Request) -> Answer:
    """Scores every item 4 on a 1-5 scale (passes binary ones)."""
    numbers = [int(n) for n in _ITEM.findall(user_text(request))]
    verdicts = [{"id": n, "passed": True, "score": 4, "evidence": "names Ada"} for n in numbers]
    args = {"expectations": verdicts, "claims": [], "eval_feedback": {"overall": "ok"}}
    return calls(Call("submit_grading", args))


def vally_repo(tmp_path: Path, spec: str) -> Path:
    """The greeter skill and a Vally eval beside it, with its `fixtures/guests.txt`."""
    return write_tree(tmp_path / "repo", {
        "skills/greeter/SKILL.md": SKILL,
        "tests/greeter/eval.yaml": spec,
        "tests/greeter/fixtures/guests.txt": "Ada\nBob\n",
    })  # fmt: skip


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return vally_repo(tmp_path, EVAL)


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with serving(agent_and_judge(GREETER_TURNS, judge=judge), monkeypatch) as server:
        yield server


def test_run__a_vally_eval_is_loaded_run_and_graded_as_vally_grades_it(
    repo: Path, llm: FakeLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    done = run_locally(repo, capsys)
    assert "PASS  tests/greeter/eval.yaml greet-ada" in done.out, done.out
    assert "FAIL  tests/greeter/eval.yaml haiku-without-the-skill" in done.out, done.out
    assert done.code == 1
    assert len(done.runs) == 2  # config.runs: 1
    ada = done.run_of("greet-ada")
    assert {i.item_id: i.passed for i in ada.items} == {
        "output-contains-1": True,
        "file-contains-2": True,
        "output-not-matches-3": True,
        "prompt-4": True,
        "constraints.tools": True,
        "expect_activation": True,
    }
    (judged,) = [i for i in ada.items if i.item_id == "prompt-4"]
    assert (judged.raw_score, judged.score) == (4, 0.75)  # Vally's 1-5 scale, normalized
    assert ada.score == pytest.approx((1 + 1 + 1 + 0.75) / 4)
    haiku = done.run_of("haiku-without-the-skill")
    fired = {i.item_id: (i.passed, i.evidence) for i in haiku.items}
    assert fired["output-contains-1"][0] is True
    assert fired["expect_activation"] == (False, "the skill greeter fired")
    judge_calls = [r for r in llm.requests if "submit_grading" in tool_names(r)]
    assert len(judge_calls) == 1  # the haiku has nothing for the judge
    assert "The greeting names Ada" in json.dumps(judge_calls[0].body)
    agent_calls = [r for r in llm.requests if "submit_grading" not in tool_names(r)]
    assert any("guests.txt" in json.dumps(r.body) for r in agent_calls)
