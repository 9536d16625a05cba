"""evolve's `files` staging rule and fixture resolution (as evolve stages them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evolve_action.formats.base import LoadContext
from evolve_action.formats.documents import read
from evolve_action.formats.evolve import load as evolve
from evolve_action.formats.evolve.files import stage
from evolve_action.model.evals import Skill
from tests.unit.test_format_evolve import case, load_data, messages, repo, suite_of


@pytest.mark.parametrize(
    ("entry", "cleaned", "dest"),
    [
        ("files/src/main.go", "files/src/main.go", "src/main.go"),
        ("seed.txt", "seed.txt", "seed.txt"),
        ("fixtures/clidemo/go.mod", "fixtures/clidemo/go.mod", "go.mod"),
        ("evals/files/sample1.pdf", "files/sample1.pdf", "sample1.pdf"),
        ("./files//a/../b.txt", "files/b.txt", "b.txt"),
        ("files\\win\\x.txt", "files/win/x.txt", "win/x.txt"),
    ],
)
def test_staging_rule(entry: str, cleaned: str, dest: str) -> None:
    staged = stage(entry)
    assert not isinstance(staged, str)
    assert (staged.cleaned, staged.dest) == (cleaned, dest)


@pytest.mark.parametrize("entry", ["../secrets.txt", "/etc/passwd", "a/../../x", "evals", "."])
def test_escaping_entries_are_refused(entry: str) -> None:
    refused = stage(entry)
    assert isinstance(refused, str) and "escapes the evals directory" in refused


def test_fixtures_resolve_to_absolute_sources_and_posix_destinations(tmp_path: Path) -> None:
    root = repo(
        tmp_path,
        {"files/src/main.go": "package main", "seed.txt": "s", "fixtures/cli/go.mod": "module x"},
    )
    files = ["files/src/main.go", "seed.txt", "fixtures/cli/go.mod"]
    suite = suite_of(load_data(root, {"evals": [case(files=files)]}))
    staged = {f.dest: f.source for f in suite.cases[0].files}
    evals_dir = root / "evals" / "demo"
    assert staged == {
        "src/main.go": evals_dir / "files/src/main.go",
        "seed.txt": evals_dir / "seed.txt",
        "go.mod": evals_dir / "fixtures/cli/go.mod",
    }
    assert all(f.source.is_absolute() for f in suite.cases[0].files)
    assert suite.cases[0].files[0].origin.pointer == "evals[0].files[0]"


def test_skill_creator_drop_in(tmp_path: Path) -> None:
    root = repo(tmp_path, {"files/sample1.pdf": "%PDF"})
    data = {
        "skill_name": "demo",
        "evals": [
            {
                "id": 0,
                "prompt": "summarize",
                "expected_output": "a summary",
                "files": ["evals/files/sample1.pdf"],
                "expectations": ["mentions the title", "is short"],
            }
        ],
    }
    suite = suite_of(load_data(root, data))
    [only] = suite.cases
    assert only.id == "0" and only.expected_output == "a summary"
    assert [(f.dest, f.source) for f in only.files] == [
        ("sample1.pdf", root / "evals/demo/files/sample1.pdf")
    ]
    assert [(i.text, i.source) for i in only.judge_items] == [
        ("mentions the title", "expectation"),
        ("is short", "expectation"),
    ]
    assert not only.checks and not suite.warnings


def test_inline_files_are_rejected_with_the_pointed_message(tmp_path: Path) -> None:
    result = load_data(repo(tmp_path), {"evals": [case(files={"a.txt": "hello"})]})
    [error] = result.errors
    assert error.field == "evals[0].files"
    assert "inline file content is not supported" in error.message


def test_escaping_fixture_is_a_load_error(tmp_path: Path) -> None:
    result = load_data(repo(tmp_path), {"evals": [case(files=["../secrets.txt"])]})
    [error] = result.errors
    assert error.field == "evals[0].files[0]"
    assert "escapes the evals directory" in error.message


def test_two_entries_staging_to_one_destination(tmp_path: Path) -> None:
    root = repo(tmp_path, {"a.txt": "1", "fixtures/x/a.txt": "2"})
    result = load_data(root, {"evals": [case(files=["a.txt", "fixtures/x/a.txt"])]})
    [error] = result.errors
    assert "a.txt and fixtures/x/a.txt both stage to a.txt" in error.message


def test_missing_and_non_regular_fixtures(tmp_path: Path) -> None:
    root = repo(tmp_path, {"dir/inner.txt": "x"})
    result = load_data(root, {"evals": [case(files=["nope.txt", "dir"])]})
    found = messages(result)
    assert any("fixture nope.txt not found" in m and "evals/demo/nope.txt" in m for m in found)
    assert any("fixture dir is not a regular file" in m for m in found)


def test_fixture_symlink_leaving_the_repository_is_refused(tmp_path: Path) -> None:
    root = repo(tmp_path)
    (tmp_path / "outside.txt").write_text("secret")
    (root / "evals" / "demo" / "leak.txt").symlink_to(tmp_path / "outside.txt")
    result = load_data(root, {"evals": [case(files=["leak.txt"])]})
    [error] = result.errors
    assert "resolves outside the repository" in error.message


def test_skill_creator_paths_from_the_skill_root(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    skill_dir = root / "skills" / "demo"
    (skill_dir / "evals").mkdir(parents=True)
    (skill_dir / "SKILL.md").write_text("---\nname: demo\n---\n")
    path = skill_dir / "evals" / "evals.json"
    path.write_text(json.dumps({"evals": [case(files=["SKILL.md"])]}))
    ctx = LoadContext(root=root, skill=Skill("demo", skill_dir))
    suite = suite_of(evolve.load(read(path, "skills/demo/evals/evals.json"), ctx))
    assert [(f.dest, f.source) for f in suite.cases[0].files] == [
        ("SKILL.md", skill_dir / "SKILL.md")
    ]


def test_fixture_sources_are_absolute_even_from_a_relative_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(tmp_path, {"seed.txt": "s"})
    (root / "evals/demo/evals.json").write_text(json.dumps({"evals": [case(files=["seed.txt"])]}))
    monkeypatch.chdir(root)
    ctx = LoadContext(root=Path("."), skill=Skill("demo", Path("skills/demo")))
    result = evolve.load(read(Path("evals/demo/evals.json")), ctx)
    [fixture] = suite_of(result).cases[0].files
    assert fixture.source == root / "evals/demo/seed.txt" and fixture.source.is_absolute()


def test_evals_json_at_the_skill_root__evals_prefix_path_as_written(tmp_path: Path) -> None:
    """agentv's skill-creator example keeps evals.json beside SKILL.md and lists
    `evals/files/sales.csv` from there; the path as written is the one that exists."""
    skill = tmp_path / "skill"
    (skill / "evals/files").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: skill\n---\nx\n")
    (skill / "evals/files/sales.csv").write_text("a,b\n")
    evals = skill / "evals.json"
    evals.write_text(
        '{"evals": [{"id": 1, "prompt": "p", "files": ["evals/files/sales.csv"],'
        ' "expectations": ["e"]}]}'
    )
    doc = read(evals, "skill/evals.json")
    result = evolve.load(doc, LoadContext(tmp_path, Skill("skill", skill)))
    assert result.errors == ()
    assert result.suite is not None
    (fixture,) = result.suite.cases[0].files
    assert fixture.source == skill / "evals/files/sales.csv" and fixture.dest == "sales.csv"
