"""A pull request's commit fetched as data into the default branch's checkout (issue 28).

Under `issue_comment` the workflow's checkout is the default branch: the trusted side, where
the repository config and every verdict setting are read. The PR's commit only comes in as
git objects, fetched by the PR's ref and its sha; `event_sides` then materializes it as a
detached worktree outside the checkout, and only the confinement runs anything in it. No
branch, tag or config of the checkout changes, and nothing of the fetched tree is run here.
"""

from __future__ import annotations

from pathlib import Path

from evolve_action.plan.changes import GitError, git, has_commit, resolve


def fetch_pull_commit(repo: Path, number: int, sha: str, *, remote: str = "origin") -> None:
    """Make commit `sha` of pull request `number` present in `repo`, or raise `GitError`.

    `refs/pull/N/head` is fetched first (a fork's commits live only there in the base
    repository); when the PR moved on since `sha` was read, `sha` itself is fetched.
    """
    # Into FETCH_HEAD only: no local ref is written, so nothing later checks it out by name.
    # Not shallow: the merge-base with the PR's base needs the PR's history.
    git(repo, "fetch", "--no-tags", remote, f"refs/pull/{number}/head", check=False)
    if not has_commit(repo, sha):
        git(repo, "fetch", "--no-tags", remote, sha, check=False)
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
