"""`max-cost-usd` before the start: a plan projected over the budget is cut before any call.

The order is fixed, so a user can predict it:
1. fewer runs per case: the highest repetition goes first, one repetition at a time across
   all cases (unchanged cases before changed ones, later eval files before earlier ones);
2. then whole cases: unchanged ones first, then changed ones, from the end of the plan.
A unit of cutting is one repetition of one case on one model on *every* side the plan
holds, so a base/head pair (or a third arm) is never half cut. A unit the cache answers on
every side is free and never cut. What was cut is said in words for the comment; the job
never concludes success over runs it did not make (`Shortfall`). The same cut serves the
rest of a plan after its first wave; while the runs go, `pipeline.ceiling` starts no pair
that does not fit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from dataclasses import dataclass

from evolve_action.plan.planning import Plan, RunSpec

Unit = tuple[str, str, str, int]  # (eval file, case id, model, repetition) on every side
CaseModel = tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class Cut:
    kept: tuple[RunSpec, ...]
    dropped: tuple[RunSpec, ...]
    projected_usd: float  # the whole plan's projection
    kept_usd: float  # what is left of it
    limit_usd: float
    lowered: tuple[tuple[CaseModel, int, int], ...]  # (case, runs planned, runs kept), kept ≥ 1
    removed: tuple[CaseModel, ...]  # cases left with no run at all

    @property
    def any(self) -> bool:
        return bool(self.dropped)


def _unit(spec: RunSpec) -> Unit:
    return (spec.suite.rel, spec.case.id, spec.model, spec.repetition)


def cut_to_budget(
    plan: Plan,
    cost_of: Callable[[RunSpec], float],
    limit_usd: float,
    *,
    changed: Collection[CaseModel],
) -> Cut:
    """The plan cut until its projection fits `limit_usd` (or nothing costly is left)."""
    units: dict[Unit, list[RunSpec]] = {}
    for spec in plan.runs:
        units.setdefault(_unit(spec), []).append(spec)
    cost = {u: math.fsum(cost_of(s) for s in specs) for u, specs in units.items()}
    order = list(units)  # plan order
    total = math.fsum(cost.values())
    projected = total
    gone: set[Unit] = set()

    def drop(unit: Unit) -> None:
        nonlocal total
        gone.add(unit)
        total -= cost[unit]

    def unchanged_first(candidates: list[Unit]) -> list[Unit]:
        later_first = list(reversed(candidates))
        return sorted(later_first, key=lambda u: (u[0], u[1], u[2]) in changed)

    # 1. Fewer runs per case: the top repetition of every case, level by level.
    top = max((u[3] for u in order), default=0)
    for level in range(top, 1, -1):
        for unit in unchanged_first([u for u in order if u[3] == level and cost[u] > 0]):
            if total <= limit_usd:
                break
            drop(unit)
    # 2. Then whole cases.
    cases = list(dict.fromkeys((u[0], u[1], u[2]) for u in order))
    for case in unchanged_first([(*c, 0) for c in cases]):
        if total <= limit_usd:
            break
        for unit in order:
            if (unit[0], unit[1], unit[2]) == case[:3] and unit not in gone and cost[unit] > 0:
                drop(unit)
    kept = tuple(s for s in plan.runs if _unit(s) not in gone)
    dropped = tuple(s for s in plan.runs if _unit(s) in gone)
    return Cut(
        kept,
        dropped,
        projected,
        max(0.0, total),
        limit_usd,
        *_changes(order, gone),
    )


def _changes(
    order: list[Unit], gone: set[Unit]
) -> tuple[tuple[tuple[CaseModel, int, int], ...], tuple[CaseModel, ...]]:
    planned: dict[CaseModel, int] = {}
    left: dict[CaseModel, int] = {}
    for unit in order:
        case = (unit[0], unit[1], unit[2])
        planned[case] = planned.get(case, 0) + 1
        left[case] = left.get(case, 0) + (unit not in gone)
    lowered = tuple((c, planned[c], left[c]) for c in planned if 0 < left[c] < planned[c])
    removed = tuple(c for c in planned if left[c] == 0)
    return lowered, removed
