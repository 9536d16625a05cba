"""clauditor's layered verdict: each layer failing alone, threshold edges, L2 from extractions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evolve_action.formats.clauditor.items import EXTRACT_ID
from evolve_action.grade.scoring import Verdict, policy_for
from evolve_action.model.evals import Case, Format, Suite
from evolve_action.model.outcomes import ItemResult, JudgeReport, Status
from tests.unit.clauditor_helpers import load_spec

SECTIONS = [
    {
        "name": "Venues",
        "tiers": [
            {
                "label": "default",
                "min_entries": 1,
                "max_entries": 2,
                "fields": [
                    {"id": "v_name", "name": "name"},
                    {"id": "v_phone", "name": "phone", "required": False, "format": "phone_us"},
                ],
            }
        ],
    }
]
GOOD_EXTRACTION = {"Venues": {"default": [{"name": "Park", "phone": "(408) 298-5437"}]}}


def build(tmp_path: Path, **spec: Any) -> tuple[Suite, Case]:
    data = {
        "skill_name": "demo",
        "assertions": [
            {"id": "has_v", "type": "contains", "needle": "V"},
            {"id": "urls", "type": "urls_reachable"},
        ],
        **spec,
    }
    result = load_spec(tmp_path, data)
    assert result.suite is not None, [p.render() for p in result.problems]
    return result.suite, result.suite.cases[0]


def criteria(n: int) -> list[dict[str, str]]:
    return [{"id": f"c{i}", "criterion": f"criterion {i}?"} for i in range(n)]


def judged(scores: list[float], passed: list[bool] | None = None) -> list[ItemResult]:
    flags = passed if passed is not None else [s >= 0.5 for s in scores]
    return [
        ItemResult(f"c{i}", f"criterion {i}?", ok, "quote", score=s, kind="judge")
        for i, (s, ok) in enumerate(zip(scores, flags, strict=True))
    ]


NAME_0 = "L2:Venues/default[0].v_name"
L1_PASS = [
    ItemResult("has_v", "t", True, "found"),
    ItemResult("urls", "t", None, "skipped: network is off for checks"),  # skips never fail
]


def decide(suite: Suite, case: Case, items: list[ItemResult], extraction: Any = None) -> Verdict:
    judge = JudgeReport(called=True)
    if extraction is not None:
        judge.extractions[EXTRACT_ID] = extraction
    return policy_for(Format.CLAUDITOR).verdict(suite, case, items, judge)


def by_id(verdict: Verdict) -> dict[str, ItemResult]:
    return {r.item_id: r for r in verdict.extra_items}


def test_verdict__all_layers_pass_and_score_is_the_l3_mean(tmp_path: Path) -> None:
    suite, case = build(tmp_path, sections=SECTIONS, grading_criteria=criteria(2))
    verdict = decide(suite, case, [*L1_PASS, *judged([1.0, 0.6])], GOOD_EXTRACTION)
    assert (verdict.status, verdict.score, verdict.reason) == (Status.PASS, 0.8, "")
    results = by_id(verdict)
    assert results["L2:Venues/default/count"].passed is True
    assert results["L2:Venues/default/count_max"].passed is True
    assert results["L2:Venues/default[0].v_name"].passed is True
    assert results["L2:Venues/default[0].v_phone:format"].passed is True
    assert "L2:Venues/default[0].v_phone" not in results  # optional: no presence check
    assert all(r.kind == "clauditor.l2" for r in verdict.extra_items)


def test_verdict__l1_failing_alone_fails_the_run(tmp_path: Path) -> None:
    suite, case = build(tmp_path, grading_criteria=criteria(1))
    l1 = [ItemResult("has_v", "t", False, "not found"), L1_PASS[1]]
    verdict = decide(suite, case, [*l1, *judged([1.0])])
    assert verdict.status is Status.FAIL
    assert verdict.reason == "L1: 1 of 2 assertions failed"
    assert verdict.score == 1.0  # the score stays the L3 mean


@pytest.mark.parametrize(
    ("extraction", "failed_id", "evidence"),
    [
        ({"Venues": {"default": [{"name": None}]}}, NAME_0, "name is missing"),
        ({"Venues": {"default": [{"name": "  "}]}}, NAME_0, "name is missing"),
        ({"Venues": {"default": []}}, "L2:Venues/default/count", "0 entries extracted"),
        ({}, "L2:Venues/default/count", "0 entries extracted"),
        ({"Venues": {"default": [{"name": "a"}] * 3}}, "L2:Venues/default/count_max", "3 entries"),
        (
            {"Venues": {"default": [{"name": "a", "phone": "555-1234"}]}},
            "L2:Venues/default[0].v_phone:format",
            "'555-1234' does not match phone_us",
        ),
    ],
)  # fmt: skip
def test_verdict__l2_failing_alone_fails_the_run(
    tmp_path: Path, extraction: Any, failed_id: str, evidence: str
) -> None:
    suite, case = build(tmp_path, sections=SECTIONS, grading_criteria=criteria(1))
    verdict = decide(suite, case, [*L1_PASS, *judged([1.0])], extraction)
    assert verdict.status is Status.FAIL
    failed = [r for r in verdict.extra_items if r.passed is False]
    assert [r.item_id for r in failed] == [failed_id]
    assert evidence in failed[0].evidence
    assert verdict.reason.startswith("L2: 1 of")


def test_verdict__field_checks_run_over_every_entry_even_when_the_count_fails(
    tmp_path: Path,
) -> None:
    suite, case = build(tmp_path, sections=SECTIONS)
    entries = [{"name": "a"}, {"name": None}, {"name": "c", "phone": "bad"}]
    verdict = decide(suite, case, L1_PASS, {"Venues": {"default": entries}})
    failed = sorted(r.item_id for r in verdict.extra_items if r.passed is False)
    assert failed == [
        "L2:Venues/default/count_max",
        "L2:Venues/default[1].v_name",
        "L2:Venues/default[2].v_phone:format",
    ]


def test_verdict__missing_extraction_fails_l2_as_judge_error(tmp_path: Path) -> None:
    suite, case = build(tmp_path, sections=SECTIONS, grading_criteria=criteria(1))
    verdict = decide(suite, case, [*L1_PASS, *judged([1.0])])
    (item,) = verdict.extra_items
    assert (item.item_id, item.passed, item.evidence) == (
        "L2:extraction",
        False,
        "judge error: no extraction",
    )
    assert verdict.status is Status.FAIL


@pytest.mark.parametrize(
    ("extraction", "evidence"),
    [
        ([1, 2], "the extraction is list, not an object"),
        ({"Venues": [{"name": "a"}]}, "section 'Venues' is not an object of tiers (list)"),
        ({"Venues": {"default": {"name": "a"}}}, "Venues/default is not a list of entries"),
        ({"Venues": {"default": ["a"]}}, "an entry of Venues/default is not an object"),
    ],
)
def test_verdict__malformed_extraction_is_a_parse_error(
    tmp_path: Path, extraction: Any, evidence: str
) -> None:
    suite, case = build(tmp_path, sections=SECTIONS)
    verdict = decide(suite, case, L1_PASS, extraction)
    (item,) = verdict.extra_items
    assert item.passed is False and item.evidence == f"judge error: {evidence}"


@pytest.mark.parametrize(
    ("scores", "passed", "status"),
    [
        ([1.0] * 7 + [0.0] * 3, None, Status.PASS),  # pass rate exactly 0.7
        ([1.0] * 6 + [0.9] + [0.0] * 3, [True] * 6 + [False] * 4, Status.FAIL),  # 0.6 < 0.7
        ([0.6, 0.4, 0.5], [True, True, True], Status.PASS),  # mean 0.5 despite float sums
        ([0.5, 0.4], [True, True], Status.FAIL),  # mean 0.45 < 0.5 with every criterion passed
    ],
)
def test_verdict__l3_thresholds_at_the_edge(
    tmp_path: Path, scores: list[float], passed: list[bool] | None, status: Status
) -> None:
    suite, case = build(tmp_path, grading_criteria=criteria(len(scores)))
    verdict = decide(suite, case, [*L1_PASS, *judged(scores, passed)])
    assert verdict.status is status, verdict.reason
    assert verdict.score == pytest.approx(sum(scores) / len(scores))
    if status is Status.FAIL:
        assert verdict.reason.startswith("L3: pass rate")


def test_verdict__thresholds_come_from_the_spec(tmp_path: Path) -> None:
    thresholds = {"min_pass_rate": 1.0, "min_mean_score": 0.9}
    suite, case = build(tmp_path, grading_criteria=criteria(2), grade_thresholds=thresholds)
    assert decide(suite, case, [*L1_PASS, *judged([1.0, 0.75])]).status is Status.FAIL
    one_failed = judged([0.95, 0.95], [True, False])
    assert decide(suite, case, [*L1_PASS, *one_failed]).status is Status.FAIL
    assert decide(suite, case, [*L1_PASS, *judged([1.0, 0.8])]).status is Status.PASS


def test_verdict__an_unanswered_criterion_fails_with_score_zero(tmp_path: Path) -> None:
    suite, case = build(tmp_path, grading_criteria=criteria(2))
    verdict = decide(suite, case, [*L1_PASS, *judged([1.0])])
    (item,) = verdict.extra_items
    assert (item.item_id, item.passed, item.score) == ("c1", False, 0.0)
    assert item.evidence.startswith("judge error")
    assert (verdict.status, verdict.score) == (Status.FAIL, 0.5)


def test_verdict__without_criteria_the_score_is_the_share_of_checks_passed(
    tmp_path: Path,
) -> None:
    suite, case = build(tmp_path, sections=SECTIONS)
    entries = [{"name": None}]  # count passes, presence fails
    l1 = [ItemResult("has_v", "t", True, ""), ItemResult("urls", "t", None, "skipped")]
    verdict = decide(suite, case, l1, {"Venues": {"default": entries}})
    assert verdict.status is Status.FAIL
    assert verdict.score == pytest.approx(3 / 4)  # has_v, count, count_max pass; name fails
    only_l1 = build(tmp_path / "b")
    assert decide(*only_l1, L1_PASS).score == 1.0


def test_judge_needed__when_the_case_has_judge_items(tmp_path: Path) -> None:
    policy = policy_for(Format.CLAUDITOR)
    suite, with_items = build(tmp_path, grading_criteria=criteria(1))
    failing = [ItemResult("has_v", "t", False, "")]
    assert policy.judge_needed(suite, with_items, failing)  # L1 failures do not close the gate
    suite, without = build(tmp_path / "b")
    assert not policy.judge_needed(suite, without, [])


def test_verdict__trigger_case_passes_with_its_check(tmp_path: Path) -> None:
    triggers = {"should_trigger": ["find things"]}
    suite, _ = build(tmp_path, trigger_tests=triggers)
    trigger = suite.cases[1]
    policy = policy_for(Format.CLAUDITOR)
    hit = policy.verdict(suite, trigger, [ItemResult("trigger", "t", True, "")], JudgeReport())
    miss = policy.verdict(suite, trigger, [ItemResult("trigger", "t", False, "")], JudgeReport())
    assert (hit.status, hit.score) == (Status.PASS, 1.0)
    assert (miss.status, miss.score, miss.reason) == (Status.FAIL, 0.0, "1 of 1 checks failed")
