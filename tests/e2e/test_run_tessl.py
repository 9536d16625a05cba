"""`evolve-action run` on a tessl scenario against the loopback LLM fake: task.md is the task,
the tile's skill is installed, the weighted checklist is judged in one call (a share of each
item's points), and the run scores the points awarded over the points possible."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.local_run import run_locally, serving, write_tree
from tests.fakes.llm_server import Answer, Call, FakeLLM, Request, call, calls, text
from tests.fakes.scripts import agent_and_judge, tool_names, user_text

SKILL = "---\nname: greeter\ndescription: Writes greeting files.\n---\nWrite `hello.txt`.\n"
CRITERIA = {
    "context": "The agent greets Ada in a file.",
    "type": "weighted_checklist",
    "checklist": [
        {"name": "File written", "max_score": 6, "description": "hello.txt exists"},
        {"name": "Warm tone", "max_score": 4, "description": "The greeting is warm"},
    ],
}
_ITEM = re.compile(r"^(\d+)\. ", re.MULTILINE)


def judge(request: Request) -> Answer:
    """The first item earns all its points, the second half of them."""
    numbers = [int(n) for n in _ITEM.findall(user_text(request))]
    shares = {numbers[0]: 1.0, numbers[1]: 0.5} if len(numbers) >= 2 else {}
    verdicts = [{"id": n, "score": shares.get(n, 0.0), "evidence": "seen"} for n in numbers]
    args = {"expectations": verdicts, "claims": [], "eval_feedback": {"overall": "ok"}}
    return calls(Call("submit_grading", args))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    tile = {"name": "t/greeter", "skills": {"greeter": {"path": "skills/greeter/SKILL.md"}}}
    return write_tree(tmp_path / "repo", {
        "tile.json": json.dumps(tile),
        "skills/greeter/SKILL.md": SKILL,
        "evals/greet-ada/task.md": "# Greet Ada\nWrite a warm greeting for Ada into hello.txt.\n",
        "evals/greet-ada/criteria.json": json.dumps(CRITERIA),
    })  # fmt: skip


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    turns = (
        call("Skill", skill="greeter"),
        call("Write", file_path="hello.txt", content="Hello, Ada! So glad you came.\n"),
        text("Done: hello.txt greets Ada."),
    )
    with serving(agent_and_judge(turns, judge=judge), monkeypatch) as server:
        yield server


def test_run__a_tessl_scenario_is_run_and_scored_by_its_checklist(
    repo: Path, llm: FakeLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    done = run_locally(repo, capsys, extra=("--runs", "1"))
    assert done.code == 0, done.out
    assert "PASS  evals/greet-ada/criteria.json greet-ada" in done.out, done.out
    (run,) = done.runs
    assert [(i.item_id, i.score) for i in run.items] == [
        ("1. File written", 1.0),
        ("2. Warm tone", 0.5),
    ]
    assert run.score == pytest.approx((6 * 1.0 + 4 * 0.5) / 10)
    (judged,) = [r for r in llm.requests if "submit_grading" in tool_names(r)]
    assert "The greeting is warm" in user_text(judged)
    agent_calls = [r for r in llm.requests if "submit_grading" not in tool_names(r)]
    assert "Write a warm greeting for Ada" in json.dumps(agent_calls[0].body)  # task.md
