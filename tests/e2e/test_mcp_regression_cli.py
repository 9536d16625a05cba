"""The pull request of `test_mcp_regression` (a skill whose base calls the mocked MCP tool
the eval declares and whose head stops), the Actions way, with `harness: cli`: the real
Claude Code runs every case against the fake provider, at each confinement level.

Base passes, head fails, the check says regressed. The repository's own stdio server
(`probe`) is started by Claude Code inside the run: it answers with its whole environment
and tries to leave a file everywhere outside its workspace. No key value is in that
environment, and no file is left anywhere, while the server did run (its answer reached the
model in every run).
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest

from evolve_action.execute.sandbox.shared import RUNS_ROOT
from tests.e2e.test_hostile_writes import places
from tests.e2e.test_mcp_regression import PYTHON, SUNNY, make_repo
from tests.e2e.test_pull_request import REPO, container_env, run_container
from tests.fakes.cli_agents import cli_dir
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import Answer, FakeLLM, Request, call, text
from tests.fakes.scripts import grading, tool_names
from tests.gitrepo import git
from tests.levels import LEVELS, env_at_level

KEYS = {"ANTHROPIC_API_KEY": "sk-ant-real-mcp-cli-5e0b1d", "OPENAI_API_KEY": "sk-openai-mcp-9c"}


def agent(request: Request) -> Answer:
    """Asks the probe first, loads the skill, then does what the skill says (Claude Code's
    `Skill` result only says it loaded; the skill's text follows it in the conversation)."""
    if "submit_grading" in tool_names(request):
        return grading(request)
    raw = request.raw.decode("utf-8", "replace")
    if request.turn == 0:
        return call("mcp__probe__env")
    if request.turn == 1:
        return call("Skill", skill="weather")
    if request.turn == 2:
        if "Call the mcp__weather__forecast tool" in raw:
            return call("mcp__weather__forecast", city="Paris")
        return call("Write", file_path="forecast.txt", content="unknown\n")
    if request.turn == 3 and request.tool_results[-1:] and SUNNY in request.tool_results[-1]:
        return call("Write", file_path="forecast.txt", content=f"{SUNNY}\n")
    return text("Done.")


@pytest.mark.skipif(not PYTHON, reason="no python3 in /usr/local/bin, /usr/bin or /bin")
@pytest.mark.parametrize("level", LEVELS)
def test_a_skill_that_stops_calling_its_mcp_tool_regresses_on_claude_code(
    tmp_path: Path, level: str
) -> None:
    clis = cli_dir()
    token = secrets.token_hex(6)
    root = tmp_path / "repo"
    root.mkdir()
    targets = places(root, tmp_path)
    base, head = make_repo(root, token, targets)
    assert git(root, "rev-parse", "HEAD") == head

    with FakeLLM(agent) as llm, GitHubFake() as gh:
        env = container_env(root, tmp_path, llm, gh, base, head) | KEYS
        env |= {"INPUT_MODELS": "anthropic", "INPUT_ALLOW-UNCONFINED": "false"}
        env |= {"INPUT_HARNESS": "cli", "INPUT_AGENT": "claude", "EVOLVE_CLI_DIR": str(clis)}
        env |= {"EVOLVE_RETRY_BASE_DELAY_S": "0.01"}
        done = run_container(env_at_level(level, env, tmp_path / "path"), root)
        comments = gh.comments.get((REPO, 7), [])
        assert not llm.script_errors, llm.script_errors
        answers = [r for q in llm.requests for r in q.tool_results if '"PATH"' in r]
        sent = [q.raw.decode("utf-8", "replace") for q in llm.requests]

    assert len(comments) == 1, done.stdout + done.stderr
    assert done.returncode == 1, done.stdout + done.stderr  # the gate fails: regressed
    body = comments[0]["body"]
    assert "regressed" in body.split("\n", 3)[1], body
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    assert results["settings"]["confinement"].startswith(
        "namespaces" if level == "bwrap" else "unprivileged user"
    )
    runs = results["runs"]
    status = {(r["side"], r["status"]) for r in runs}
    assert status == {("base", "pass"), ("head", "fail")}, [(r["side"], r["error"]) for r in runs]
    assert all(
        any(n.startswith("harness: claude ") for n in r["transcript"]["notes"]) for r in runs
    )
    called = {r["side"]: {c["name"] for c in r["transcript"]["tool_calls"]} for r in runs}
    assert (
        "mcp__weather__forecast" in called["base"]
        and "mcp__weather__forecast" not in called["head"]
    ), called

    # The probe ran inside every run (started by Claude Code) and answered with its
    # environment: no key value is in it (only the run's placeholder key).
    assert len(answers) >= len(runs) == 8, answers
    for answer in answers:
        # Claude Code appends its own reminders after the tool's text.
        environ, _ = json.JSONDecoder().raw_decode(answer)
        named = [k for k in environ if k.startswith(("GITHUB", "INPUT_")) or k.endswith("_KEY")]
        # Claude Code hands its servers its own environment, whose key is the run's
        # placeholder: it works only through the run's proxy socket, and only while it runs.
        assert named in ([], ["ANTHROPIC_API_KEY"]), named
        assert environ.get("ANTHROPIC_API_KEY", "evolve-dummy-").startswith("evolve-dummy-")
        for secret in (*KEYS.values(), env["INPUT_GITHUB-TOKEN"]):
            assert secret not in answer
    # Nor did a real key reach the provider from the agent's side (the proxy puts it on).
    for text_sent in sent:
        assert not [s for s in KEYS.values() if s in text_sent]
    # Nothing the servers did outlived their workspaces.
    landed = [str(p) for t in [*targets, *RUNS_ROOT.parents] for p in t.glob(f"*{token}*")]
    landed += [str(p) for p in RUNS_ROOT.rglob(f"evolve-mcp-canary-{token}*")]
    assert landed == [], f"an MCP server wrote outside its workspace: {landed}"
