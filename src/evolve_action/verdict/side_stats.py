"""One case, one model, one side, over its runs: pass rate, scores, time, tokens, cost, and
the case's own across-runs verdict (trigger hit rate, clauditor's stability). `stats` builds
its rows from these."""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from evolve_action.model.evals import Case, CaseKind, Suite
from evolve_action.model.outcomes import RunResult, Status
from evolve_action.model.records import run_cost

TRIGGER_THRESHOLD = 0.5  # evolve and skill-creator: a query should fire in at least half the runs


@dataclass(frozen=True, slots=True)
class Summary:
    """mean, sample stddev (n-1; 0 when n <= 1), min and max; zeros when empty."""

    n: int = 0
    mean: float = 0.0
    stddev: float = 0.0
    min: float = 0.0
    max: float = 0.0


def summarize(values: Sequence[float]) -> Summary:
    if not values:
        return Summary()
    stddev = statistics.stdev(values) if len(values) > 1 else 0.0
    return Summary(len(values), math.fsum(values) / len(values), stddev, min(values), max(values))


def consistency(scores: Summary) -> float | None:
    """skill-evaluator's 1 - stddev/mean, floored at 0; 0 when every run scored 0 (its docs)."""
    if scores.n == 0:
        return None
    if scores.mean <= 0:
        return 0.0
    return max(0.0, 1.0 - scores.stddev / scores.mean)


@dataclass(frozen=True)
class SideStats:
    """One case, one model, one side, over its runs."""

    runs: int
    passed: int
    failed: int
    errored: int
    pass_rate: float | None  # None when no run was graded
    scores: Summary
    consistency: float | None
    dimensions: Mapping[str, Summary]  # rubric item id → raw scores on the item's own scale
    verdict: bool | None  # the case's own across-runs verdict on this side
    hit_rate: float | None = None  # trigger cases only
    stability: float | None = None  # clauditor variance: share of graded runs that passed
    time_s: Summary = field(default_factory=Summary)
    tokens: Summary = field(default_factory=Summary)
    cost_usd: float | None = None

    @property
    def graded(self) -> int:
        return self.passed + self.failed


def side_stats(runs: Sequence[RunResult], case: Case | None, suite: Suite | None) -> SideStats:
    graded = [r for r in runs if r.status is not Status.ERROR]
    passed = sum(r.status is Status.PASS for r in graded)
    failed = len(graded) - passed
    rate = passed / len(graded) if graded else None
    scores = summarize([r.score for r in graded])
    raw: dict[str, list[float]] = {}
    for run in graded:
        for item in run.items:
            if item.raw_score is not None:
                raw.setdefault(item.item_id, []).append(item.raw_score)
    verdict = None if rate is None else rate >= TRIGGER_THRESHOLD
    hit_rate = stability = None
    if case is not None and case.kind is CaseKind.TRIGGER and rate is not None:
        should = case.should_trigger is not False
        hit_rate = rate if should else 1.0 - rate
        verdict = hit_rate >= TRIGGER_THRESHOLD if should else hit_rate < TRIGGER_THRESHOLD
    min_stability = suite.policy.min_stability if suite is not None else None
    task = case is None or case.kind is CaseKind.TASK
    if task and min_stability is not None and rate is not None:
        stability = rate
        verdict = stability >= float(min_stability)
    costs = [c for r in runs if (c := run_cost(r)) is not None]
    return SideStats(
        runs=len(runs),
        passed=passed,
        failed=failed,
        errored=len(runs) - len(graded),
        pass_rate=rate,
        scores=scores,
        consistency=consistency(scores),
        dimensions={k: summarize(v) for k, v in sorted(raw.items())},
        verdict=verdict,
        hit_rate=hit_rate,
        stability=stability,
        time_s=summarize([r.transcript.duration_s for r in runs]),
        tokens=summarize([float(r.transcript.usage.total_tokens) for r in runs]),
        cost_usd=math.fsum(costs) if costs else None,
    )
