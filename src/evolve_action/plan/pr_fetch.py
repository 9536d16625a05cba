"""A pull request's commit fetched as data into the default branch's checkout.

Under `issue_comment` the workflow's checkout is the default branch: the trusted side, where
the repository config and every verdict setting are read. The PR's commit only comes in as
git objects, fetched by the PR's ref and its sha; `event_sides` then materializes it as a
detached worktree outside the checkout, and only the confinement runs anything in it. No
branch, tag or config of the checkout changes, and nothing of the fetched tree is run here.
"""

from __future__ import annotations

import base64
import os
import subprocess
from pathlib import Path

from evolve_action.plan.changes import GitError, has_commit, resolve


def auth_environ(server_url: str, token: str) -> dict[str, str]:
    """Git's environment for fetching from `server_url` with `token` (a private repository).

    The header is given through `GIT_CONFIG_*` variables, never an argument (any process can
    read another's arguments) nor `.git/config` (the checkout keeps no credential), and it is
    scoped to the server, so no other URL receives it.
    """
    if not (server_url and token):
        return {}
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": f"http.{server_url.rstrip('/')}/.extraheader",
        "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}",
    }


def _fetch(repo: Path, remote: str, what: str, auth: dict[str, str]) -> None:
    # Into FETCH_HEAD only: no local ref is written, so nothing later checks it out by name.
    # Not shallow: the merge-base with the PR's base needs the PR's history.
    subprocess.run(
        ["git", "fetch", "--no-tags", remote, what],
        cwd=repo,
        env={**os.environ, **auth},
        capture_output=True,
        check=False,
    )


def fetch_pull_commit(
    repo: Path,
    number: int,
    sha: str,
    *,
    remote: str = "origin",
    auth: dict[str, str] | None = None,
) -> None:
    """Make commit `sha` of pull request `number` present in `repo`, or raise `GitError`.

    `refs/pull/N/head` is fetched first (a fork's commits live only there in the base
    repository); when the PR moved on since `sha` was read, `sha` itself is fetched.
    `auth` is `auth_environ(...)`, for a repository that cannot be read anonymously.
    """
    _fetch(repo, remote, f"refs/pull/{number}/head", auth or {})
    if not has_commit(repo, sha):
        _fetch(repo, remote, sha, auth or {})
    if not has_commit(repo, sha):
        raise GitError(
            f"commit {sha} of pull request #{number} could not be fetched from {remote};"
            " the checkout must be of this repository (actions/checkout of the default branch)"
        )


def checkout_is(repo: Path, sha: str) -> bool:
    """True when the checkout's HEAD is commit `sha` (the default branch the workflow runs)."""
    try:
        return resolve(repo, "HEAD") == sha
    except GitError:
        return False
