"""`evolve-action run --base none` on a real repository, against the loopback fake LLM."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.commands.cli import main
from evolve_action.publish.results.load import load_results
from tests.e2e.local_run import greeter_repo, serving
from tests.fakes.llm_server import FakeLLM, call, text
from tests.fakes.scripts import agent_and_judge, tool_names

SKILL = """---
name: greeter
description: Writes a greeting file when asked to greet someone.
---
Write `hello.txt` containing `Hello, <name>!` and then record `done` in `status.txt`.
"""

EVALS = {
    "evals": [
        {
            "id": 1,
            "prompt": "Greet Ada.",
            "expectations": ["The greeting names Ada."],
            "assertions": [
                {"type": "file_exists", "path": "hello.txt"},
                {"type": "regex", "path": "hello.txt", "pattern": "^Hello, Ada!$"},
                {"type": "command", "run": "grep -q done status.txt"},
                {"type": "tool_call", "tool": "^Skill$", "pattern": "greeter"},
            ],
        },
        {
            "id": "no-file",
            "prompt": "Greet Bob.",
            "assertions": [{"type": "file_exists", "path": "bob.txt"}],
        },
    ]
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return greeter_repo(tmp_path / "repo", SKILL, json.dumps(EVALS, indent=2))


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    turns = (
        call("Skill", skill="greeter"),
        call("Write", file_path="hello.txt", content="Hello, Ada!\n"),
        call("Bash", command="echo done > status.txt"),
        text("I greeted Ada in hello.txt."),
    )
    with serving(agent_and_judge(turns), monkeypatch, ("anthropic", "openai")) as server:
        yield server


def test_run_base_none__both_providers_pass_and_fail_as_authored(
    repo: Path, llm: FakeLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([
        "run", "--base", "none", "--root", str(repo), "--models", "anthropic,openai",
        "--judge-model", "openai", "--runs", "1", "--results-dir", str(repo.parent / "out"),
    ])  # fmt: skip
    out = capsys.readouterr().out
    assert "PASS  evals/greeter/evals.json 1 anthropic/claude-sonnet-4-6 #1" in out
    assert "PASS  evals/greeter/evals.json 1 openai/gpt-5.4 #1" in out
    loaded = load_results(repo.parent / "out" / "results.json")  # validates against our schema
    assert len(loaded.runs) == 4
    assert "FAIL  evals/greeter/evals.json no-file" in out
    assert "bob.txt missing" in out
    assert "4 runs: 2 passed, 2 failed, 0 errors" in out
    assert code == 1
    judge_calls = [r for r in llm.requests if "submit_grading" in tool_names(r)]
    assert len(judge_calls) == 2  # one per run of the case with a judge item
    assert all(r.api == "openai" for r in judge_calls)
    bodies = json.dumps([r.body for r in llm.requests])
    assert str(repo) not in bodies and "/tmp/" not in bodies


def test_run_base_none__missing_key_is_an_error_per_model_not_a_crash(
    repo: Path, llm: FakeLLM, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL")
    code = main([
        "run", "--root", str(repo), "--models", "anthropic,openai", "--judge-model",
        "anthropic", "--runs", "1", "--results-dir", str(repo.parent / "out"),
    ])  # fmt: skip
    out = capsys.readouterr().out
    assert "ERROR evals/greeter/evals.json 1 openai/gpt-5.4 #1  openai: auth: no API key" in out
    assert "PASS  evals/greeter/evals.json 1 anthropic/claude-sonnet-4-6 #1" in out
    assert code == 1
