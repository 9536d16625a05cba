from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from evolve_action.model.evals import Case, Fixture, Format, Origin, Skill, Suite
from evolve_action.plan.changes import (
    GitError,
    Worktrees,
    affected,
    changed_paths,
    ensure_commit,
    merge_base,
    resolve,
)
from tests.gitrepo import GIT_ENV, git


def write(repo: Path, rel: str, text: str) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write(repo, "skills/a/SKILL.md", "---\nname: a\n---\nA\n")
    write(repo, "skills/b/SKILL.md", "---\nname: b\n---\nB\n")
    write(repo, "evals/a/evals.json", "{}\n")
    write(repo, "evals/a/files/seed.txt", "seed\n")
    write(repo, "evals/b/evals.json", "{}\n")
    commit(repo, "base")
    return repo


def suite_for(tree: Path, skill: str, fixtures: tuple[str, ...] = ()) -> Suite:
    rel = f"evals/{skill}/evals.json"
    files = tuple(Fixture(tree / f"evals/{skill}/{f}", f, Origin(rel)) for f in fixtures)
    case = Case(id="1", prompt="p", origin=Origin(rel), files=files)
    return Suite(Format.EVOLVE, tree / rel, rel, Skill(skill, tree / "skills" / skill), (case,))


def test_merge_base_and_changed_paths__only_the_branch_change(repo: Path) -> None:
    fork = resolve(repo, "HEAD")
    git(repo, "checkout", "-q", "-b", "pr")
    write(repo, "skills/a/SKILL.md", "---\nname: a\n---\nA, better\n")
    head = commit(repo, "edit a")
    git(repo, "checkout", "-q", "main")
    write(repo, "skills/b/SKILL.md", "---\nname: b\n---\nB moved on\n")
    main_tip = commit(repo, "main moves on")
    base = merge_base(repo, main_tip, head)
    assert base == fork
    assert changed_paths(repo, base, head) == ["skills/a/SKILL.md"]


def test_affected__eval_file_fixture_skill_or_config(repo: Path) -> None:
    base = resolve(repo, "HEAD")
    with Worktrees(repo) as trees:
        tree = trees.add(base)
        suites = [suite_for(tree, "a", ("files/seed.txt",)), suite_for(tree, "b")]
        names = lambda changed: [s.skill.name for s in affected(suites, tree, changed)]  # noqa: E731
        assert names(["evals/a/files/seed.txt"]) == ["a"]
        assert names(["skills/b/scripts/run.sh"]) == ["b"]
        assert names(["evals/b/evals.json"]) == ["b"]
        assert names([".evolve.yaml"]) == ["a", "b"]
        assert names(["README.md", "skills/ab/SKILL.md"]) == []


def test_worktrees__materialize_both_sides_and_clean_up(repo: Path) -> None:
    base = resolve(repo, "HEAD")
    write(repo, "evals/a/evals.json", '{"evals": []}\n')
    head = commit(repo, "head")
    with Worktrees(repo) as trees:
        base_tree, head_tree = trees.add(base), trees.add(head)
        assert (base_tree / "evals/a/evals.json").read_text() == "{}\n"
        assert (head_tree / "evals/a/evals.json").read_text() == '{"evals": []}\n'
        root = trees.root
    assert not root.exists()
    assert "evolve-trees" not in git(repo, "worktree", "list")


def test_shallow_clone__fetches_what_it_lacks(repo: Path, tmp_path: Path) -> None:
    base = resolve(repo, "HEAD")
    write(repo, "evals/a/evals.json", '{"evals": [1]}\n')
    mid = commit(repo, "mid")
    write(repo, "evals/a/evals.json", '{"evals": [2]}\n')
    head = commit(repo, "head")
    shallow = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth=1", f"file://{repo}", str(shallow)], env=GIT_ENV, check=True
    )
    ensure_commit(shallow, mid)
    assert merge_base(shallow, base, head) == base
    with pytest.raises(GitError, match="fetch-depth"):
        ensure_commit(shallow, "0" * 40)
