"""`evolve-action run --base main --harness cli`: a regression found by the real CLIs is
reported exactly as the SDK loop reports it.

One pull request (the skill's new text makes the agent shout, which the eval's regex
rejects), one Anthropic and one OpenAI model, run twice from scratch: once with `--harness
sdk`, once with `--harness cli` (Claude Code and Codex against the same fake provider). The
verdicts, labels, check conclusion and the comment's tables must be the same; only what
the harness itself changes (tokens, cost, time) may differ.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evolve_action.commands.cli import main
from tests.e2e.cli_pr import shouting_pr
from tests.fakes.cli_agents import Step, agent, cli_dir, load_skill, say, write
from tests.fakes.llm_server import FakeLLM, Request, call, text
from tests.fakes.scripts import grading, tool_names
from tests.levels import LEVELS, at_level
from tests.sample_evals import GREETER_SKILL

SKILL = GREETER_SKILL
CASE = {
    "id": "greet",
    "prompt": "Greet Ada.",
    "assertions": [{"type": "regex", "path": "hello.txt", "pattern": "^Hello, Ada!$"}],
    "expectations": ["hello.txt greets Ada"],
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return shouting_pr(tmp_path / "repo", CASE, SKILL)


def steps(request: Request) -> list[Step]:
    """Follows the skill it loaded: the head version shouts, the base version does not."""
    shout = b"SHOUT" in request.raw  # the loaded skill is somewhere in the conversation
    greeting = "HELLO ADA" if shout else "Hello, Ada!"
    return [load_skill("greeter"), write("hello.txt", greeting + "\n"), say("Done.")]


def sdk_agent(request: Request) -> Any:
    """The same agent on the SDK loop (which names its tools as Claude Code does)."""
    if request.turn == 0:
        return call("Skill", skill="greeter")
    if request.turn == 1:
        shout = any("SHOUT" in r for r in request.tool_results)
        return call(
            "Write", file_path="hello.txt", content="HELLO ADA\n" if shout else "Hello, Ada!\n"
        )
    return text("Done.")


def with_judge(script: Any) -> Any:
    def answer(request: Request) -> Any:
        if "submit_grading" in tool_names(request):
            return grading(request)
        return script(request)

    return answer


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-real")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-real")
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
        monkeypatch.setenv("EVOLVE_RETRY_BASE_DELAY_S", "0.01")
        yield server
        assert not server.script_errors, server.script_errors


def run(repo: Path, out: Path, harness: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    argv = ["run", "--root", str(repo), "--base", "main", "--models", "anthropic,openai"]
    argv += ["--runs", "4", "--judge-model", "anthropic", "--harness", harness]
    code = main([*argv, "--results-dir", str(out), "--quiet"])
    printed = capsys.readouterr().out
    doc: dict[str, Any] = json.loads((out / "results.json").read_text())
    return {"code": code, "comment": printed, "doc": doc}


def comparable(comment: str) -> list[str]:
    """The comment without what the harness changes: money, tokens, time, paths."""
    lines = []
    costs = False  # inside the "cost and behaviour" table: all of it is the harness's cost
    for line in comment.splitlines():
        costs = (costs or "Cost and behaviour" in line) and line != "</details>"
        # The log's cost lines (the projection, the CLI's token warning) differ by harness too.
        if (
            costs
            or line.startswith(("results:", "report:", "<sub>", "evolve-action: "))
            or "💸" in line
        ):
            continue
        line = re.sub(r"\$\d[\d.,]*", "$", line)
        lines.append(line.rsplit("|", 2)[0] if line.startswith("| greeter") else line)
    return lines


@pytest.mark.parametrize("level", LEVELS)
def test_a_regression_through_the_real_clis_is_reported_as_on_the_sdk_loop(
    repo: Path,
    llm: FakeLLM,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    level: str,
) -> None:
    monkeypatch.setenv("EVOLVE_CLI_DIR", str(cli_dir()))
    with at_level(level):
        llm.script = with_judge(sdk_agent)
        sdk = run(repo, tmp_path / "sdk", "sdk", capsys)
        llm.script = agent(steps)
        cli = run(repo, tmp_path / "cli", "cli", capsys)

    assert sdk["code"] == cli["code"] == 1
    for result in (sdk, cli):
        labels = {
            (c["model"], c["case_id"]): c["label"] for c in result["doc"]["aggregate"]["cases"]
        }
        assert labels == {
            ("anthropic/claude-sonnet-4-6", "greet"): "regressed",
            ("openai/gpt-5.4", "greet"): "regressed",
        }, labels
    statuses = {(r["side"], r["model"], r["status"]) for r in cli["doc"]["runs"]}
    assert statuses == {
        (side, model, "pass" if side == "base" else "fail")
        for side in ("base", "head")
        for model in ("anthropic/claude-sonnet-4-6", "openai/gpt-5.4")
    }
    assert comparable(cli["comment"]) == comparable(sdk["comment"])
    assert "regressed" in cli["comment"] and len(comparable(cli["comment"])) > 10
    notes = [n for r in cli["doc"]["runs"] for n in r["transcript"]["notes"]]
    assert any(n.startswith("harness: claude 2.1.330") for n in notes)
    assert any(n.startswith("harness: codex 0.169.0") for n in notes)
    judged = [r for r in cli["doc"]["runs"] if r["judge"]["called"]]
    assert len(judged) == len(cli["doc"]["runs"]) == 16  # the SDK judge graded every CLI run
