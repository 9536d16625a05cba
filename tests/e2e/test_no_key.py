"""No model API key: inside Actions the log says so in one line and the check says so, neutral
or (with `on-incomplete: failure`) failure; locally `run` stops before planning and says what
to do. Nothing calls a provider."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.commands.cli import main
from tests.e2e.local_run import commit_sides, greeter_repo
from tests.e2e.test_pull_request import agent, container_env, outputs, run_container
from tests.e2e.test_pull_request import repo as repo  # the fixture: a base and a head commit
from tests.e2e.test_pull_request_paths import NO_SECRETS
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import FakeLLM


@pytest.fixture
def fakes() -> Iterator[tuple[FakeLLM, GitHubFake]]:
    with FakeLLM(agent) as llm, GitHubFake() as gh:
        yield llm, gh


@pytest.mark.parametrize(
    ("given", "conclusion", "code"), [("", "neutral", 0), ("failure", "failure", 1)]
)
def test_no_key_in_actions__one_log_line_and_the_check_say_so(
    repo: tuple[Path, str, str],
    fakes: tuple[FakeLLM, GitHubFake],
    tmp_path: Path,
    given: str,
    conclusion: str,
    code: int,
) -> None:
    root, base, head = repo
    llm, gh = fakes
    env = container_env(root, tmp_path, llm, gh, base, head)
    for name in NO_SECRETS:
        del env[name]
    if given:
        env["INPUT_ON-INCOMPLETE"] = given
    done = run_container(env, root)

    assert done.returncode == code, done.stdout + done.stderr
    assert llm.requests == []
    lines = [ln for ln in done.stdout.splitlines() if "No model API key" in ln]
    assert len(lines) == 1, done.stdout
    level = "error" if conclusion == "failure" else "warning"
    assert lines[0].startswith(f"::{level} title=evolve%3A evals not run::No model API key")
    assert "anthropic-api-key" in lines[0] and f"Check: {conclusion}." in lines[0]
    (check,) = gh.check_runs
    assert (check["head_sha"], check["conclusion"]) == (head, conclusion)
    assert check["output"]["title"] == "Eval files validated; evals not run (no API key)"
    assert "ANTHROPIC_API_KEY" in check["output"]["summary"]
    assert outputs(tmp_path / "output")["conclusion"] == conclusion


# --- locally ----------------------------------------------------------------------------------

LOCAL_KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "GITHUB_ACTIONS")


def _local_repo(tmp_path: Path) -> Path:
    from tests.e2e.test_run_base_none import EVALS, SKILL

    return commit_sides(greeter_repo(tmp_path / "repo", SKILL, json.dumps(EVALS)))


def test_no_key_locally__run_stops_before_planning_and_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in LOCAL_KEYS:
        monkeypatch.delenv(name, raising=False)
    repo = _local_repo(tmp_path)
    out_dir = tmp_path / "out"
    code = main(["run", "--root", str(repo), "--results-dir", str(out_dir), "--runs", "1"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""  # no run was planned or started, so none errored one by one
    assert not out_dir.exists()
    err = captured.err
    assert err.startswith("evolve-action: no model API key, so no eval can run")
    for hint in ("ANTHROPIC_API_KEY", "--replay DIR", "--dry-run", "evolve-action validate"):
        assert hint in err


def test_no_key_locally__a_dry_run_still_plans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in LOCAL_KEYS:
        monkeypatch.delenv(name, raising=False)
    repo = _local_repo(tmp_path)
    code = main(["run", "--root", str(repo), "--dry-run", "--results-dir", str(tmp_path / "o")])
    assert code == 0
    assert "no model API key" not in capsys.readouterr().err
