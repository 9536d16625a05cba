"""Executing `runs: auto`: the start wave, then waves of extra runs where the verdict is open.

Each wave is an ordinary plan handed to `execution.execute_plan` (through `run_wave`), so the
cache, the cost budget, the concurrency limits and the SIGTERM handling are the same as for a
fixed plan. Extra runs are new repetitions of the same case and model, hence new fingerprints:
a base run made in a wave is stored in the cache and comes back free on the next push, and
the head's runs of an unchanged head come back too, so a re-run repeats the same waves at no
cost. Before each wave the clock and the budget are asked; what they cut is said per cell.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from evolve_action.model.outcomes import RunResult, Side
from evolve_action.model.records import run_cost
from evolve_action.pipeline.execution import Budget, Outcome
from evolve_action.plan.planning import Plan, RunSpec
from evolve_action.plan.ruler import CaseDiff
from evolve_action.verdict import ruler_cells
from evolve_action.verdict.adaptive import (
    CellEffort,
    Design,
    Effort,
    Stop,
    WavePlan,
    out_of_time,
    plan_wave,
    within_budget,
)
from evolve_action.verdict.sequential import CellKey

RunWave = Callable[[Plan], Awaitable[Outcome]]


@dataclass(frozen=True, slots=True)
class Limits:
    budget: Budget
    deadline: float  # on `clock`'s scale: no wave starts after it
    clock: Callable[[], float]


def _key(spec: RunSpec) -> CellKey:
    return (spec.suite.rel, spec.case.id, spec.model)


def _cost_estimator(results: Iterable[RunResult]) -> Callable[[CellKey], float]:
    """Mean cost of a fresh run, per cell where known, else over the job (0 when unknown)."""
    per_cell: dict[CellKey, list[float]] = {}
    every: list[float] = []
    for run in results:
        cost = run_cost(run)
        if run.cached or cost is None or not math.isfinite(cost):
            continue
        per_cell.setdefault((run.suite, run.case_id, run.model), []).append(cost)
        every.append(cost)
    overall = math.fsum(every) / len(every) if every else 0.0

    def cost_of(key: CellKey) -> float:
        known = per_cell.get(key)
        return math.fsum(known) / len(known) if known else overall

    return cost_of


class Waves:
    """The runs of one job under `auto`: what was planned per (side, cell), and the results."""

    def __init__(self, plan: Plan, design: Design, diffs: Sequence[CaseDiff] = ()) -> None:
        self.design = design
        self.plan = plan
        self.diffs = tuple(diffs)
        self.sources: dict[tuple[Side, CellKey], RunSpec] = {}
        self.planned: dict[tuple[Side, CellKey], int] = {}
        for spec in plan.runs:
            where = (spec.side, _key(spec))
            self.sources[where] = spec  # its suite, case and ruler
            self.planned[where] = max(self.planned.get(where, 0), spec.repetition)
        self.fixed = frozenset(key for _, key in self.planned if key[0] not in plan.adaptive)
        # Base's ruler (issue 26): its cell is base's case on base and head's case on head.
        self.aliases: dict[CellKey, dict[Side, CellKey]] = {}
        for d in self.diffs:
            if not (d.compared and d.gating):
                continue
            for side, own in self.planned:
                if side is not Side.BASE or own[:2] != (d.suite, d.base_case):
                    continue
                head = (d.suite, d.head_case, own[2])
                if (Side.HEAD, head) in self.planned:
                    key = (d.suite, ruler_cells.ruler_id(d), own[2])
                    self.aliases[key] = {Side.BASE: own, Side.HEAD: head}
        self.fixed |= {k for k, a in self.aliases.items() if a[Side.BASE] in self.fixed}

    def tested(self, results: Sequence[RunResult]) -> list[RunResult]:
        """The runs as the verdict tests them: base's ruler in place of the comparisons it
        replaces (`verdict.ruler`), so waves go where the verdict is open."""
        apart = ruler_cells.not_compared(self.diffs)
        kept = [r for r in results if (r.suite, r.case_id) not in apart]
        return kept + ruler_cells.ruler_runs(results, self.diffs)

    def _own(self, side: Side, key: CellKey) -> CellKey:
        return self.aliases.get(key, {}).get(side, key)

    def runs(self) -> dict[CellKey, int]:
        """Runs per side so far: the fewer of the two sides."""
        out: dict[CellKey, int] = {}
        for (_, key), count in self.planned.items():
            out[key] = min(out.get(key, count), count)
        for key, own in self.aliases.items():
            out[key] = min(self.planned[(side, k)] for side, k in own.items())
        return out

    def specs(self, wave: WavePlan) -> list[RunSpec]:
        out = []
        for ext in wave.extend:
            for side in (Side.BASE, Side.HEAD):
                own = self._own(side, ext.key)
                source = self.sources.get((side, own))
                if source is None:
                    continue
                have = self.planned[(side, own)]
                out += [
                    replace(source, model=ext.key[2], side=side, repetition=rep)
                    for rep in range(have + 1, ext.target + 1)
                ]
                self.planned[(side, own)] = max(have, ext.target)
        return out

    def effort(
        self, results: Iterable[RunResult], stops: dict[CellKey, Stop], waves: int
    ) -> Effort:
        """Runs that happened per side and cell (cached and errored ones included)."""
        ran: dict[tuple[Side, CellKey], int] = {}
        for run in results:
            where = (run.side, (run.suite, run.case_id, run.model))
            ran[where] = ran.get(where, 0) + 1
        stops = dict(stops)
        for key, own in self.aliases.items():  # base's ruler's stop is its cases' stop
            if key in stops:
                stops.update(dict.fromkeys(own.values(), stops[key]))
        cells = []
        for key in sorted({k for _, k in self.planned}):
            base, head = ran.get((Side.BASE, key), 0), ran.get((Side.HEAD, key), 0)
            cells.append(CellEffort(key, base, head, stops.get(key, Stop.SETTLED)))
        return Effort(self.design, tuple(cells), waves)


def _merge(into: Outcome, more: Outcome) -> None:
    into.results.extend(more.results)
    into.not_run.extend(more.not_run)
    into.cached += more.cached
    into.interrupted = into.interrupted or more.interrupted


async def run_waves(
    plan: Plan,
    run_wave: RunWave,
    design: Design,
    limits: Limits,
    diffs: Sequence[CaseDiff] = (),
) -> tuple[Outcome, Effort]:
    """The start plan, then waves until every cell is settled, capped, or cut off. `diffs`:
    the cases whose checks the PR changed, tested under base's checks (`verdict.ruler`)."""
    waves = Waves(plan, design, diffs)
    outcome = await run_wave(plan)
    # Only now: the verdict's cell model loads while the first answers are awaited
    # (`pipeline.job.AFTER_FIRST_REQUEST`), not before the first request.
    from evolve_action.verdict.adaptive_verdict import cells_of

    count = 0
    while True:
        cells = cells_of(waves.tested(outcome.results), design.bounds)
        wave = plan_wave(cells, waves.runs(), design, fixed=waves.fixed)
        if outcome.interrupted:
            wave = WavePlan([], {**wave.stops, **{e.key: Stop.STOPPED for e in wave.extend}})
        elif limits.clock() >= limits.deadline:
            wave = out_of_time(wave)
        elif (budget := limits.budget).limit_usd is not None:
            left = budget.limit_usd - budget.spent_usd
            wave = within_budget(wave, _cost_estimator(outcome.results), left)
        if not wave.extend:
            return outcome, waves.effort(outcome.results, wave.stops, count)
        specs = waves.specs(wave)
        plan.runs.extend(specs)
        _merge(outcome, await run_wave(Plan(specs, plan.skipped)))
        count += 1
