"""The tessl loader: a scenario folder's task.md and weighted checklist, the tile's skill,
the verdict (points awarded over points possible, passing at half), and the tessl snapshots
in ../shared, which load with no error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evolve_action.formats import load_all
from evolve_action.grade.scoring import policy_for
from evolve_action.model.evals import Format, JudgeItem, Scale, Severity, Suite
from evolve_action.model.outcomes import ItemResult, JudgeReport, Status

SKILL = "---\nname: {0}\ndescription: d\n---\nbody\n"
CRITERIA = {
    "context": "Spec bypass: the agent must flag the missing spec.",
    "type": "weighted_checklist",
    "checklist": [
        {"name": "Assessment file created", "max_score": 4, "description": "assessment.md"},
        {"name": "Violation identified", "max_score": 12, "description": "says no spec"},
    ],
}


def repo(tmp_path: Path, criteria: object = CRITERIA) -> Path:
    tile = {
        "name": "t/tile",
        "skills": {n: {"path": f"skills/{n}/SKILL.md"} for n in ("a", "spec-writer")},
    }
    files = {
        "tile.json": json.dumps(tile),
        "skills/a/SKILL.md": SKILL.format("a"),
        "skills/spec-writer/SKILL.md": SKILL.format("spec-writer"),
        "evals/spec-writer-bypass/task.md": "# Review\nProduce assessment.md.\n",
        "evals/spec-writer-bypass/criteria.json": json.dumps(criteria),
        "evals/notes/criteria.json": json.dumps(CRITERIA),  # no task.md: not a scenario
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def suite(tmp_path: Path) -> Suite:
    (result,) = load_all(repo(tmp_path))
    assert result.ok and result.suite is not None, result.problems
    return result.suite


def test_a_scenario_is_one_case_with_a_weighted_checklist(tmp_path: Path) -> None:
    s = suite(tmp_path)
    assert (s.format, s.rel, s.name) == (
        Format.TESSL,
        "evals/spec-writer-bypass/criteria.json",
        "spec-writer-bypass",
    )
    assert s.skill.name == "spec-writer"  # the tile skill the scenario names
    (case,) = s.cases
    assert case.prompt.startswith("# Review") and "missing spec" in case.expected_output
    assert [(i.weight, i.scale) for i in case.items if isinstance(i, JudgeItem)] == [
        (4.0, Scale.UNIT),
        (12.0, Scale.UNIT),
    ]


@pytest.mark.parametrize(
    ("shares", "status"), [((1.0, 0.5), Status.PASS), ((1.0, 0.3), Status.FAIL)]
)
def test_the_run_passes_at_half_the_points(
    tmp_path: Path, shares: tuple[float, float], status: Status
) -> None:
    s = suite(tmp_path)
    (case,) = s.cases
    results = [
        ItemResult(i.id, i.text, v >= 0.5, score=v, raw_score=v)
        for i, v in zip(case.items, shares, strict=True)
    ]
    verdict = policy_for(Format.TESSL).verdict(s, case, results, JudgeReport())
    assert verdict.status is status
    assert verdict.score == pytest.approx((4 * shares[0] + 12 * shares[1]) / 16)


def test_a_checklist_tessl_would_not_read_is_an_error(tmp_path: Path) -> None:
    bad = {"type": "rubric", "checklist": []}
    (result,) = load_all(repo(tmp_path, bad))
    assert not result.ok and "must be weighted_checklist" in result.errors[0].message


def test_corpus__tessl_tiles_load_with_no_error(corpus_dir: Path) -> None:
    root = corpus_dir / "repos/tessl"
    if not root.is_dir():
        pytest.skip(f"{root} is absent")
    results = [r for snap in sorted(root.iterdir()) for r in load_all(snap)]
    assert len(results) == 44 and all(r.ok and r.format is Format.TESSL for r in results)
    warned = {
        p.message.split(":")[0]
        for r in results
        for p in r.problems
        if p.severity is Severity.WARNING
    }
    assert all(w.startswith("the tile has") for w in warned)
