"""Aggregation: rates without errors, sample stddev, consistency, triggers, deltas, labels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evolve_action.model.evals import Case, CaseKind, Format, Origin, Skill, Suite, SuitePolicy
from evolve_action.model.outcomes import (
    COMPARED,
    ItemResult,
    RunResult,
    Side,
    Status,
    Transcript,
    Usage,
)
from evolve_action.verdict.significance import Label
from evolve_action.verdict.stats import aggregate, consistency, side_stats, summarize

ORIGIN = Origin("evals/s/evals.json", 1)
M1, M2 = "anthropic/claude-sonnet-4-6", "openai/gpt-5.4"


def run(
    case_id: str,
    side: Side,
    status: Status,
    rep: int = 1,
    *,
    score: float | None = None,
    model: str = M1,
    suite: str = "evals/s/evals.json",
    **kw: Any,
) -> RunResult:
    if score is None:
        score = 1.0 if status is Status.PASS else 0.0
    return RunResult(suite, case_id, model, side, rep, status, score, **kw)


def runs(
    case_id: str, side: Side, passed: int, failed: int, errored: int = 0, **kw: Any
) -> list[RunResult]:
    statuses = [Status.PASS] * passed + [Status.FAIL] * failed + [Status.ERROR] * errored
    return [run(case_id, side, s, i + 1, **kw) for i, s in enumerate(statuses)]


def test_summary_uses_sample_stddev() -> None:
    s = summarize([0.5, 0.75, 1.0])
    assert (s.n, s.mean, s.min, s.max) == (3, 0.75, 0.5, 1.0)
    assert s.stddev == pytest.approx(0.25)  # n-1: sqrt((0.0625*2)/2)
    assert summarize([0.4]).stddev == 0.0
    assert summarize([]) == summarize([]) and summarize([]).mean == 0.0


def test_consistency_is_guarded() -> None:
    assert consistency(summarize([0.5, 0.75, 1.0])) == pytest.approx(1 - 0.25 / 0.75)
    assert consistency(summarize([0.0, 0.0])) == 0.0
    assert consistency(summarize([])) is None
    assert consistency(summarize([0.0, 1.0])) == pytest.approx(0.0)  # 1 - 0.707/0.5 floored


def test_errors_are_counted_not_folded_into_the_rate() -> None:
    usage = Usage(input_tokens=100, output_tokens=20, cost_usd=0.01)
    rs = runs("c", Side.HEAD, 2, 1, 2, transcript=Transcript(usage=usage, duration_s=3.0))
    stats = side_stats(rs, None, None)
    assert (stats.runs, stats.passed, stats.failed, stats.errored) == (5, 2, 1, 2)
    assert stats.pass_rate == pytest.approx(2 / 3)
    assert stats.scores.n == 3 and stats.scores.mean == pytest.approx(2 / 3)
    assert stats.tokens.mean == 120 and stats.time_s.mean == 3.0
    assert stats.cost_usd == pytest.approx(0.05)
    assert side_stats(runs("c", Side.HEAD, 0, 0, 2), None, None).pass_rate is None


def test_rubric_dimensions_from_raw_scores() -> None:
    def scored(raw: float, rep: int) -> RunResult:
        item = ItemResult("correctness", "Correct?", raw >= 3, score=(raw - 1) / 4, raw_score=raw)
        return run("c", Side.HEAD, Status.PASS, rep, items=[item])

    stats = side_stats([scored(3, 1), scored(5, 2), scored(4, 3)], None, None)
    dim = stats.dimensions["correctness"]
    assert (dim.mean, dim.stddev, dim.min, dim.max) == (4.0, 1.0, 3.0, 5.0)


@pytest.mark.parametrize(
    ("should", "passed", "failed", "verdict", "hit_rate"),
    [
        (True, 1, 1, True, 0.5),  # hit rate 0.5 is enough
        (True, 1, 2, False, 1 / 3),
        (False, 1, 1, False, 0.5),  # fired in half the runs: too often
        (False, 2, 1, True, 1 / 3),
    ],
)
def test_trigger_case_verdict(
    should: bool, passed: int, failed: int, verdict: bool, hit_rate: float
) -> None:
    case = Case("q", "query", ORIGIN, kind=CaseKind.TRIGGER, should_trigger=should)
    stats = side_stats(runs("q", Side.HEAD, passed, failed), case, None)
    assert stats.verdict is verdict and stats.hit_rate == pytest.approx(hit_rate)


def test_clauditor_stability() -> None:
    case = Case("skill", "go", ORIGIN)
    suite = Suite(
        Format.CLAUDITOR,
        Path("/r/s.eval.json"),
        "s.eval.json",
        Skill("s", None),
        (case,),
        policy=SuitePolicy(min_stability=0.8),
    )
    stable = side_stats(runs("skill", Side.HEAD, 4, 1), case, suite)
    assert stable.stability == 0.8 and stable.verdict is True
    shaky = side_stats(runs("skill", Side.HEAD, 3, 1, 1), case, suite)
    assert shaky.stability == 0.75 and shaky.verdict is False


def _suite(*case_ids: str, rel: str = "evals/s/evals.json") -> Suite:
    cases = tuple(Case(c, "p", ORIGIN, name=c.upper()) for c in case_ids)
    return Suite(Format.EVOLVE, Path("/r") / rel, rel, Skill("s", None), cases)


def test_case_labels_deltas_and_order() -> None:
    all_runs = [
        *runs("b-regress", Side.BASE, 4, 0),
        *runs("b-regress", Side.HEAD, 0, 4),
        *runs("a-improve", Side.BASE, 0, 4),
        *runs("a-improve", Side.HEAD, 4, 0),
        *runs("noise", Side.BASE, 3, 1),
        *runs("noise", Side.HEAD, 2, 2),
        *runs("fresh", Side.HEAD, 2, 0),
        *runs("gone", Side.BASE, 1, 1),
        *runs("broken", Side.BASE, 2, 0),
        *runs("broken", Side.HEAD, 0, 0, 2),
    ]
    agg = aggregate(
        all_runs, [_suite("b-regress", "a-improve", "noise", "fresh", "gone", "broken")]
    )
    by_id = {c.case_id: c for c in agg.cases}
    # The suite's authored order, not alphabetical.
    assert [c.case_id for c in agg.cases] == [
        "b-regress",
        "a-improve",
        "noise",
        "fresh",
        "gone",
        "broken",
    ]
    assert by_id["b-regress"].label is Label.REGRESSED and by_id["b-regress"].delta == -1.0
    assert by_id["b-regress"].test is not None and by_id["b-regress"].test.p_value == pytest.approx(
        2 / 70
    )
    assert by_id["b-regress"].name == "B-REGRESS"
    assert by_id["a-improve"].label is Label.IMPROVED
    assert by_id["noise"].label is Label.UNCHANGED and by_id["noise"].delta == pytest.approx(-0.25)
    assert by_id["fresh"].label is Label.NEW and by_id["fresh"].delta is None
    assert by_id["gone"].label is Label.REMOVED
    assert by_id["broken"].label is Label.ERROR and by_id["broken"].head is not None
    assert by_id["broken"].head.errored == 2


def test_group_rates_are_means_over_cases() -> None:
    all_runs = [
        *runs("a", Side.BASE, 1, 0),
        *runs("a", Side.HEAD, 1, 0),
        *runs("b", Side.BASE, 1, 3),
        *runs("b", Side.HEAD, 3, 1),
        *runs("c", Side.HEAD, 0, 2),
    ]
    agg = aggregate(all_runs, [_suite("a", "b", "c")])
    [suite] = agg.suites
    assert suite.base_rate == pytest.approx((1 + 0.25) / 2)
    assert suite.head_rate == pytest.approx((1 + 0.75 + 0) / 3)
    assert suite.delta == pytest.approx(suite.head_rate - suite.base_rate)
    assert suite.paired_delta == pytest.approx((0 + 0.5) / 2)
    assert suite.labels == {"no significant change": 2, "new": 1}
    assert suite.runs["head"] == {"passed": 4, "failed": 3, "errored": 0}


def test_group_pools_cases_none_significant_alone() -> None:
    # Each case: 5/5 on base, 2/5 on head — Fisher p = 0.17 alone; pooled over five, clear.
    all_runs: list[RunResult] = []
    for case_id in "abcde":
        all_runs += runs(case_id, Side.BASE, 5, 0) + runs(case_id, Side.HEAD, 2, 3)
    agg = aggregate(all_runs, [_suite(*"abcde")])
    assert all(c.label is Label.UNCHANGED for c in agg.cases)
    [suite] = agg.suites
    assert suite.label is Label.REGRESSED and suite.test is not None
    assert suite.test.p_directional < 0.001 and suite.test.strata == 5


def test_models_and_overall() -> None:
    all_runs = [
        *runs("a", Side.BASE, 2, 0, model=M1),
        *runs("a", Side.HEAD, 2, 0, model=M1),
        *runs("a", Side.BASE, 0, 2, model=M2),
        *runs("a", Side.HEAD, 2, 0, model=M2),
        *runs("x", Side.HEAD, 1, 1, model=M2, suite="evals/t/evals.json"),
    ]
    agg = aggregate(all_runs, [_suite("a"), _suite("x", rel="evals/t/evals.json")])
    assert [(g.suite, g.model) for g in agg.suites] == [
        ("evals/s/evals.json", M1),
        ("evals/s/evals.json", M2),
        ("evals/t/evals.json", M2),
    ]
    assert [m.model for m in agg.models] == [M1, M2]
    m2 = agg.models[1]
    assert (
        m2.base_rate == 0.0
        and m2.head_rate == pytest.approx(0.75)
        and m2.delta == pytest.approx(0.75)
    )
    assert agg.overall.base_rate == pytest.approx(0.5) and agg.overall.head_rate == pytest.approx(
        2.5 / 3
    )
    assert agg.overall.suite is None and agg.overall.model is None


def test_group_of_only_new_cases_is_new() -> None:
    agg = aggregate(runs("a", Side.HEAD, 1, 0), [_suite("a")])
    assert agg.overall.label is Label.NEW and agg.overall.test is None and agg.overall.delta is None


def test_unknown_cases_still_aggregate() -> None:
    agg = aggregate(runs("zz", Side.HEAD, 1, 1))
    assert agg.cases[0].name == "zz" and agg.cases[0].head is not None
    assert agg.cases[0].head.verdict is True


def test_a_removed_case_is_described_from_the_base_suite() -> None:
    head = _suite("a")
    base = Suite(
        Format.EVOLVE,
        Path("/r/evals/s/evals.json"),
        "evals/s/evals.json",
        Skill("s", None),
        (
            Case("a", "p", ORIGIN),
            Case("q", "fire?", ORIGIN, name="Q", kind=CaseKind.TRIGGER, should_trigger=False),
        ),
    )
    all_runs = runs("a", Side.HEAD, 1, 0) + runs("a", Side.BASE, 1, 0) + runs("q", Side.BASE, 1, 1)
    agg = aggregate(all_runs, [head, base])
    removed = agg.cases[1]
    assert (removed.case_id, removed.name, removed.label) == ("q", "Q", Label.REMOVED)
    assert (
        removed.base is not None and removed.base.hit_rate == 0.5 and removed.base.verdict is False
    )


def test_a_side_planned_and_never_run_is_not_run_not_new_or_removed() -> None:
    """A job stopped (or cut by the budget) before one side's runs: the case did not change,
    its runs there were never made."""
    rel = "evals/s/evals.json"
    made = runs("a", Side.HEAD, 2, 0) + runs("b", Side.BASE, 1, 1) + runs("c", Side.HEAD, 1, 0)
    planned = [(rel, case, M1, side) for case in ("a", "b") for side in COMPARED]
    planned.append((rel, "c", M1, Side.HEAD))  # `c` exists on head only: new indeed
    labels = {c.case_id: c.label for c in aggregate(made, planned=planned).cases}
    assert labels == {"a": Label.NOT_RUN, "b": Label.NOT_RUN, "c": Label.NEW}
    assert {c.case_id: c.label for c in aggregate(made).cases}["a"] is Label.NEW  # no plan given
