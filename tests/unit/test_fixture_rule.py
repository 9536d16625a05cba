"""`validate` and the runs agree on every shape of fixture (issue 22, `model.fixtures`).

Each shape is written into a real repository: `validate` (the command) either accepts the
eval file or names the entry; then the case is staged as a run stages it. What `validate`
accepts stages, with the bytes the link leads to; what it refuses would not stage either.
Before the rule was written once, a link to a file in the same folder passed `validate` and
failed every run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from evolve_action.commands.cli import main
from evolve_action.execute.workspace import WorkspaceError, prepare
from evolve_action.formats import load_all
from evolve_action.model.evals import Case, Fixture, Format, Origin, Skill, Suite
from evolve_action.model.fixtures import Refusal, fixture_source

Shape = Callable[[Path, Path], None]  # (repository, the eval file's folder)


def _plain(repo: Path, here: Path) -> None:
    (here / "input.txt").write_text("DATA\n")


def _link_in_folder(repo: Path, here: Path) -> None:
    (here / "data.txt").write_text("DATA\n")
    (here / "input.txt").symlink_to("data.txt")


def _link_elsewhere_in_repo(repo: Path, here: Path) -> None:
    (repo / "shared").mkdir()
    (repo / "shared" / "data.txt").write_text("DATA\n")
    (here / "input.txt").symlink_to(repo / "shared" / "data.txt")


def _linked_folder_in_repo(repo: Path, here: Path) -> None:
    (repo / "shared").mkdir()
    (repo / "shared" / "input.txt").write_text("DATA\n")
    (here / "files").rmdir()
    (here / "files").symlink_to(repo / "shared")


def _link_out_of_repo(repo: Path, here: Path) -> None:
    (repo.parent / "secret.txt").write_text("SECRET\n")
    (here / "input.txt").symlink_to(repo.parent / "secret.txt")


def _linked_folder_out_of_repo(repo: Path, here: Path) -> None:
    (repo.parent / "outside").mkdir()
    (repo.parent / "outside" / "input.txt").write_text("SECRET\n")
    (here / "files").rmdir()
    (here / "files").symlink_to(repo.parent / "outside")


def _directory(repo: Path, here: Path) -> None:
    (here / "input.txt").mkdir()


def _loop(repo: Path, here: Path) -> None:
    (here / "input.txt").symlink_to("input.txt")


def _dangling(repo: Path, here: Path) -> None:
    (here / "input.txt").symlink_to("nowhere.txt")


SHAPES: dict[str, tuple[Shape, str, str | None]] = {
    # name: (make it, the entry in `files`, what validate says: None when it accepts)
    "a file": (_plain, "input.txt", None),
    "a link to a file in the same folder": (_link_in_folder, "input.txt", None),
    "a link to a file elsewhere in the repository": (_link_elsewhere_in_repo, "input.txt", None),
    "a file below a linked folder of the repository": (
        _linked_folder_in_repo, "files/input.txt", None,
    ),
    "a link out of the repository": (_link_out_of_repo, "input.txt", Refusal.OUTSIDE),
    "a file below a folder linked out of the repository": (
        _linked_folder_out_of_repo, "files/input.txt", Refusal.OUTSIDE,
    ),
    "a directory": (_directory, "input.txt", Refusal.NOT_A_FILE),
    "a link loop": (_loop, "input.txt", Refusal.UNRESOLVABLE),
    "a dangling link": (_dangling, "input.txt", Refusal.MISSING),
    "'..' out of the evals folder": (_plain, "../input.txt", "escapes the evals directory"),
}  # fmt: skip


def _repo(tmp_path: Path, shape: Shape, entry: str) -> tuple[Path, Path]:
    repo = tmp_path / "repo"
    here = repo / "evals" / "demo"
    (here / "files").mkdir(parents=True)
    (repo / "skills" / "demo").mkdir(parents=True)
    (repo / "skills" / "demo" / "SKILL.md").write_text("---\nname: demo\ndescription: D.\n---\n")
    case = {"id": "c", "prompt": "p", "files": [entry], "assertions": ["The file is used."]}
    (here / "evals.json").write_text(json.dumps({"evals": [case]}))
    shape(repo, here)
    return repo, here


@pytest.mark.parametrize("name", SHAPES)
def test_validate_and_the_run_agree(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shape, entry, refusal = SHAPES[name]
    repo, here = _repo(tmp_path, shape, entry)
    code = main(["validate", str(repo)])
    said = capsys.readouterr().out
    (result,) = load_all(repo)
    if refusal is None:
        assert code == 0 and result.ok, said
        assert result.suite is not None
        suite = result.suite
        with prepare(suite, suite.cases[0], with_skill=False, tracked=False) as ws:
            staged = ws.root / suite.cases[0].files[0].dest
            assert staged.read_text() == "DATA\n" and not staged.is_symlink()
        return
    assert code == 1 and str(refusal) in said and "files[0]" in said, said
    # The same source, handed to the stage as a loader that skipped the rule would hand it:
    fixture = Fixture(here / entry, "input.txt", Origin("evals/demo/evals.json", 1))
    if not isinstance(fixture_source(fixture.source, repo), Refusal):
        return  # a lexical rule of the format (the evals folder), not the fixture rule
    rel = "evals/demo/evals.json"
    suite = Suite(Format.EVOLVE, repo / rel, rel, Skill("demo", repo / "skills/demo"), ())
    case = Case("c", "p", fixture.origin, files=(fixture,))
    with pytest.raises(WorkspaceError, match=r"fixture 'input\.txt'"):
        prepare(suite, case, with_skill=False)


def test_the_dest_rule_is_shared() -> None:
    from evolve_action.model.fixtures import fixture_dest

    for bad in ("", "/etc/x", "../x", "a/../../x", ".git/hooks/pre-commit"):
        assert fixture_dest(bad) is not None, bad
    assert fixture_dest("src/main.go") is None
