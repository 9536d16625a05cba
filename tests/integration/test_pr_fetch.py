"""Fetching a pull request's commit as data into the default branch's checkout (issue 28)."""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path

import pytest

from evolve_action.plan.changes import GitError
from evolve_action.plan.pr_fetch import auth_environ, checkout_is, fetch_pull_commit
from tests.e2e.fork_command_repo import make_forked
from tests.gitrepo import git


def test_the_fork_commit_arrives_by_its_pull_ref_and_no_ref_names_it(tmp_path: Path) -> None:
    forked = make_forked(tmp_path)
    assert subprocess.run(
        ["git", "cat-file", "-e", forked.head], cwd=forked.checkout, capture_output=True
    ).returncode != 0  # fmt: skip
    fetch_pull_commit(forked.checkout, 7, forked.head)
    assert git(forked.checkout, "cat-file", "-t", forked.head) == "commit"
    assert forked.head not in git(forked.checkout, "show-ref")  # FETCH_HEAD only
    assert checkout_is(forked.checkout, forked.main)  # the checkout did not move
    assert not checkout_is(forked.checkout, forked.head)


def test_a_commit_the_repository_does_not_have_is_a_clear_error(tmp_path: Path) -> None:
    forked = make_forked(tmp_path)
    with pytest.raises(GitError, match=r"commit 0{40} of pull request #7 could not be fetched"):
        fetch_pull_commit(forked.checkout, 7, "0" * 40)


def test_the_token_goes_in_a_header_scoped_to_the_server_never_an_argument() -> None:
    env = auth_environ("https://github.com/", "ghs_abc")
    assert env["GIT_CONFIG_KEY_0"] == "http.https://github.com/.extraheader"
    value = env["GIT_CONFIG_VALUE_0"].removeprefix("AUTHORIZATION: basic ")
    assert base64.b64decode(value) == b"x-access-token:ghs_abc"
    assert auth_environ("https://github.com", "") == {}
