from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from evolve_action.formats.evolve.params import FileParams
from evolve_action.model.evals import Case, Check, Fixture, Format, Origin, Skill, Suite
from evolve_action.plan.fingerprints import Fingerprinter, digest, plain


def make_tree(root: Path, skill_text: str = "A\n", seed: str = "seed\n") -> Suite:
    (root / "skills/a").mkdir(parents=True, exist_ok=True)
    (root / "skills/a/SKILL.md").write_text(skill_text)
    (root / "evals/a/files").mkdir(parents=True, exist_ok=True)
    (root / "evals/a/files/seed.txt").write_text(seed)
    rel = "evals/a/evals.json"
    check = Check("c1", "evolve.file_exists", "file x exists", Origin(rel, 9), FileParams("x"))
    case = Case(
        id="1",
        prompt="do it",
        origin=Origin(rel, 4),
        files=(Fixture(root / "evals/a/files/seed.txt", "seed.txt", Origin(rel, 5)),),
        items=(check,),
    )
    return Suite(Format.EVOLVE, root / rel, rel, Skill("a", root / "skills/a"), (case,))


def fp(suite: Suite, **kw: object) -> str:
    args = {"model": "anthropic/claude-sonnet-4-6", "repetition": 1} | kw
    return Fingerprinter("anthropic/claude-sonnet-4-6").run(suite, suite.cases[0], **args)  # type: ignore[arg-type]


def test_same_content_in_two_trees_has_the_same_fingerprint(tmp_path: Path) -> None:
    assert fp(make_tree(tmp_path / "base")) == fp(make_tree(tmp_path / "head"))


def test_fingerprint_changes_with_skill_fixture_model_repetition(tmp_path: Path) -> None:
    reference = fp(make_tree(tmp_path / "r"))
    assert fp(make_tree(tmp_path / "s", skill_text="B\n")) != reference
    assert fp(make_tree(tmp_path / "f", seed="other\n")) != reference
    assert fp(make_tree(tmp_path / "m"), model="openai/gpt-5.4") != reference
    assert fp(make_tree(tmp_path / "n"), repetition=2) != reference


def test_moving_a_case_in_the_file_keeps_its_fingerprint(tmp_path: Path) -> None:
    suite = make_tree(tmp_path / "r")
    moved_case = Case(
        id="1",
        prompt="do it",
        origin=Origin(suite.rel, 40),
        files=suite.cases[0].files,
        items=suite.cases[0].items,
    )
    moved = Suite(suite.format, suite.path, suite.rel, suite.skill, (moved_case,))
    assert fp(moved) == fp(suite)


def test_a_cases_content_keeps_its_shape_and_its_fingerprint(tmp_path: Path) -> None:
    """Cached runs are found by these fingerprints: how `plain` reads a case (dataclasses,
    tuples, enums, sets, origins and paths left out, fields added later left out when unset)
    and the digest it gives must not change. The digest was taken before `plain` was made
    faster (cd02354); a change to either is a change to every user's cache."""
    suite = make_tree(tmp_path)
    case = replace(suite.cases[0], skip_providers=frozenset({"openai", "anthropic"}))
    doc = plain(case)
    assert doc["kind"] == "task" and "origin" not in doc and doc["messages"] == []
    assert doc["files"] == [{"source": None, "dest": "seed.txt"}]
    assert doc["skip_providers"] == ["anthropic", "openai"]
    assert "follow_ups" not in doc and "setup_commands" not in doc and "mcp_servers" not in doc
    assert doc["items"][0]["params"] == {"path": "x"}
    assert digest(doc) == PINNED


PINNED = "c0300ad2b45273be2a57af2f57404526aa2575426b6d65111cdd62a86c8f7042"
