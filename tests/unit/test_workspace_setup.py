"""Preparing a workspace beyond copies: inline files (staged by the fixture rule, bounded in
size) and the new baseline after setup commands (taken without running anything the commands
planted in git's config)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evolve_action.execute.workspace import WorkspaceError, prepare
from evolve_action.model.evals import Fixture
from evolve_action.util.limits import MAX_INLINE_FILE_BYTES
from tests.unit.test_workspace import ORIGIN, base, git, make_case, make_suite, plant_hooks, repo

__all__ = ["base", "repo"]  # fixtures


def inline(repo: Path, dest: str, content: str) -> Fixture:
    return Fixture(repo / "evals/demo/evals.json", dest, ORIGIN, content=content)


def test_an_inline_file_is_written_with_its_text(repo: Path, base: Path) -> None:
    case = make_case(inline(repo, "src/app.cs", "class App {}\n"), inline(repo, "é.txt", "ü"))
    with prepare(make_suite(repo), case, base_dir=base) as ws:
        staged = ws.root / "src/app.cs"
        assert staged.read_text() == "class App {}\n"
        assert staged.stat().st_mode & 0o777 == 0o644
        assert (ws.root / "é.txt").read_text(encoding="utf-8") == "ü"
        assert ws.changed_files() == []  # part of the initial state


@pytest.mark.parametrize("dest", ["../escape.txt", "/etc/evil", ".git/hooks/x", "a/../../b"])
def test_an_inline_file_lands_inside_the_workspace_or_nowhere(
    repo: Path, base: Path, dest: str
) -> None:
    with pytest.raises(WorkspaceError, match="destination must be a relative path"):
        prepare(make_suite(repo), make_case(inline(repo, dest, "x")), base_dir=base)
    assert list(base.iterdir()) == []


def test_inline_text_over_the_limits_is_refused_at_staging_too(repo: Path, base: Path) -> None:
    big = "x" * (MAX_INLINE_FILE_BYTES + 1)
    with pytest.raises(WorkspaceError, match="over the 1,048,576-byte limit for one file"):
        prepare(make_suite(repo), make_case(inline(repo, "a.txt", big)), base_dir=base)
    just_under = "x" * MAX_INLINE_FILE_BYTES
    many = [inline(repo, f"f{n}.txt", just_under) for n in range(17)]
    with pytest.raises(WorkspaceError, match="limit for one case"):
        prepare(make_suite(repo), make_case(*many), base_dir=base)
    assert list(base.iterdir()) == []


def test_rebaseline_takes_what_setup_made_as_the_start_and_runs_nothing_it_planted(
    repo: Path, base: Path, tmp_path: Path
) -> None:
    pwned = tmp_path / "pwned"
    with prepare(make_suite(repo), make_case(), base_dir=base) as ws:
        planted = plant_hooks(ws.root, pwned)
        hook = ws.root / "hook.sh"
        nested = ws.root / "fixtures" / "inner"  # as dotnet/skills' setup commands do
        nested.mkdir(parents=True)
        (nested / "a.py").write_text("x = 1\n")
        git(nested, "init", "-q")  # no commit: git would refuse to add it as a gitlink
        with (nested / ".git" / "config").open("a") as fh:
            fh.write(planted)
        (ws.root / "made.txt").write_text("by setup\n")

        ws.rebaseline()
        assert ws.changed_files() == []
        assert str(hook) not in (ws.root / ".git" / "config").read_text()
        (ws.root / "made.txt").write_text("by the agent\n")
        (ws.root / "new.txt").write_text("new\n")
        assert ws.changed_files() == ["made.txt", "new.txt"]
    assert not pwned.exists()
