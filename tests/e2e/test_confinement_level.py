"""The confinement a job ran under is stated in the comment, the job summary and
results.json; inside Actions a job that could confine nothing refuses to start unless
`allow-unconfined` says otherwise (issue 12). The PR flow of test_pull_request.py, reused.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from evolve_action.commands import cli
from evolve_action.execute.sandbox import confine as sandbox
from evolve_action.execute.sandbox.confine import (
    BwrapStatus,
    Level,
    UserStatus,
    job_level,
    probe_user,
)
from tests.e2e.test_pull_request import REPO, agent, container_env, make_repo, run_container
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import FakeLLM
from tests.levels import path_without_bwrap

_ONE_RUN = {"INPUT_RUNS": "1", "INPUT_MODELS": "anthropic"}  # what is tested here is the frame


@pytest.mark.parametrize("bwrap", ["as installed", "hidden"])
def test_the_comment_summary_and_results_say_which_confinement_ran(
    tmp_path: Path, bwrap: str
) -> None:
    expected = job_level().level
    work = tmp_path / "work"
    work.mkdir()
    root, base, head = make_repo(work)
    with FakeLLM(agent) as llm, GitHubFake() as gh:
        env = container_env(root, tmp_path, llm, gh, base, head) | _ONE_RUN
        if bwrap == "hidden":
            if shutil.which("bwrap") is None:
                pytest.skip("bubblewrap is not installed: the first variant covers this")
            env["PATH"] = path_without_bwrap(tmp_path)
            expected = Level.USER if probe_user().works else Level.NONE
        done = run_container(env, root)
        assert done.returncode in (0, 1), done.stdout + done.stderr
        (comment,) = gh.comments[(REPO, 7)]
    footer = comment["body"].strip().splitlines()[-1]
    assert f"confinement: {expected.words}" in footer
    assert f"confinement: {expected.words}" in (tmp_path / "summary").read_text()
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    assert results["settings"]["confinement"] == expected.words


def _unconfinable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "probe_bwrap", lambda: BwrapStatus(False, "bwrap is missing"))
    monkeypatch.setattr(sandbox, "probe_user", lambda: UserStatus(False, "the process is not root"))


def _actions_env(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    for name in list(os.environ):
        if name.startswith(("GITHUB_", "INPUT_", "ACTIONS_", "RUNNER_")):
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)


@pytest.mark.parametrize("allowed", [False, True])
def test_inside_actions_a_job_that_cannot_confine_fails_closed_unless_allowed(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    allowed: bool,
) -> None:
    _unconfinable(monkeypatch)
    work = tmp_path / "work"
    work.mkdir()
    root, base, head = make_repo(work)
    with FakeLLM(agent) as llm, GitHubFake() as gh:
        env = container_env(root, tmp_path, llm, gh, base, head) | _ONE_RUN
        env["INPUT_ALLOW-UNCONFINED"] = str(allowed).lower()
        _actions_env(monkeypatch, env)
        code = cli.main(["run"])
        out = capsys.readouterr().out
        if not allowed:
            assert code == 2
            assert "::error title=evolve%3A commands cannot be confined::" in out
            assert "bwrap is missing; the process is not root" in out
            assert "allow-unconfined: true" in out
            assert llm.requests == [] and gh.comments == {} and gh.check_runs == []
            return
        assert code in (0, 1), out  # it ran
        (comment,) = gh.comments[(REPO, 7)]
    assert "confinement: none" in comment["body"].strip().splitlines()[-1]
