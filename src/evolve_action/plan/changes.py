"""Base and head of a change, their trees, and the suites it touches (docs/design.md §Sides).

Base is the merge-base of the PR's base and head commits: what the branch started from, so
the comparison shows exactly the PR's own change. Both trees are materialized with
`git worktree` (detached, outside the checkout), fetching commits a shallow checkout lacks.
A suite is affected when its eval file, a fixture it stages, its skill directory, or the
repository config changed.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from evolve_action.model.evals import Suite

log = logging.getLogger(__name__)

CONFIG_NAMES = (".evolve.yaml", ".evolve.yml", ".evolve.json", ".evolve.jsonc")
_DEEPEN_STEPS = (50, 200, 1000)


class GitError(RuntimeError):
    """A git command failed; the message says which and what to do."""


def git(repo: Path, *args: str, check: bool = True) -> str:
    env_free = ("-c", "core.quotepath=off", "-c", "advice.detachedHead=false")
    proc = subprocess.run(
        ["git", *env_free, *args], cwd=repo, capture_output=True, text=True, check=False
    )
    if check and proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        last = detail[-1] if detail else f"exit {proc.returncode}"
        raise GitError(f"git {' '.join(args)} failed in {repo}: {last}")
    return proc.stdout.strip()


def has_commit(repo: Path, rev: str) -> bool:
    proc = subprocess.run(
        ["git", "cat-file", "-e", f"{rev}^{{commit}}"], cwd=repo, capture_output=True, check=False
    )
    return proc.returncode == 0


def ensure_commit(repo: Path, rev: str, *, remote: str = "origin") -> None:
    """Fetch `rev` when a shallow checkout lacks it."""
    if has_commit(repo, rev):
        return
    log.info("fetching %s, which the checkout lacks", rev)
    git(repo, "fetch", "--no-tags", "--depth=1", remote, rev, check=False)
    if not has_commit(repo, rev):
        raise GitError(
            f"commit {rev} is not in the checkout and could not be fetched from {remote};"
            " check out with `fetch-depth: 0` or give a base that exists"
        )


def merge_base(repo: Path, base: str, head: str, *, remote: str = "origin") -> str:
    """The merge-base, deepening a shallow history step by step until one is found."""
    for depth in (0, *_DEEPEN_STEPS):
        if depth:
            git(repo, "fetch", "--no-tags", f"--deepen={depth}", remote, check=False)
        found = git(repo, "merge-base", base, head, check=False)
        if found:
            return found
    if git(repo, "rev-parse", "--is-shallow-repository", check=False) == "true":
        git(repo, "fetch", "--no-tags", "--unshallow", remote, check=False)
        found = git(repo, "merge-base", base, head, check=False)
        if found:
            return found
    raise GitError(
        f"{base} and {head} have no common ancestor; is the base branch right?"
        " (with actions/checkout, use `fetch-depth: 0`)"
    )


def resolve(repo: Path, rev: str) -> str:
    return git(repo, "rev-parse", "--verify", f"{rev}^{{commit}}")


def changed_paths(repo: Path, base: str, head: str) -> list[str]:
    """Repository-relative POSIX paths that differ between two commits (renames as both)."""
    out = git(repo, "diff", "--name-status", "--no-renames", "-z", base, head)
    parts = [p for p in out.split("\0") if p]
    return sorted(set(parts[1::2]))


@dataclass
class Worktrees:
    """Detached worktrees of several commits; removed on `close()`."""

    repo: Path
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="evolve-trees-")))
    trees: dict[str, Path] = field(default_factory=dict)

    def add(self, rev: str) -> Path:
        if rev in self.trees:
            return self.trees[rev]
        path = self.root / rev[:12]
        git(self.repo, "worktree", "add", "--detach", "--force", str(path), rev)
        self.trees[rev] = path
        return path

    def close(self) -> None:
        for path in self.trees.values():
            git(self.repo, "worktree", "remove", "--force", str(path), check=False)
        git(self.repo, "worktree", "prune", check=False)
        shutil.rmtree(self.root, ignore_errors=True)
        self.trees.clear()

    def __enter__(self) -> Worktrees:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def suite_inputs(suite: Suite, tree: Path) -> list[str]:
    """Every repository path a suite's results depend on (directories end with `/`)."""
    paths = [suite.rel]
    for case in suite.cases:
        for fixture in case.files:
            rel = _relative(fixture.source, tree)
            if rel:
                paths.append(rel)
    if suite.skill.dir is not None:
        rel = _relative(suite.skill.dir, tree)
        if rel:
            paths.append(rel.rstrip("/") + "/")
    return paths


def is_affected(suite: Suite, tree: Path, changed: Iterable[str]) -> bool:
    inputs = suite_inputs(suite, tree)
    for path in changed:
        if PurePosixPath(path).name in CONFIG_NAMES and "/" not in path:
            return True
        for item in inputs:
            if path == item or (item.endswith("/") and path.startswith(item)):
                return True
    return False


def affected(suites: Sequence[Suite], tree: Path, changed: Sequence[str]) -> list[Suite]:
    return [s for s in suites if is_affected(s, tree, changed)]


def _relative(path: Path, tree: Path) -> str:
    try:
        return path.resolve().relative_to(tree.resolve()).as_posix()
    except ValueError:
        return ""
