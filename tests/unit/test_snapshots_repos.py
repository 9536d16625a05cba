"""skill-creator, evolve and clauditor repositories read as their authors meant them (issue 13,
items 6-9, 13, 14), each from its snapshot's root as `evolve-action validate` reads it.

Skipped when ../shared/corpus/repos is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evolve_action.commands.validate import collect
from evolve_action.formats import load_all
from evolve_action.formats.discovery import discover
from evolve_action.model.evals import Format, JudgeItem, Severity
from tests.unit.snapshot_helpers import AUTORESEARCH, DOCS_REPAIR, load_tree, snapshot

CLAUDITOR_TWO_SPECS = "clauditor/wjduenow-clauditor-87d929a"
CLAUDITOR_FLAT = "clauditor/wjduenow-clauditor-3139106"
CLAUDITOR_VALUE = "clauditor/wjduenow-clauditor-06e8d97"


def warnings_of(root: Path) -> list[str]:
    report = collect([root], globs=None, layout=None, as_format=None, cwd=root)
    return [p.render() for p in report.all_problems() if p.severity is Severity.WARNING]


# --- item 6: skill-creator {name, check} ------------------------------------------------------


def test_item6__the_check_is_graded_and_the_name_is_said_to_be_ignored(corpus_dir: Path) -> None:
    root = snapshot(corpus_dir, AUTORESEARCH)
    result = load_tree(root)["evals/evals.json"]
    raw = json.loads((root / "evals/evals.json").read_text())
    first = raw["evals"][0]["assertions"][0]
    assert set(first) == {"name", "check"}
    # Its fixtures (target/…) were not copied into the snapshot: skill-creator never checks
    # them, so each is warned and the cases run without it.
    assert result.suite is not None and not result.errors
    problems = [p for p in result.problems if p.severity is Severity.WARNING]
    assert any("not found" in p.message and "runs without it" in p.message for p in problems)
    assert any("llm assertions on their `check`" in p.message for p in problems)
    assert any(p.field.endswith(".name") and "is not graded" in p.message for p in problems)


def test_item6__judge_items_hold_the_criterion(corpus_dir: Path, tmp_path: Path) -> None:
    """With its fixtures in place, every assertion's judge item is its `check`."""
    root = snapshot(corpus_dir, AUTORESEARCH)
    data = json.loads((root / "evals/evals.json").read_text())
    work = tmp_path / "autoresearch"
    (work / "evals").mkdir(parents=True)
    (work / "SKILL.md").write_text((root / "SKILL.md").read_text())
    (work / "evals/evals.json").write_text(json.dumps(data))
    for case in data["evals"]:
        for rel in case.get("files", []):
            (work / "evals" / rel).parent.mkdir(parents=True, exist_ok=True)
            (work / "evals" / rel).write_text("stand-in\n")
    (result,) = [r for r in load_all(work) if r.rel == "evals/evals.json"]
    assert result.suite is not None, [p.render() for p in result.problems]
    first = result.suite.cases[0]
    texts = [i.text for i in first.items if isinstance(i, JudgeItem)]
    assert texts[0] == data["evals"][0]["assertions"][0]["check"]
    assert not any(t == a["name"] for t in texts for a in data["evals"][0]["assertions"])


# --- item 7: a skill at the repository root ---------------------------------------------------


def test_item7__a_root_skill_is_named_by_its_frontmatter(corpus_dir: Path) -> None:
    root = snapshot(corpus_dir, AUTORESEARCH)
    assert root.name == "dcgrigsby-autoresearch-skill"
    skills = {f.rel: f.skill for f in discover(root).files}
    assert skills["evals/evals.json"].name == "autoresearch"
    assert skills["evals/trigger-eval.json"].name == "autoresearch"
    assert skills["evals/evals.json"].dir == root.resolve()
    assert not any("does not match skill directory" in w for w in warnings_of(root))


# --- items 8 and 9: a marketplace plugin at `./`, trigger-eval.json beside an eval set ---------


def test_item8_and_9__the_repository_is_its_marketplace_plugin(corpus_dir: Path) -> None:
    root = snapshot(corpus_dir, DOCS_REPAIR)
    found = discover(root)
    assert found.layout == "marketplace"
    files = {f.rel: f for f in found.files}
    assert {rel: f.format for rel, f in files.items()} == {
        "evals/evals.json": Format.EVOLVE,
        "evals/trigger-eval.json": Format.TRIGGERS,
        "evals/ai-slop-audit/evals.json": Format.EVOLVE,
        "evals/ai-slop-audit/trigger-eval.json": Format.TRIGGERS,
    }
    slop = files["evals/ai-slop-audit/trigger-eval.json"].skill
    assert (slop.name, slop.plugin) == ("ai-slop-audit", "docs-repair")
    assert slop.dir == root.resolve() / "skills/ai-slop-audit"
    top = files["evals/evals.json"].skill  # its skill_name says which skill it is
    assert top.name == "metadiscourse-audit"
    assert top.dir == root.resolve() / "skills/metadiscourse-audit"
    triggers = load_tree(root)["evals/ai-slop-audit/trigger-eval.json"]
    assert triggers.suite is not None and len(triggers.suite.cases) > 10


def test_item8__a_tree_with_skills_but_no_eval_file_says_why(
    corpus_dir: Path, tmp_path: Path
) -> None:
    root = snapshot(corpus_dir, DOCS_REPAIR)
    bare = tmp_path / "docs-repair"
    for rel in ("skills/ai-slop-audit/SKILL.md", "skills/metadiscourse-audit/SKILL.md"):
        (bare / rel).parent.mkdir(parents=True)
        (bare / rel).write_text((root / rel).read_text())
    (warning,) = warnings_of(bare)
    assert "found 2 skill(s) (ai-slop-audit, metadiscourse-audit) but no eval file" in warning
    (bare / "evals.json").write_text((root / "evals/evals.json").read_text())
    (warning,) = warnings_of(bare)
    assert warning.startswith("evals.json: warning: looks like an eval file but was not read")


# --- items 13 and 14: clauditor -----------------------------------------------------------------


def test_item13__sibling_skill_eval_json_wins_and_says_so(corpus_dir: Path) -> None:
    root = snapshot(corpus_dir, CLAUDITOR_TWO_SPECS)
    skill_dir = ".claude/skills/review-agentskills-spec"
    tree = load_tree(root)
    assert list(tree) == [f"{skill_dir}/SKILL.eval.json"]
    (note,) = [
        p
        for p in tree[f"{skill_dir}/SKILL.eval.json"].problems
        if p.origin.path.endswith("assets/review-agentskills-spec.eval.json")
    ]
    assert note.severity is Severity.WARNING
    assert "not read" in note.message and "SKILL.eval.json" in note.message


def test_item14__flat_fields_keep_min_entries(corpus_dir: Path, tmp_path: Path) -> None:
    root = snapshot(corpus_dir, CLAUDITOR_FLAT)
    rel = "examples/.claude/commands/example-skill.eval.json"
    data = json.loads((root / rel).read_text())
    assert "tiers" not in data["sections"][0] and data["sections"][0]["min_entries"] == 2
    work = tmp_path / "repo"
    (work / rel).parent.mkdir(parents=True)
    (work / rel).write_text(json.dumps(data))
    (work / "examples/.claude/commands/example-skill.md").write_text("Find activities.\n")
    (result,) = load_all(work)
    assert result.suite is not None, [p.render() for p in result.problems]
    extract = next(i for i in result.suite.cases[0].judge_items if i.kind == "extract")
    tiers = {s.name: s.tiers[0].min_entries for s in extract.params.sections}
    assert tiers == {"Venues": 2, "Events": 0}
    assert not any("min_entries" in p.message and "ignored" in p.message for p in result.problems)


@pytest.mark.parametrize("name", [CLAUDITOR_FLAT, CLAUDITOR_VALUE])
def test_item14__old_value_is_warned_with_the_new_spelling(corpus_dir: Path, name: str) -> None:
    root = snapshot(corpus_dir, name)
    warnings = warnings_of(root)
    said = "'value' is the old spelling (one `value` for every type, numbers as strings)"
    assert any(f"{said}; write 'needle': 'Venues'" in w for w in warnings)
    assert any("write 'count': 3" in w for w in warnings)
    assert any("write 'length': 500" in w for w in warnings)
