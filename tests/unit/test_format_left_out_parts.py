"""What cannot be read in one part of a file is left out with its reason, and the rest of the
file runs: a best-practice case, a skill-test-action test, a skillgrade task, a tessl
checklist item. A file none of whose parts reads is not run (warned), never an error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from evolve_action.formats import load_all
from evolve_action.model.evals import LoadResult

EXAMPLES = Path(__file__).parents[2] / "examples/formats"


def copied(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(EXAMPLES / name, root)
    return root


def only(root: Path) -> LoadResult:
    (result,) = load_all(root)
    return result


def test_a_best_practice_case_that_does_not_read_is_left_out(tmp_path: Path) -> None:
    root = copied(tmp_path, "best-practice")
    path = root / "skills/release-notes/evals/groups-titles.json"
    good = json.loads(path.read_text())
    path.write_text(json.dumps([good, {"query": "", "expected_behavior": ["x"]}]))
    result = only(root)
    assert result.ok and result.suite is not None and len(result.suite.cases) == 1
    assert any("this case is not run" in p.message for p in result.problems)


def test_a_skill_test_that_does_not_read_is_left_out_and_a_quoted_flag_reads(
    tmp_path: Path,
) -> None:
    root = copied(tmp_path, "skill-test-action")
    path = root / "slugify/skill-tests.yaml"
    path.write_text(
        "skill: text-tools:slugify\ntests:\n"
        "  - {id: a, prompt: Slug this, should_trigger: 'true'}\n"
        "  - {id: b, should_trigger: false}\n"
    )
    result = only(root)
    assert result.ok and result.suite is not None
    assert [c.id for c in result.suite.cases] == ["a"]
    assert any("this test is not run" in p.message for p in result.problems)


def test_a_skillgrade_task_that_does_not_read_is_left_out(tmp_path: Path) -> None:
    root = copied(tmp_path, "skillgrade")
    path = root / "slugify/eval.yaml"
    path.write_text(path.read_text() + "  - [not, a, task]\n")
    result = only(root)
    assert result.ok and result.suite is not None and len(result.suite.cases) == 1
    assert any("this task is not run" in p.message for p in result.problems)


def write_tessl(root: Path, checklist: list[object]) -> None:
    scenario = root / "tile/evals/scenario-1"
    scenario.mkdir(parents=True)
    (root / "tile/SKILL.md").write_text("---\nname: tile\ndescription: d\n---\nbody\n")
    (scenario / "task.md").write_text("Do the task.\n")
    criteria = {"type": "weighted_checklist", "checklist": checklist}
    (scenario / "criteria.json").write_text(json.dumps(criteria))


def test_a_tessl_item_that_does_not_read_is_not_judged_and_points_as_text_read(
    tmp_path: Path,
) -> None:
    write_tessl(
        tmp_path,
        [
            {"name": "a", "description": "does a", "max_score": "3"},
            {"name": "b", "description": "does b", "max_score": "many"},
        ],
    )
    result = only(tmp_path)
    assert result.ok and result.suite is not None
    (case,) = result.suite.cases
    assert [i.weight for i in case.judge_items] == [3.0]
    assert any("this item is not judged" in p.message for p in result.problems)


def test_a_tessl_file_with_no_item_that_reads_is_not_run(tmp_path: Path) -> None:
    write_tessl(tmp_path, [{"name": "a"}])
    result = only(tmp_path)
    assert result.suite is None and not result.errors and not result.failed
    assert result.problems[0].message.startswith("not run: no checklist item reads")


def test_a_waza_task_that_does_not_read_is_left_out_and_a_missing_input_is_warned(
    tmp_path: Path,
) -> None:
    root = copied(tmp_path, "waza")
    tasks = root / "evals/slugify/tasks"
    (tasks / "broken.yaml").write_text("[not, a, task]\n")
    one = tasks / "one-title.yaml"
    one.write_text(one.read_text().replace("inputs:\n", "inputs:\n  files: [gone.txt]\n"))
    suite_result = next(r for r in load_all(root) if r.rel.endswith("eval.yaml"))
    assert suite_result.ok and suite_result.suite is not None, suite_result.problems
    assert [c.id for c in suite_result.suite.cases] == ["one-title"]
    said = " ".join(p.message for p in suite_result.problems)
    assert "this task is not run" in said and "the task runs without it" in said
