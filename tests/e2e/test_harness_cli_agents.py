"""`evolve-action run --harness cli --agent copilot|opencode`: a pull request whose skill
change breaks its one case is caught by GitHub Copilot CLI and by OpenCode, each the real
pinned CLI running an Anthropic and an OpenAI model, confined at each level this machine
gives, against the fake provider.

The skill's new text makes the agent shout, which the eval's regex rejects. The agent's
one command is hostile: it prints every environment it can read (base64-encoded, so that
Copilot's masking of known secrets cannot hide a leak) and tries to write outside its
workspace. No real key may reach a request the fake saw, what the command printed, or the
results; nothing may be written outside the workspace.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from evolve_action.commands.cli import main
from tests.e2e.cli_pr import shouting_pr
from tests.fakes.cli_agents import cli_dir
from tests.fakes.cli_runs import require_tool
from tests.fakes.llm_server import Answer, Call, FakeLLM, Reply, Request, call, text
from tests.fakes.scripts import grading, tool_names
from tests.levels import LEVELS, at_level

REAL = {"ANTHROPIC_API_KEY": "sk-ant-real-e2e-4f1a9c", "OPENAI_API_KEY": "sk-openai-real-e2e-7d2b"}
CASE = {
    "id": "greet",
    "prompt": "Greet Ada.",
    "assertions": [{"type": "regex", "path": "hello.txt", "pattern": "^Hello, Ada!$"}],
    "expectations": ["hello.txt greets Ada"],
}
PROBE = "(env; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\"; done) 2>/dev/null"
LOADS = {
    "copilot": call("skill", skill="greeter"),
    "opencode": Reply(calls=(Call("skill", {"name": "greeter"}),)),
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return shouting_pr(tmp_path / "repo", CASE)


def script(agent: str, outside: Path) -> Callable[[Request], Answer]:
    """The agent follows the skill it loaded (the head's shouts), through its shell."""

    def answer(request: Request) -> Answer:
        if "submit_grading" in tool_names(request):
            return grading(request)
        greeting = "HELLO ADA" if b"SHOUT" in request.raw else "Hello, Ada!"
        command = (
            f"printf '%s\\n' '{greeting}' > hello.txt; {PROBE} | base64 -w0; echo; "
            f"echo escaped > {outside}/escaped.txt 2>/dev/null; true"
        )
        turns = [LOADS[agent], call("bash", command=command, description="greet"), text("Done.")]
        return turns[min(request.turn, len(turns) - 1)]

    return answer


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        for name, value in REAL.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
        monkeypatch.setenv("EVOLVE_RETRY_BASE_DELAY_S", "0.01")
        yield server
        assert not server.script_errors, server.script_errors


def decoded(results: list[str]) -> str:
    """What the hostile command printed in base64, decoded."""
    found = []
    for blob in (b for r in results for b in re.findall(r"[A-Za-z0-9+/=]{40,}", r)):
        try:
            found.append(base64.b64decode(blob, validate=True).decode("utf-8", "replace"))
        except (binascii.Error, ValueError):
            continue
    return "\n".join(found)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("agent", sorted(LOADS))
def test_a_regression_is_caught_on_each_agent_with_no_leak_and_no_escape(
    agent: str,
    level: str,
    repo: Path,
    llm: FakeLLM,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("EVOLVE_CLI_DIR", str(cli_dir()))
    if agent == "opencode":
        require_tool("rg", "OpenCode's skill tool runs ripgrep (apt-get install ripgrep)")
    outside = tmp_path / "outside"
    outside.mkdir()
    llm.script = script(agent, outside)
    out = tmp_path / "results"
    argv = ["run", "--root", str(repo), "--base", "main", "--models", "anthropic,openai"]
    argv += ["--runs", "4", "--judge-model", "anthropic", "--harness", "cli", "--agent", agent]
    with at_level(level):
        code = main([*argv, "--results-dir", str(out), "--quiet"])
    comment = capsys.readouterr().out
    doc: dict[str, Any] = json.loads((out / "results.json").read_text())

    assert code == 1, comment
    labels = {(c["model"], c["case_id"]): c["label"] for c in doc["aggregate"]["cases"]}
    assert labels == {
        ("anthropic/claude-sonnet-4-6", "greet"): "regressed",
        ("openai/gpt-5.4", "greet"): "regressed",
    }, labels
    statuses = {(r["side"], r["model"], r["status"]) for r in doc["runs"]}
    assert statuses == {
        (side, model, "pass" if side == "base" else "fail")
        for side in ("base", "head")
        for model in ("anthropic/claude-sonnet-4-6", "openai/gpt-5.4")
    }, statuses
    assert "regressed" in comment
    notes = [n for r in doc["runs"] for n in r["transcript"]["notes"]]
    assert all(any(n.startswith(f"harness: {agent} ") for n in r["transcript"]["notes"])
               for r in doc["runs"]), notes  # fmt: skip
    calls = [c for r in doc["runs"] for c in r["transcript"]["tool_calls"]]
    assert {c["name"] for c in calls} == {"skill", "bash"}, calls
    # What the command printed went back to the model (results.json keeps no tool output).
    printed = decoded([r.raw.decode("utf-8", "replace") for r in llm.requests])
    assert printed.count("PATH=") >= len(doc["runs"]), printed[:2000]  # the probe ran
    secrets = list(REAL.values())
    assert not [s for s in secrets if s in printed]
    for request in llm.requests:
        sent = request.raw.decode("utf-8", "replace")
        assert not [s for s in secrets if s in sent and "submit_grading" not in sent]
    for path in out.rglob("*"):
        if path.is_file():
            assert not [s for s in secrets if s in path.read_text(errors="replace")], path
    assert not (outside / "escaped.txt").exists()
    assert not list(repo.rglob("escaped.txt")) and not list(repo.rglob("hello.txt"))
