"""`harness: cli` on a Gemini model, run the Actions way (`INPUT_*`, an event file, the GitHub
and LLM fakes, the real process): a pull request whose skill change breaks its one case is
caught by the real pinned Gemini CLI (a Node.js program: the test skips without Node.js 20+),
confined at each level this machine gives, against the fake Gemini API; the judge is our SDK
loop on Gemini's OpenAI-compatible path of the same fake. The check fails and the comment
says `regressed`.

The skill's new text makes the agent shout, which the eval's regex rejects. The agent's one
command is hostile: it prints every environment it can read (base64-encoded) and tries to
write outside its workspace. No real key may reach a request the fake saw, what the command
printed, or the results; nothing may be written outside the workspace.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from evolve_action.execute.harness.gemini import launch as gemini_launch
from tests.actions import REPO, pull_request_event, runner_env
from tests.e2e.cli_pr import shouting_pr
from tests.e2e.test_harness_cli_agents import CASE, PROBE, decoded
from tests.e2e.test_pull_request import run_container
from tests.fakes.cli_agents import cli_dir
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import Answer, Call, FakeLLM, Reply, Request, call, text
from tests.fakes.scripts import grading
from tests.gitrepo import git
from tests.levels import LEVELS, env_at_level

REAL = {"GEMINI_API_KEY": "AIza-real-e2e-gemini-91c3e7"}
MODEL = "gemini/gemini-2.5-flash"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return shouting_pr(tmp_path / "repo", CASE)


@pytest.fixture(autouse=True)
def node() -> None:
    where = shutil.which("node")
    if where is None:
        pytest.skip("node is not on PATH: Gemini CLI is a Node.js program")
    found = subprocess.run([where, "--version"], capture_output=True, text=True, check=False)
    if not gemini_launch.node_version_ok(found.stdout):
        pytest.skip(f"Gemini CLI needs Node.js {gemini_launch.MIN_NODE}+, not {found.stdout}")


def judged(request: Request) -> Answer:
    """The judge's verdicts as its answer's JSON text (a JSON schema, not a forced tool, is
    how the judge asks on the Chat Completions wire)."""
    graded = grading(request)
    assert isinstance(graded, Reply) and graded.calls
    return text(json.dumps({**graded.calls[0].arguments, "rubric_scores": {}}))


def script(outside: Path) -> Callable[[Request], Answer]:
    """The agent follows the skill it activated (the head's shouts), through its shell."""

    def answer(request: Request) -> Answer:
        if request.api == "openai":  # our judge, on Gemini's OpenAI-compatible path
            return judged(request)
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


def actions_env(
    root: Path, tmp: Path, llm: FakeLLM, gh: GitHubFake, level: str, **inputs: str
) -> dict[str, str]:
    """The environment GitHub gives the action's process on a pull request from `pr` to
    `main`, with `inputs`, confining at `level`."""
    tmp.mkdir(parents=True, exist_ok=True)
    base, head = git(root, "rev-parse", "main"), git(root, "rev-parse", "pr")
    event = pull_request_event(tmp / "event.json", base, head)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp),
        **runner_env(
            tmp, event_name="pull_request", event=event, workspace=root, sha=head, api_url=gh.url
        ),
        "INPUT_RUNS": "4",
        "INPUT_HARNESS": "cli",
        "INPUT_CACHE-DIR": str(tmp / "cache"),
        "INPUT_RESULTS-DIR": str(tmp / "results"),
        "INPUT_FAIL-ON-REGRESSION": "true",
        "EVOLVE_CLI_DIR": str(cli_dir()),
        "EVOLVE_RETRY_BASE_DELAY_S": "0.01",
    }
    env.update({f"INPUT_{k.upper().replace('_', '-')}": v for k, v in inputs.items()})
    # The PATH without bwrap is made of links in a folder the sandbox users can enter (the
    # CLI's shell finds `bash` through it): beside the CLIs, not in /tmp, which the user
    # level closes to them, nor in pytest's folders, root's alone.
    scratch = Path(tempfile.mkdtemp(prefix="path-", dir=cli_dir().parent))
    scratch.chmod(0o755)
    return env_at_level(level, env, scratch)


@pytest.fixture
def served() -> Iterator[tuple[FakeLLM, GitHubFake]]:
    with FakeLLM() as llm, GitHubFake() as gh:
        yield llm, gh
        assert not llm.script_errors, llm.script_errors
    for scratch in cli_dir().parent.glob("path-*"):
        shutil.rmtree(scratch, ignore_errors=True)


@pytest.mark.parametrize("level", LEVELS)
def test_a_regression_is_caught_on_gemini_cli_with_no_leak_and_no_escape(
    level: str, repo: Path, served: tuple[FakeLLM, GitHubFake], tmp_path: Path
) -> None:
    llm, gh = served
    outside = tmp_path / "outside"
    outside.mkdir()
    llm.script = script(outside)
    gh.add_pull(REPO, 7, git(repo, "rev-parse", "pr"), base_sha=git(repo, "rev-parse", "main"))
    env = actions_env(repo, tmp_path / "job", llm, gh, level, models=MODEL, judge_model=MODEL)
    env |= {**REAL, "GOOGLE_GEMINI_BASE_URL": llm.gemini_base_url}
    done = run_container(env, repo)
    out = tmp_path / "job" / "results"
    doc: dict[str, Any] = json.loads((out / "results.json").read_text())

    seen = [r.tool_results for r in llm.requests if r.api == "gemini"]  # the tools' answers
    assert done.returncode == 1, (seen[-1:], done.stdout[-2000:], done.stderr[-2000:])
    (check,) = gh.check_runs
    assert check["conclusion"] == "failure", check
    (comment,) = gh.comments[(REPO, 7)]
    assert "regressed" in comment["body"]
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
