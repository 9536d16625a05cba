"""caliper, skillgrade, skill-test-action and `*.eval.md`, each read from its sample in
examples/formats: what becomes cases, checks and judge items, and what is warned."""

from __future__ import annotations

import asyncio
from pathlib import Path

from evolve_action.formats import load_all
from evolve_action.grade.checks import CheckContext, run_check
from evolve_action.model.evals import CaseKind, Format, Scale
from evolve_action.model.outcomes import Transcript
from tests.fakes.commands import ShellRunner

EXAMPLES = Path(__file__).parents[2] / "examples/formats"


def test_caliper_tasks_expect_activates_and_a_warned_assert() -> None:
    (result,) = load_all(EXAMPLES / "caliper")
    assert result.ok and result.format is Format.CALIPER, result.problems
    assert result.suite is not None and result.suite.skill.name == "slugify"
    first, second = result.suite.cases
    assert [i.kind for i in first.checks] == ["triggers.fired"]
    assert first.judge_items[0].text == "The answer is exactly hello-world-part-2."
    assert not second.checks and len(second.judge_items) == 1
    assert any("inline Python assert" in p.message for p in result.problems)


def test_a_caliper_file_of_only_asserts_is_not_run_and_fails_nothing(tmp_path: Path) -> None:
    spec = "tasks:\n  - {name: t, prompt: p, assert: 'assert True'}\n"
    (tmp_path / "x.eval.yaml").write_text(spec)
    (result,) = load_all(tmp_path)
    assert result.format is Format.CALIPER and result.suite is None and not result.failed
    assert result.problems[0].message.startswith("not run:")


def test_skillgrade_task_graders_workspace_and_threshold(tmp_path: Path) -> None:
    (result,) = load_all(EXAMPLES / "skillgrade")
    assert result.ok and result.format is Format.SKILLGRADE, result.problems
    suite = result.suite
    assert suite is not None and suite.runs == 3 and suite.policy.threshold == 0.75
    (case,) = suite.cases
    assert [f.dest for f in case.files] == ["titles.txt"]
    (check,) = case.checks
    assert check.kind == "skillgrade.deterministic" and check.weight == 2.0
    assert case.judge_items[0].scale is Scale.UNIT
    (tmp_path / "slugs.txt").write_text("hello-world\nrust-go\n")
    ctx = CheckContext(suite, case, tmp_path, Transcript(), ShellRunner(), 30)
    graded = asyncio.run(run_check(check, ctx))
    assert (graded.passed, graded.score) == (True, 1.0), graded


def test_skill_tests_are_trigger_cases() -> None:
    (result,) = load_all(EXAMPLES / "skill-test-action")
    assert result.ok and result.format is Format.SKILL_TESTS, result.problems
    assert result.suite is not None and result.suite.skill.name == "slugify"
    cases = result.suite.cases
    assert [(c.id, c.kind, c.should_trigger) for c in cases] == [
        ("asks-for-a-slug", CaseKind.TRIGGER, True),
        ("unrelated", CaseKind.TRIGGER, False),
    ]


def test_a_workflow_named_skill_tests_yaml_is_not_ours(tmp_path: Path) -> None:
    (tmp_path / "skill-tests.yaml").write_text("on: [push]\njobs: {t: {runs-on: x}}\n")
    assert load_all(tmp_path) == []  # a notice only: validate shows it, a run ignores it


def test_eval_md_prompt_and_expectation() -> None:
    (result,) = load_all(EXAMPLES / "eval-md")
    assert result.ok and result.format is Format.EVAL_MD, result.problems
    assert result.suite is not None
    (case,) = result.suite.cases
    assert case.prompt == 'Give me the slug for "Crème brûlée recipes".'
    assert case.judge_items[0].text == "The slug is ASCII only: creme-brulee-recipes."
