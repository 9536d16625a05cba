"""`runs: auto`: which cells get another wave of runs, and why the others stopped.

Every cell (a case on one model) starts with `start` runs per side. After each wave the
planner reads the evidence (`sequential.decide`) and extends only the cells whose verdict is
still open: a drop that could still become significant by `max_runs`, judged by projecting
the evidence a cell gains per run at its observed rates (a smoothed plug-in, generous by
`slack` nats so a real drop that started unlucky is not dropped). Everything else stops, with
a reason the comment can give: stable (every run agreed on both sides), decided (already
flagged), no drop in sight, the cap, the cost budget, the clock.

The planner is a pure function of the counts; the budget and the clock enter as numbers.
Which cells get runs never affects the false-alarm guarantee (the e-values hold under any
stopping rule), only how fast real drops are found and what they cost.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from evolve_action.plan.planning import START_RUNS
from evolve_action.settings.inputs import default_of
from evolve_action.verdict.sequential import (
    CellKey,
    Kind,
    Tally,
    Verdict,
    boundaries,
    cell_evidence,
    decide,
)

DEFAULT_START = START_RUNS
DEFAULT_MAX_RUNS: int = default_of("max-runs")  # the `max-runs` input's
DEFAULT_ALPHA: float = default_of("alpha")  # the `alpha` input's
SLACK = 5.0  # nats of optimism in the projection: a drop ~150× short of the bar still runs
MIN_GAIN = 1.0  # nats: below this, the remaining runs cannot change the picture
_SMOOTH = 1.0  # Laplace: projected rates lean to 1/2, so two lucky runs do not promise much


class Stop(StrEnum):
    """Why a cell got no more runs (the comment says it per case)."""

    STABLE = "stable"  # every start run agreed on both sides: nothing more to learn
    DECIDED = "decided"  # its case is already flagged
    SETTLED = "no drop in sight"  # head is not below base, or could not become significant
    CAP = "max-runs"
    BUDGET = "budget"
    TIME = "max-minutes"
    ONE_SIDE = "one side only"  # new or removed case: nothing to compare
    FIXED = "fixed runs"  # the eval file asks for a fixed number of runs
    STOPPED = "job stopped"  # SIGTERM: the runs in flight were the last


@dataclass(frozen=True, slots=True)
class Design:
    start: int = DEFAULT_START
    max_runs: int = DEFAULT_MAX_RUNS
    alpha: float = DEFAULT_ALPHA
    slack: float = SLACK
    suite_lead: float = 1.0  # log e a suite must already show before its small drops get runs

    @property
    def bounds(self) -> tuple[int, ...]:
        return boundaries(self.start, max(self.start, self.max_runs))

    def next_target(self, runs: int) -> int | None:
        """Runs per side after the next wave, or None at the cap."""
        for bound in self.bounds:
            if bound > runs:
                return bound
        return None


@dataclass(frozen=True, slots=True)
class Extension:
    key: CellKey
    runs: int  # runs per side now
    target: int  # runs per side after the wave
    urgency: float  # estimated runs per side still needed to decide: smaller first


@dataclass
class WavePlan:
    extend: list[Extension] = field(default_factory=list)
    stops: dict[CellKey, Stop] = field(default_factory=dict)


def _growth(base: float, head: float) -> float:
    """Expected log e-value gained per run pair at these rates (KL to the mean-rate null)."""
    mean = (base + head) / 2

    def kl(p: float) -> float:
        out = 0.0
        if p > 0:
            out += p * math.log(p / mean)
        if p < 1:
            out += (1 - p) * math.log((1 - p) / (1 - mean))
        return out

    return kl(base) + kl(head) if head < base else 0.0


def _rates(blocks: Sequence[Tally]) -> tuple[float, float]:
    passed_b = sum(t.base_passed for t in blocks)
    graded_b = sum(t.base_graded for t in blocks)
    passed_h = sum(t.head_passed for t in blocks)
    graded_h = sum(t.head_graded for t in blocks)
    return (
        (passed_b + _SMOOTH) / (graded_b + 2 * _SMOOTH),
        (passed_h + _SMOOTH) / (graded_h + 2 * _SMOOTH),
    )


@dataclass(frozen=True, slots=True)
class _Projection:
    log_e: float  # now
    growth: float  # per run pair from here
    remaining: int  # runs per side left before the cap

    @property
    def reachable(self) -> float:
        return self.log_e + self.growth * self.remaining


def _gain(projections: Iterable[_Projection]) -> float:
    return math.fsum(p.growth * p.remaining for p in projections)


def plan_wave(
    cells: Mapping[CellKey, Sequence[Tally]],
    runs: Mapping[CellKey, int],
    design: Design,
    *,
    fixed: frozenset[CellKey] = frozenset(),
    verdict: Verdict | None = None,
) -> WavePlan:
    """The next wave: which cells to extend and to how many runs; why the others stop.

    `runs`: runs per side each cell has had so far (planned, errors included).
    """
    verdict = verdict or decide(cells, design.alpha)
    plan = WavePlan()
    projections = _triage(cells, runs, design, fixed, verdict, plan)
    by_case: dict[tuple[str, str], list[CellKey]] = {}
    for key in projections:
        by_case.setdefault(key[:2], []).append(key)
    open_suites = _open_suites(projections, design, verdict)
    for keys in by_case.values():
        _plan_case(keys, projections, runs, design, verdict, open_suites, plan)
    plan.extend.sort(key=lambda e: (e.urgency, e.key))
    return plan


def _triage(
    cells: Mapping[CellKey, Sequence[Tally]],
    runs: Mapping[CellKey, int],
    design: Design,
    fixed: frozenset[CellKey],
    verdict: Verdict,
    plan: WavePlan,
) -> dict[CellKey, _Projection]:
    """Stops the cells that cannot or need not run more (`plan.stops`); projects the rest."""
    decided_cases = {
        (h.suite, h.case) for h in verdict.drops if h.case and h.log_e >= verdict.case_bar
    }
    projections: dict[CellKey, _Projection] = {}
    for key, blocks in cells.items():
        if key in fixed:
            plan.stops[key] = Stop.FIXED
        elif not blocks or not any(t.paired for t in blocks):
            plan.stops[key] = Stop.ONE_SIDE
        elif not blocks[0].informative:
            plan.stops[key] = Stop.STABLE
        elif key[:2] in decided_cases:
            plan.stops[key] = Stop.DECIDED
        else:
            base, head = _rates(blocks)
            remaining = max(0, design.max_runs - runs.get(key, 0))
            projections[key] = _Projection(cell_evidence(blocks), _growth(base, head), remaining)
    return projections


def _open_suites(
    projections: Mapping[CellKey, _Projection], design: Design, verdict: Verdict
) -> set[str]:
    """Suites whose own evidence leads and could still reach the suite bar."""
    decided = {
        h.suite for h in verdict.drops if h.kind is Kind.SUITE and h.log_e >= verdict.suite_bar
    }
    suite_log_e = {h.suite: h.log_e for h in verdict.drops if h.kind is Kind.SUITE}
    by_suite: dict[str, list[CellKey]] = {}
    for key in projections:
        by_suite.setdefault(key[0], []).append(key)
    return {
        suite
        for suite, keys in by_suite.items()
        if suite not in decided
        and (now := suite_log_e.get(suite, 0.0)) >= design.suite_lead
        and now + _gain(projections[k] for k in keys) >= verdict.suite_bar - design.slack
    }


def _plan_case(
    keys: Sequence[CellKey],
    projections: Mapping[CellKey, _Projection],
    runs: Mapping[CellKey, int],
    design: Design,
    verdict: Verdict,
    open_suites: set[str],
    plan: WavePlan,
) -> None:
    """Extends or stops the open cells of one case."""
    now = math.fsum(projections[k].log_e for k in keys)
    reachable = [projections[k].reachable for k in keys]
    best = max(math.fsum(reachable), *reachable)
    # Open while the bar is in reach, and more runs can still move the evidence by a
    # factor e or more (or carry it over the bar): else a small drop is let go.
    gain = _gain(projections[k] for k in keys)
    case_open = best >= verdict.case_bar - design.slack and (
        gain >= MIN_GAIN or best >= verdict.case_bar
    )
    for key in keys:
        p = projections[key]
        target = design.next_target(runs.get(key, 0))
        if (target is None or p.remaining <= 0) and p.growth > 0:
            plan.stops[key] = Stop.CAP  # a drop still short of the bar at the cap
        elif not (case_open or (key[0] in open_suites and p.growth > 0)) or target is None:
            plan.stops[key] = Stop.SETTLED
        else:
            # Most informative first: the fewest runs per side still needed to decide.
            urgency = max(0.0, verdict.case_bar - max(p.log_e, now)) / max(p.growth, 1e-3)
            plan.extend.append(Extension(key, runs.get(key, 0), target, urgency))


@dataclass(frozen=True, slots=True)
class CellEffort:
    key: CellKey
    base_runs: int  # runs started on base (cached ones included)
    head_runs: int
    stop: Stop


@dataclass(frozen=True, slots=True)
class Effort:
    """What `runs: auto` spent where, and why it stopped (the comment's effort lines)."""

    design: Design
    cells: tuple[CellEffort, ...]
    waves: int  # waves of extra runs after the start

    @property
    def extended(self) -> tuple[CellEffort, ...]:
        return tuple(c for c in self.cells if max(c.base_runs, c.head_runs) > self.design.start)

    @property
    def most(self) -> int:
        """The most runs per side any cell got: what a fixed design would give every cell."""
        return max((max(c.base_runs, c.head_runs) for c in self.cells), default=0)


def within_budget(
    plan: WavePlan, cost_of: Callable[[CellKey], float], remaining_usd: float | None
) -> WavePlan:
    """Keep the most urgent extensions whose estimated cost (both sides) fits what is left."""
    if remaining_usd is None:
        return plan
    kept: list[Extension] = []
    stops = dict(plan.stops)
    left = remaining_usd
    for ext in plan.extend:
        cost = cost_of(ext.key) * 2 * (ext.target - ext.runs)
        if left > 0 and cost <= left:
            kept.append(ext)
            left -= cost
        else:
            stops[ext.key] = Stop.BUDGET
    return WavePlan(kept, stops)


def out_of_time(plan: WavePlan) -> WavePlan:
    """The clock ran out: every open cell stops where it is."""
    stops = dict(plan.stops)
    for ext in plan.extend:
        stops[ext.key] = Stop.TIME
    return WavePlan([], stops)
