"""Executing `runs: auto`: the start wave, then waves of extra runs where the verdict is open.

Each wave is an ordinary plan handed to `execution.run_plan` (through `run_wave`), so the
cache, the cost budget, the concurrency limits and the SIGTERM handling are the same as for a
fixed plan. Extra runs are new repetitions of the same case and model, hence new fingerprints:
a base run made in a wave is stored in the cache and comes back free on the next push, and
the head's runs of an unchanged head come back too, so a re-run repeats the same waves at no
cost. Before each wave the clock and the budget are asked; what they cut is said per cell.

The no-skill arm gets waves of its own where its lift is still open: the same planner, on the
lift's frame (`verdict.lift.frame_runs`: head as base, no skill as head, so "the skill helps"
is a drop), extends the no-skill runs and head's to the next target; head's runs serve both.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from evolve_action.model import lanes
from evolve_action.model.outcomes import COMPARED, RunResult, Side
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
LIFT_SIDES = (Side.HEAD, Side.NO_SKILL)  # the lift's frame: base ← head, head ← no skill


@dataclass(frozen=True, slots=True)
class Limits:
    budget: Budget
    deadline: float  # on `clock`'s scale: no wave starts after it
    clock: Callable[[], float]


def _key(spec: RunSpec) -> CellKey:
    return (spec.suite.rel, spec.case.id, lanes.lane(spec.model, spec.agent))


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
        # Base's ruler: its cell is base's case on base and head's case on head.
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

    def runs(self, sides: tuple[Side, Side] = COMPARED) -> dict[CellKey, int]:
        """Runs per side so far: the fewer of the two `sides`."""
        out: dict[CellKey, int] = {}
        for (side, key), count in self.planned.items():
            if side in sides:
                out[key] = min(out.get(key, count), count)
        for key, own in self.aliases.items():  # base's ruler: base's case on base, head's on head
            if all(side in sides for side in own):
                out[key] = min(self.planned[(side, k)] for side, k in own.items())
        return out

    def specs(self, wave: WavePlan, sides: tuple[Side, Side] = COMPARED) -> list[RunSpec]:
        out = []
        for ext in wave.extend:
            for side in sides:
                own = self._own(side, ext.key)
                source = self.sources.get((side, own))
                if source is None:
                    continue
                have = self.planned[(side, own)]
                out += [
                    replace(source, side=side, repetition=rep)
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
            if run.side not in COMPARED:
                continue
            where = (run.side, (run.suite, run.case_id, run.model))
            ran[where] = ran.get(where, 0) + 1
        stops = dict(stops)
        for key, own in self.aliases.items():  # base's ruler's stop is its cases' stop
            if key in stops:
                stops.update(dict.fromkeys(own.values(), stops[key]))
        cells = []
        for key in sorted({k for side, k in self.planned if side in COMPARED}):
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
    # (`pipeline.first_request`), not before the first request.
    from evolve_action.verdict.adaptive_verdict import cells_of
    from evolve_action.verdict.lift import frame_runs

    count = 0
    while True:
        results = lanes.relabel(outcome.results)  # several agents: each (model, agent) a cell
        cells = cells_of(waves.tested(results), design.bounds)
        wave = plan_wave(cells, waves.runs(), design, fixed=waves.fixed)
        lifting = plan_wave(
            cells_of(frame_runs(results), design.bounds),
            waves.runs(LIFT_SIDES),
            design,
            fixed=waves.fixed,
        )
        if outcome.interrupted:
            wave = WavePlan([], {**wave.stops, **{e.key: Stop.STOPPED for e in wave.extend}})
            lifting = WavePlan()
        elif limits.clock() >= limits.deadline:
            wave, lifting = out_of_time(wave), WavePlan()
        elif (budget := limits.budget).limit_usd is not None:
            left = budget.limit_usd - budget.spent_usd
            cost_of = _cost_estimator(results)
            wave = within_budget(wave, cost_of, left)
            left -= math.fsum(cost_of(e.key) * 2 * (e.target - e.runs) for e in wave.extend)
            lifting = within_budget(lifting, cost_of, max(0.0, left))
        if not wave.extend and not lifting.extend:
            return outcome, waves.effort(results, wave.stops, count)
        # Regression first: head's runs it adds serve the lift too (planned once per side).
        specs = waves.specs(wave) + waves.specs(lifting, LIFT_SIDES)
        plan.runs.extend(specs)
        _merge(outcome, await run_wave(Plan(specs, plan.skipped)))
        count += 1
