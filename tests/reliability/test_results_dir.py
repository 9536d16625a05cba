"""An unwritable results directory: a clear error naming the path, exit 2, no traceback.

Checked before anything is spent: no provider is called and, inside Actions, no comment or
check run is left saying "in progress" forever.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.reliability.helpers import (
    PR,
    REPO,
    FaultyGitHub,
    actions_env,
    agent,
    base_env,
    make_repo,
    run_cli,
)


def under_a_file(tmp: Path) -> Path:
    (tmp / "blocker").write_text("a file where a directory should be\n")
    return tmp / "blocker" / "results"


def is_a_file(tmp: Path) -> Path:
    (tmp / "results.txt").write_text("not a directory\n")
    return tmp / "results.txt"


def read_only(tmp: Path) -> Path:
    parent = tmp / "locked"
    parent.mkdir()
    parent.chmod(0o500)
    return parent / "results"


CASES = [under_a_file, is_a_file]
if os.geteuid() != 0:  # root writes through permission bits
    CASES.append(read_only)


def assert_clear_failure(done: subprocess.CompletedProcess[str], path: Path) -> None:
    out = done.stdout + done.stderr
    assert done.returncode == 2, out
    assert "Traceback" not in out, out
    assert str(path) in out and "results" in out, out


@pytest.mark.parametrize("where", CASES, ids=lambda f: f.__name__)
def test_results_dir__unwritable_fails_fast_with_exit_2_naming_the_path(
    tmp_path: Path, where: Callable[[Path], Path]
) -> None:
    root = tmp_path / "repo"
    make_repo(root)
    target = where(tmp_path)
    try:
        with FakeLLM(agent) as llm:
            env = base_env(tmp_path, (llm.anthropic_base_url, llm.openai_base_url))
            args = ["run", "--base", "none", "--models", "anthropic", "--runs", "1",
                    "--results-dir", str(target),
                    "--cache-dir", str(tmp_path / "cache")]  # fmt: skip
            done = run_cli(args, env, root)
            assert llm.requests == []  # nothing was spent on a run whose results would be lost
    finally:
        if (tmp_path / "locked").exists():
            (tmp_path / "locked").chmod(0o700)  # let pytest clean up
    assert_clear_failure(done, target)


def test_results_dir__unwritable_in_actions_leaves_no_comment_in_progress(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    base, head = make_repo(root)
    target = under_a_file(tmp_path)
    with FakeLLM(agent) as llm, FaultyGitHub() as gh:
        urls = (llm.anthropic_base_url, llm.openai_base_url)
        env = actions_env(root, tmp_path, urls, gh.url, base, head)
        env["INPUT_RESULTS-DIR"] = str(target)
        done = run_cli(["run"], env, root)
        assert llm.requests == []
        assert gh.comments.get((REPO, PR), []) == []
        assert all(run.get("status") != "in_progress" for run in gh.check_runs)
    assert_clear_failure(done, target)
