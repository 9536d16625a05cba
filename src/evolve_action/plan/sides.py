"""The two trees a job compares, and the paths the change touched (docs/design.md §Sides).

In a pull request, head is the PR head commit (never the synthetic merge commit) and base is
the merge-base of the PR's base and head. A push compares with the commit before it; a manual
dispatch with the previous commit. Locally, `--base REF` compares the working tree (uncommitted
edits included) with the merge-base of REF and HEAD. Trees other than the working tree are
materialized as detached worktrees and removed when the job ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from evolve_action.plan.changes import (
    GitError,
    Worktrees,
    changed_paths,
    ensure_commit,
    git,
    merge_base,
    resolve,
)
from evolve_action.settings.events import Event


@dataclass
class Sides:
    head_root: Path
    head_sha: str  # "" for an uncommitted working tree
    base_root: Path | None  # None: no base side (`--base none`)
    base_sha: str
    changed: list[str] = field(default_factory=list)
    trees: Worktrees | None = None

    def close(self) -> None:
        if self.trees is not None:
            self.trees.close()


def _working_tree_changes(repo: Path, base: str) -> list[str]:
    tracked = git(repo, "diff", "--name-only", "--no-renames", "-z", base)
    untracked = git(repo, "ls-files", "--others", "--exclude-standard", "-z")
    return sorted({p for p in (tracked + "\0" + untracked).split("\0") if p})


def local_sides(repo: Path, base: str) -> Sides:
    """`--base none` or `--base REF` outside Actions: head is the working tree."""
    if base == "none":
        return Sides(repo, "", None, "")
    try:
        head_commit = resolve(repo, "HEAD")
        base_sha = merge_base(repo, resolve(repo, base), head_commit)
    except GitError as exc:
        raise GitError(f"cannot compare with --base {base}: {exc}") from exc
    trees = Worktrees(repo)
    try:
        base_root = trees.add(base_sha)
        changed = _working_tree_changes(repo, base_sha)
    except BaseException:
        trees.close()
        raise
    return Sides(repo, "", base_root, base_sha, changed, trees)


def event_sides(repo: Path, event: Event, *, base_ref: str = "") -> Sides:
    """The trees of an Actions event: PR head vs merge-base; push vs the commit before;
    a dispatch vs `base_ref` when given (`run --base REF`), else the previous commit."""
    head = event.head_sha or resolve(repo, "HEAD")
    ensure_commit(repo, head)
    if base_ref and not event.is_pr:
        base = merge_base(repo, resolve(repo, base_ref), head)
    elif event.is_pr:
        ensure_commit(repo, event.base_sha)
        base = merge_base(repo, event.base_sha, head)
    elif event.base_sha:
        ensure_commit(repo, event.base_sha)
        base = event.base_sha
    else:
        git(repo, "fetch", "--no-tags", "--deepen=1", "origin", check=False)
        try:
            base = resolve(repo, f"{head}~1")
        except GitError:
            base = ""
    trees = Worktrees(repo)
    try:
        head_root = trees.add(head)
        base_root = trees.add(base) if base else None
        changed = changed_paths(repo, base, head) if base else []
    except BaseException:
        trees.close()
        raise
    return Sides(head_root, head, base_root, base, changed, trees)


def commit_sides(repo: Path, sha: str, *, both: bool) -> Sides:
    """A worktree of `sha` (else HEAD) as the head side, and as the base too when `both` (a
    calibration compares a commit with itself; a watch runs the one side)."""
    sha = sha or resolve(repo, "HEAD")
    ensure_commit(repo, sha)
    trees = Worktrees(repo)
    try:
        tree = trees.add(sha)
    except BaseException:
        trees.close()
        raise
    return Sides(tree, sha, tree if both else None, sha if both else "", [], trees)
