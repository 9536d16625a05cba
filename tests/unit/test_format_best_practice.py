"""Anthropic's best-practice evaluations: one case per object (or per scenario, or per list
item), each expected behaviour a judge item, files staged from the skill (a missing one warned)."""

from __future__ import annotations

import json
from pathlib import Path

from evolve_action.formats import discovery, load_all, load_found
from evolve_action.model.evals import Format, Severity

EXAMPLE = Path(__file__).parents[2] / "examples/formats/best-practice"


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_the_example_is_one_case_with_a_judge_item_per_behaviour() -> None:
    (result,) = load_all(EXAMPLE)
    assert result.ok and result.format is Format.BEST_PRACTICE, result.problems
    assert result.suite is not None and result.suite.skill.name == "release-notes"
    (case,) = result.suite.cases
    assert case.prompt.startswith("Write the release notes")
    assert case.judge_items[0].text == "Lists the CSV export under Features"
    assert [f.dest for f in case.files] == ["titles.txt"]


def test_scenarios_lists_a_string_behaviour_and_a_missing_file(tmp_path: Path) -> None:
    skill = "skills/s/"
    write(tmp_path, {
        skill + "SKILL.md": "---\nname: s\ndescription: d\n---\nDo.\n",
        skill + "evals/a.json": json.dumps([{"query": "q1", "expected_behavior": "PASS. ok"}]),
        skill + "evaluations/b.json": json.dumps({
            "name": "b", "grading": {"pass_threshold": 80},
            "scenarios": [{"id": "one", "query": "q", "files": ["gone.csv"],
                           "expected_behavior": ["x", "y"]}],
        }),
        skill + "evals/results.json": json.dumps({"runs": [1, 2]}),
    })  # fmt: skip
    found = discovery.discover(tmp_path)
    results = {i.rel: load_found(found.root, i) for i in found.files}
    a, b = results[skill + "evals/a.json"], results[skill + "evaluations/b.json"]
    assert a.ok and a.suite is not None and len(a.suite.cases[0].judge_items) == 1
    assert b.ok and b.suite is not None and b.suite.policy.threshold == 0.8
    assert b.suite.cases[0].id == "one" and b.suite.cases[0].files == ()
    assert any("'gone.csv'" in p.message and p.severity is Severity.WARNING for p in b.problems)
    assert results[skill + "evals/results.json"].not_eval
