"""`max-cost-usd` as a ceiling while the runs go: no pair starts unless it fits.

A unit is one repetition of one case on one model, on every side and arm the plan holds (a
base/head pair, plus the no-skill run when there is one). A unit is admitted or refused as a
whole, when its first run is about to start; once admitted, all its runs are made, so the
verdict never gets half of a pair. It is admitted when its pessimistic cost fits in what is
left: the limit, less what was spent, less what every admitted run not yet ended may cost.
Each run's pessimistic cost is, in this order, the most expensive run seen so far of its
case and model (in this job, else in the cache's records), else of its model, else the
high end of the range the projection gave it (`plan.projection`).

Before any run of a model has ended, that high end is all there is, so a budgeted job sends
one unit of that model first (the probe) and the model's other units wait for it: they are
then admitted at what was measured, which is usually far below the high end.

Hence the bound (docs/usage.md, "The budget is a ceiling"): the job spends at most
`max-cost-usd` plus what admitted runs cost beyond their estimates (`overrun_usd`, measured
and kept for the report).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from evolve_action.model.outcomes import RunResult
from evolve_action.model.records import run_cost
from evolve_action.pipeline.pricing import Prices
from evolve_action.plan.budget_cut import CaseModel, Cut, Unit
from evolve_action.plan.planning import RunSpec

Prior = Callable[[RunSpec], float]  # a run never seen → its prior figure in USD (0: unknown)


def unit_of(spec: RunSpec) -> Unit:
    return (spec.suite.rel, spec.case.id, spec.model, spec.repetition)


def _case(spec: RunSpec) -> CaseModel:
    return (spec.suite.rel, spec.case.id, spec.model)


@dataclass
class Budget:
    """The job's spend against `limit_usd`, and the ceiling's state (None: no limit)."""

    limit_usd: float | None = None
    spent_usd: float = 0.0
    prices: Prices = field(default_factory=lambda: Prices({}))  # the repository's overrides
    prior: Prior = lambda _spec: 0.0
    overrun_usd: float = 0.0  # what ended runs cost beyond the estimate they were admitted at
    refused: dict[Unit, list[RunSpec]] = field(default_factory=dict)
    need_usd: float | None = None  # the least a refused unit needed
    left_usd: float = 0.0  # what was left when it was refused
    cuts: list[Cut] = field(default_factory=list)  # cut after the first wave (`pipeline.waves`)
    _members: dict[Unit, list[RunSpec]] = field(default_factory=dict)
    _admitted: set[Unit] = field(default_factory=set)
    _reserved: dict[str, float] = field(default_factory=dict)  # run key → its estimate
    _seen_case: dict[CaseModel, float] = field(default_factory=dict)
    _seen_model: dict[str, float] = field(default_factory=dict)
    _probes: dict[str, set[Unit]] = field(default_factory=dict)  # model → units before a result
    _turn: asyncio.Condition | None = None

    @property
    def reserved_usd(self) -> float:
        return math.fsum(self._reserved.values())

    def charge(self, run: RunResult) -> None:
        """Count a run made outside the ceiling (a caller's own loop)."""
        cost = run_cost(run)
        if cost is not None and math.isfinite(cost) and not run.cached:
            self.spent_usd += cost

    def expect(self, specs: Iterable[RunSpec]) -> None:
        """The runs about to be scheduled, grouped in units (the pairs admitted as one)."""
        for spec in specs:
            self._members.setdefault(unit_of(spec), []).append(spec)

    def estimate(self, spec: RunSpec) -> float:
        """The pessimistic cost of `spec`: the dearest run seen of its case, of its model,
        else its prior."""
        seen = self._seen_case.get(_case(spec), self._seen_model.get(spec.model))
        return seen if seen is not None else max(0.0, self.prior(spec))

    async def admit(self, spec: RunSpec) -> bool:
        """Whether `spec` may start: its unit was admitted, or is now (as a whole)."""
        unit = unit_of(spec)
        if unit in self._admitted:
            return True
        if unit in self.refused or self.limit_usd is None:
            if self.limit_usd is None:
                self._admitted.add(unit)
            return self.limit_usd is None
        if self._turn is None:
            self._turn = asyncio.Condition()
        async with self._turn:
            await self._turn.wait_for(lambda: not self._probes.get(spec.model))
            if unit in self._admitted or unit in self.refused:  # decided while this one waited
                return unit in self._admitted
            return self._decide(unit, spec.model)

    def _decide(self, unit: Unit, model: str) -> bool:
        members = self._members.get(unit, [])
        costs = {s.key: self.estimate(s) for s in members}
        left = (self.limit_usd or 0.0) - self.spent_usd - self.reserved_usd
        need = math.fsum(costs.values())
        if need > left:
            self.refused[unit] = members
            if self.need_usd is None or need < self.need_usd:
                self.need_usd, self.left_usd = need, max(0.0, left)
            return False
        self._admitted.add(unit)
        self._reserved.update(costs)
        if model not in self._seen_model:
            self._probes.setdefault(model, set()).add(unit)
        return True

    async def settle(self, spec: RunSpec, cost: float | None) -> None:
        """A run of an admitted unit ended, having cost `cost` (None: unknown or nothing)."""
        estimate = self._reserved.pop(spec.key, 0.0)
        if cost is not None and math.isfinite(cost):
            self.spent_usd += cost
            self.overrun_usd += max(0.0, cost - estimate)
            key = _case(spec)
            self._seen_case[key] = max(cost, self._seen_case.get(key, 0.0))
            self._seen_model[spec.model] = max(cost, self._seen_model.get(spec.model, 0.0))
        self._probes.get(spec.model, set()).discard(unit_of(spec))
        if self._turn is not None:
            async with self._turn:
                self._turn.notify_all()

    def refused_runs(self) -> list[RunSpec]:
        return [s for members in self.refused.values() for s in members]
