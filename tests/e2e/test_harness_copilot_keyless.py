"""Keyless Copilot: `--models copilot/...` runs the real Copilot CLI signed in to GitHub's
Copilot API (here the loopback fake of it, `tests/fakes/copilot_api.py`) with the workflow's
GITHUB_TOKEN, which only the credential proxy holds: the CLI gets a placeholder.

With a token the API takes, a pull request whose skill change breaks its one case is caught,
and the token is in no request body, nothing the agent's hostile command printed, and no
result file. With a token it refuses (no `copilot-requests: write`, or a fork's), every run is
an `auth` error that says what to do, no model call is made, and the check is neutral (run
the Actions way).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evolve_action.commands.cli import main
from tests.actions import REPO
from tests.e2e.test_harness_cli_agents import decoded, repo, script  # noqa: F401
from tests.e2e.test_harness_cli_gemini import actions_env, served  # noqa: F401
from tests.e2e.test_pull_request import run_container
from tests.fakes.cli_agents import cli_dir
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import FakeLLM
from tests.gitrepo import git
from tests.levels import LEVELS, at_level

TOKEN = "ghs_real-actions-token-5e81b2"
MODEL = "copilot/claude-sonnet-4.6"
JUDGE_KEY = "sk-ant-judge-e2e-0c4d"


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        monkeypatch.setenv("COPILOT_API_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", JUDGE_KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
        monkeypatch.setenv("EVOLVE_RETRY_BASE_DELAY_S", "0.01")
        monkeypatch.setenv("EVOLVE_CLI_DIR", str(cli_dir()))
        yield server
        assert not server.script_errors, server.script_errors


def _run(root: Path, out: Path, token: str, level: str) -> int:
    argv = ["run", "--root", str(root), "--base", "main", "--models", MODEL, "--runs", "4"]
    argv += ["--judge-model", "anthropic", "--harness", "cli", "--github-token", token]
    with at_level(level):
        return main([*argv, "--results-dir", str(out), "--quiet"])


@pytest.mark.parametrize("level", LEVELS)
def test_keyless_copilot_catches_the_regression_and_the_token_stays_with_the_proxy(
    level: str,
    repo: Path,  # noqa: F811
    llm: FakeLLM,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    llm.script = script("copilot", outside)
    out = tmp_path / "results"
    code = _run(repo, out, TOKEN, level)
    comment = capsys.readouterr().out
    doc: dict[str, Any] = json.loads((out / "results.json").read_text())

    assert code == 1, comment
    labels = {(c["model"], c["case_id"]): c["label"] for c in doc["aggregate"]["cases"]}
    assert labels == {(MODEL, "greet"): "regressed"}, labels
    for run in doc["runs"]:
        assert any(n.startswith("harness: copilot ") for n in run["transcript"]["notes"])
    agent_calls = [r for r in llm.requests if "submit_grading" not in r.raw.decode()]
    assert agent_calls and all(r.path == "/v1/messages" for r in agent_calls)
    # The proxy put the real token in each call and listing; the CLI held a placeholder.
    assert all(r.headers["authorization"] == f"Bearer {TOKEN}" for r in agent_calls)
    assert llm.listings and all(h["authorization"] == f"Bearer {TOKEN}" for h in llm.listings)
    # Its other GitHub calls (settings, user, customizations) stopped at the proxy.
    assert {h[":path"] for h in llm.listings} == {"/models"}, llm.listings
    printed = decoded([r.raw.decode("utf-8", "replace") for r in agent_calls])
    assert printed.count("PATH=") >= len(doc["runs"]), printed[:2000]  # the probe ran
    assert TOKEN not in printed and "COPILOT_GITHUB_TOKEN=" in printed
    assert not [r for r in llm.requests if TOKEN in r.raw.decode("utf-8", "replace")]
    for path in out.rglob("*"):
        if path.is_file():
            assert TOKEN not in path.read_text(errors="replace"), path
    assert not (outside / "escaped.txt").exists()


@pytest.mark.parametrize("level", LEVELS)
def test_a_token_without_the_permission_is_a_clear_error_and_a_neutral_check(
    level: str,
    repo: Path,  # noqa: F811
    served: tuple[FakeLLM, GitHubFake],  # noqa: F811
    tmp_path: Path,
) -> None:
    """The Actions way: the workflow's token (`github-token`, `ghs_fake` here) is one the
    fake Copilot API refuses, as GitHub does a token without `copilot-requests: write`."""
    llm, gh = served
    llm.api_key = TOKEN  # the only token the fake Copilot API takes
    gh.add_pull(REPO, 7, git(repo, "rev-parse", "pr"), base_sha=git(repo, "rev-parse", "main"))
    env = actions_env(repo, tmp_path / "job", llm, gh, level, models=MODEL)
    env |= {"COPILOT_API_URL": llm.url}
    done = run_container(env, repo)
    doc: dict[str, Any] = json.loads((tmp_path / "job/results/results.json").read_text())

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert llm.requests == []  # no model call: nothing spent
    assert len(llm.listings) == 1  # the one free listing that found out
    assert {r["error_kind"] for r in doc["runs"]} == {"auth"}, doc["runs"][:1]
    (check,) = gh.check_runs
    assert check["conclusion"] == "neutral", check
    (comment,) = gh.comments[(REPO, 7)]
    assert "copilot-requests: write" in comment["body"], comment["body"]
