"""Before the first call: the plan's projection, and `max-cost-usd`'s cut of it.

`plan_and_run` asks this once its runs are planned and fingerprinted, before any run starts: which
runs the cache will answer (free), what each other run is projected to cost
(`plan.projection`), and, with `max-cost-usd` below the projection, which runs are cut
(`plan.budget_cut`). The job prints the words at once (the log's first cost line comes
before the first provider request) and carries them to the summary and the comment.
"""

from __future__ import annotations

from dataclasses import dataclass

from evolve_action.model.outcomes import Side
from evolve_action.pipeline.pricing import Prices
from evolve_action.plan.budget_cut import CaseModel, Cut, cut_to_budget
from evolve_action.plan.cache import RunCache
from evolve_action.plan.cost_history import read_history
from evolve_action.plan.cost_words import cut_lines, harness_warning, projection_line
from evolve_action.plan.fingerprints import Fingerprinter
from evolve_action.plan.planning import Plan, RunSpec
from evolve_action.plan.projection import Projection, project
from evolve_action.settings.inputs import Settings


@dataclass(frozen=True)
class Costing:
    projection: Projection
    cut: Cut | None
    prices_as_of: str
    max_runs: int

    def to_run(self, plan: Plan) -> Plan:
        """`plan` without the runs the budget cut (the whole plan when nothing was cut)."""
        if self.cut is None or not self.cut.any:
            return plan
        return Plan(list(self.cut.kept), plan.skipped, plan.adaptive)

    @property
    def cut_runs(self) -> tuple[RunSpec, ...]:
        return self.cut.dropped if self.cut is not None else ()

    @property
    def projected_usd(self) -> float | None:
        """The whole plan's projection (the cut's runs included); None when a run's model
        has no price."""
        return None if self.projection.unpriced else round(self.projection.total_usd, 6)

    @property
    def projection_text(self) -> str:
        return projection_line(
            self.projection, prices_as_of=self.prices_as_of, max_runs=self.max_runs
        )

    def cut_notices(self) -> tuple[str, ...]:
        """The comment's word on what the budget cut: why, then each case it cut."""
        lines = cut_lines(self.cut) if self.cut is not None else ()
        return tuple(
            line if i == 0 else f"Cut by max-cost-usd: {line}" for i, line in enumerate(lines)
        )

    def lines(self) -> tuple[str, ...]:
        """What the log shows before the first call: the projection, the harness's warning,
        what the budget cut."""
        warning = harness_warning(self.projection.harness)
        cut = cut_lines(self.cut) if self.cut is not None else ()
        return (self.projection_text, *((warning,) if warning else ()), *cut)


def _changed(plan: Plan, fingerprints: dict[str, str]) -> set[CaseModel]:
    """Cases whose base and head runs differ (or that one side lacks): what a PR changed."""
    sides: dict[tuple[str, str, str, int], dict[Side, str]] = {}
    for spec in plan.runs:
        unit = (spec.suite.rel, spec.case.id, spec.model, spec.repetition)
        sides.setdefault(unit, {})[spec.side] = fingerprints[spec.key]
    changed: set[CaseModel] = set()
    for (rel, case, model, _), by_side in sides.items():
        if by_side.get(Side.BASE) is None or by_side.get(Side.BASE) != by_side.get(Side.HEAD):
            changed.add((rel, case, model))
    return changed


def cost_plan(
    plan: Plan,
    *,
    settings: Settings,
    fingerprinter: Fingerprinter,
    judge_model: str,
    prices: Prices,
) -> Costing:
    """The projection of `plan` and, with `max-cost-usd`, its cut; reads the cache, calls
    nothing."""
    probe = RunCache(settings.cache_dir)  # its own instance: the job's hit count stays true
    fingerprints = {
        s.key: fingerprinter.run(
            s.suite, s.case, model=s.model, repetition=s.repetition, skill=s.with_skill
        )
        for s in plan.runs
    }
    cached = {k for k, fp in fingerprints.items() if probe.get(fp) is not None}
    projection = project(
        plan,
        cached=cached,
        history=read_history(settings.cache_dir),
        price=prices.cost,
        judge_model=judge_model,
        harness=settings.harness.value,
        max_runs=settings.max_runs,
    )
    cut = None
    limit = settings.max_cost_usd
    if limit is not None and projection.total_usd > limit:
        costs = projection.costs()
        changed = _changed(plan, fingerprints)
        cut = cut_to_budget(plan, lambda s: costs[s.key], limit, changed=changed)
    return Costing(projection, cut, prices.as_of(), settings.max_runs)
