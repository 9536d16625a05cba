"""Verdict policies of evolve evals and trigger sets (docs/design.md §Pass rate)."""

from __future__ import annotations

from pathlib import Path

from evolve_action.formats.evolve.params import FileParams, RegexParams, TriggerParams
from evolve_action.grade.scoring import policy_for
from evolve_action.model.evals import Case, CaseKind, Check, Format, JudgeItem, Origin, Skill, Suite
from evolve_action.model.outcomes import ItemResult, JudgeReport, Status

ORIGIN = Origin("evals/demo/evals.json", 3)
CHECK = Check("assertions[0]", "evolve.file_exists", "file a exists", ORIGIN, FileParams("a"))
JUDGED = JudgeItem("expectations[0]", "it is polite", ORIGIN, source="expectation")


def evolve_case(*items: Check | JudgeItem) -> tuple[Suite, Case]:
    case = Case("1", "p", ORIGIN, items=items)
    return Suite(Format.EVOLVE, Path("/r/e.json"), "e.json", Skill("demo", None), (case,)), case


def result(item_id: str, passed: bool | None) -> ItemResult:
    return ItemResult(item_id, "t", passed, "", kind="evolve.file_exists")


def test_evolve_run_passes_when_nothing_failed_and_skips_never_fail() -> None:
    suite, case = evolve_case(CHECK, JUDGED)
    policy = policy_for(Format.EVOLVE)
    verdict = policy.verdict(
        suite, case, [result("assertions[0]", None), result("expectations[0]", True)], JudgeReport()
    )
    assert (verdict.status, verdict.score, verdict.extra_items) == (Status.PASS, 1.0, ())


def test_evolve_one_failed_item_fails_the_run_and_scores_the_share_passed() -> None:
    third = Check("assertions[1]", "evolve.regex", "output matches /x/", ORIGIN, RegexParams("x"))
    suite, case = evolve_case(CHECK, third, JUDGED)
    items = [
        result("assertions[0]", True),
        result("assertions[1]", False),
        result("expectations[0]", True),
    ]
    verdict = policy_for(Format.EVOLVE).verdict(suite, case, items, JudgeReport())
    assert verdict.status is Status.FAIL
    assert verdict.score == 2 / 3


def test_evolve_score_is_one_when_nothing_was_graded() -> None:
    suite, case = evolve_case(CHECK)
    verdict = policy_for(Format.EVOLVE).verdict(
        suite, case, [result("assertions[0]", None)], JudgeReport()
    )
    assert (verdict.status, verdict.score) == (Status.PASS, 1.0)


def test_evolve_an_item_without_a_verdict_fails_loudly() -> None:
    suite, case = evolve_case(CHECK, JUDGED)
    verdict = policy_for(Format.EVOLVE).verdict(
        suite, case, [result("assertions[0]", True)], JudgeReport()
    )
    assert verdict.status is Status.FAIL and verdict.score == 0.5
    [missing] = verdict.extra_items
    assert (missing.item_id, missing.passed, missing.kind, missing.source) == (
        "expectations[0]",
        False,
        "judge",
        "expectation",
    )


def test_evolve_judge_needed_only_with_judge_items() -> None:
    policy = policy_for(Format.EVOLVE)
    suite, with_judge = evolve_case(CHECK, JUDGED)
    assert policy.judge_needed(suite, with_judge, []) is True
    suite, checks_only = evolve_case(CHECK)
    assert policy.judge_needed(suite, checks_only, []) is False


def trigger_case() -> tuple[Suite, Case]:
    check = Check(
        "fired", "triggers.fired", "skill demo fires", ORIGIN, TriggerParams("demo", True)
    )
    case = Case("q", "q", ORIGIN, kind=CaseKind.TRIGGER, items=(check,), should_trigger=True)
    return Suite(Format.TRIGGERS, Path("/r/t.json"), "t.json", Skill("demo", None), (case,)), case


def fired(passed: bool | None) -> ItemResult:
    return ItemResult("fired", "skill demo fires", passed, "", kind="triggers.fired")


def test_trigger_run_passes_iff_the_fired_check_passed() -> None:
    suite, case = trigger_case()
    policy = policy_for(Format.TRIGGERS)
    assert policy.judge_needed(suite, case, [fired(True)]) is False
    hit = policy.verdict(suite, case, [fired(True)], JudgeReport())
    miss = policy.verdict(suite, case, [fired(False)], JudgeReport())
    assert (hit.status, hit.score) == (Status.PASS, 1.0)
    assert (miss.status, miss.score) == (Status.FAIL, 0.0)


def test_trigger_run_without_an_answer_fails_with_a_reason() -> None:
    suite, case = trigger_case()
    policy = policy_for(Format.TRIGGERS)
    unknown = policy.verdict(suite, case, [fired(None)], JudgeReport())
    assert unknown.status is Status.FAIL and "cannot tell" in unknown.reason
    absent = policy.verdict(suite, case, [], JudgeReport())
    assert absent.status is Status.FAIL and absent.reason
