"""`evolve-action run --harness cli --models gemini/...`: a pull request whose skill change
breaks its one case is caught by the real pinned Gemini CLI (a Node.js program: the test
skips without Node.js 20+), confined at each level this machine gives, against the fake
Gemini API; the judge is our SDK loop on Gemini's OpenAI-compatible path of the same fake.

The skill's new text makes the agent shout, which the eval's regex rejects. The agent's one
command is hostile: it prints every environment it can read (base64-encoded) and tries to
write outside its workspace. No real key may reach a request the fake saw, what the command
printed, or the results; nothing may be written outside the workspace.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from evolve_action.commands.cli import main
from evolve_action.execute.harness.gemini import launch as gemini_launch
from tests.e2e.local_run import commit_sides, greeter_repo
from tests.e2e.test_harness_cli_agents import CASE, PROBE, decoded
from tests.fakes.cli_agents import cli_dir
from tests.fakes.llm_server import Answer, Call, FakeLLM, Reply, Request, call, text
from tests.fakes.scripts import grading, tool_names
from tests.levels import LEVELS, at_level
from tests.sample_evals import GREETER_SKILL

REAL = {"GEMINI_API_KEY": "AIza-real-e2e-gemini-91c3e7"}
MODEL = "gemini/gemini-2.5-flash"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = greeter_repo(
        tmp_path / "repo",
        GREETER_SKILL.format(body="Write `Hello, Ada!`."),
        json.dumps({"evals": [CASE]}),
    )
    return commit_sides(
        root, {"skills/greeter/SKILL.md": GREETER_SKILL.format(body="SHOUT: write `HELLO ADA`.")}
    )


@pytest.fixture(autouse=True)
def node() -> None:
    found = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False)
    if not gemini_launch.node_version_ok(found.stdout):
        pytest.skip(f"Gemini CLI needs Node.js {gemini_launch.MIN_NODE}+ on PATH")


def script(outside: Path) -> Callable[[Request], Answer]:
    """The agent follows the skill it activated (the head's shouts), through its shell."""

    def answer(request: Request) -> Answer:
        if "submit_grading" in tool_names(request):
            return grading(request)
        greeting = "HELLO ADA" if b"SHOUT" in request.raw else "Hello, Ada!"
        command = (
            f"printf '%s\\n' '{greeting}' > hello.txt; {PROBE} | base64 -w0; echo; "
            f"echo escaped > {outside}/escaped.txt 2>/dev/null; true"
        )
        turns = [
            Reply(calls=(Call("activate_skill", {"name": "greeter"}),)),
            call("run_shell_command", command=command, description="greet"),
            text("Done."),
        ]
        return turns[min(request.turn, len(turns) - 1)]

    return answer


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        for name, value in REAL.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.gemini_base_url)
        monkeypatch.setenv("EVOLVE_RETRY_BASE_DELAY_S", "0.01")
        yield server
        assert not server.script_errors, server.script_errors


@pytest.mark.parametrize("level", LEVELS)
def test_a_regression_is_caught_on_gemini_cli_with_no_leak_and_no_escape(
    level: str,
    repo: Path,
    llm: FakeLLM,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("EVOLVE_CLI_DIR", str(cli_dir()))
    outside = tmp_path / "outside"
    outside.mkdir()
    llm.script = script(outside)
    out = tmp_path / "results"
    argv = ["run", "--root", str(repo), "--base", "main", "--models", MODEL, "--runs", "4"]
    argv += ["--judge-model", MODEL, "--harness", "cli"]
    with at_level(level):
        code = main([*argv, "--results-dir", str(out), "--quiet"])
    comment = capsys.readouterr().out
    doc: dict[str, Any] = json.loads((out / "results.json").read_text())

    assert code == 1, comment
    labels = {(c["model"], c["case_id"]): c["label"] for c in doc["aggregate"]["cases"]}
    assert labels == {(MODEL, "greet"): "regressed"}, labels
    statuses = {(r["side"], r["status"]) for r in doc["runs"]}
    assert statuses == {("base", "pass"), ("head", "fail")}, statuses
    for run in doc["runs"]:
        notes = run["transcript"]["notes"]
        assert any(n.startswith("harness: gemini 0.61.0") for n in notes), notes
        assert run["transcript"]["usage"]["cost_usd"] > 0  # counted by the proxy, priced
    calls = [c for r in doc["runs"] for c in r["transcript"]["tool_calls"]]
    assert {c["name"] for c in calls} == {"activate_skill", "run_shell_command"}, calls
    agent_calls = [r for r in llm.requests if r.api == "gemini"]
    judge_calls = [r for r in llm.requests if r.api == "openai"]
    assert agent_calls and judge_calls
    assert all(r.path == "/v1beta/openai/chat/completions" for r in judge_calls)
    printed = decoded([r.raw.decode("utf-8", "replace") for r in agent_calls])
    assert printed.count("PATH=") >= len(doc["runs"]), printed[:2000]  # the probe ran
    secrets = list(REAL.values())
    assert not [s for s in secrets if s in printed]
    for request in agent_calls:
        assert not [s for s in secrets if s in request.raw.decode("utf-8", "replace")]
        assert request.headers.get("x-goog-api-key") == REAL["GEMINI_API_KEY"]  # the proxy's
    for path in out.rglob("*"):
        if path.is_file():
            assert not [s for s in secrets if s in path.read_text(errors="replace")], path
    assert not (outside / "escaped.txt").exists()
    assert not list(repo.rglob("escaped.txt")) and not list(repo.rglob("hello.txt"))
