"""Before the first call: the plan's projection, and `max-cost-usd`'s cut of it; after the
first wave, the projection again from what was measured, and the cut of the rest.

`plan_and_run` asks this once its runs are planned and fingerprinted, before any run starts: which
runs the cache will answer (free), what each other run is projected to cost
(`plan.projection`), and, with `max-cost-usd` below the projection, which runs are cut
(`plan.budget_cut`). The job prints the words at once (the log's first cost line comes
before the first provider request) and carries them to the summary and the comment.

Once the first repetition of every case has run (`pipeline.execution`), `reproject` prices
the rest from what those runs cost, the job prints it (`Update`), and a budget the rest
would overrun cuts it in the same order as before the start. What the ceiling refused
while the runs went (`pipeline.ceiling`) is named with the cuts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace

from evolve_action.execute.agent import DEFAULT_MAX_TURNS, limits
from evolve_action.model.outcomes import RunResult, Side, Usage
from evolve_action.model.records import run_cost
from evolve_action.pipeline.pricing import Prices
from evolve_action.plan.budget_cut import CaseModel, Cut, cut_to_budget
from evolve_action.plan.cache import RunCache
from evolve_action.plan.cost_history import read_history
from evolve_action.plan.cost_words import (
    cut_lines,
    harness_warning,
    over_line,
    projection_line,
    refused_lines,
    reprojection_line,
)
from evolve_action.plan.fingerprints import Fingerprinter
from evolve_action.plan.planning import Plan, RunSpec
from evolve_action.plan.projection import Price, Projection, project
from evolve_action.settings.inputs import Settings


@dataclass
class Later:
    """What the budget did once the runs had started: cuts after the first wave, units the
    ceiling refused, and what admitted runs cost beyond their estimates."""

    cuts: list[Cut] = field(default_factory=list)
    refused: list[RunSpec] = field(default_factory=list)
    limit_usd: float | None = None
    overrun_usd: float = 0.0
    spent_usd: float = 0.0
    need: tuple[float, float] | None = None  # the least a refused pair needed, what was left


@dataclass(frozen=True)
class Costing:
    projection: Projection
    cut: Cut | None
    prices_as_of: str
    max_runs: int
    changed: frozenset[CaseModel] = frozenset()
    turn_cap: int | None = None  # the input's (or the default) turn cap, for the words
    later: Later = field(default_factory=Later)
    price: Price | None = None  # to price what was measured again (`warm_cost`)
    judge_model: str = ""
    # Run key → its fingerprint and the cache's answer (None: a miss), as the projection found
    # them: `run_plan` starts from these rather than hashing and reading every entry again.
    found: Mapping[str, tuple[str, RunResult | None]] = field(default_factory=dict)

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
    def projected_range(self) -> tuple[float, float] | None:
        """The projection's low and high, when a run has no record (else the point says it)."""
        p = self.projection
        return None if p.unpriced or not p.ranged else (round(p.low_usd, 6), round(p.high_usd, 6))

    @property
    def projection_text(self) -> str:
        return projection_line(
            self.projection,
            prices_as_of=self.prices_as_of,
            max_runs=self.max_runs,
            turn_cap=self.turn_cap,
        )

    def cut_notices(self) -> tuple[str, ...]:
        """The comment's word on what the budget cut: why, then each case it cut; before the
        start, after the first wave, and while the runs went."""
        later = self.later
        groups = [cut_lines(self.cut) if self.cut is not None else ()]
        groups += [cut_lines(cut, when="after the first wave") for cut in later.cuts]
        groups.append(refused_lines(later.refused, later.limit_usd, later.need))
        groups.append(over_line(later.limit_usd, later.spent_usd, later.overrun_usd))
        return tuple(
            line if i == 0 else f"Cut by max-cost-usd: {line}"
            for lines in groups
            for i, line in enumerate(lines)
        )

    def prior_of(self, end: str = "likely") -> Callable[[RunSpec], float]:
        """A run → what the projection put it at: its likely figure, or the `high` end of its
        range (a wave's new repetition: its cell's)."""
        by_key: dict[str, float] = {}
        by_cell: dict[tuple[str, str, str, str], float] = {}
        for r in self.projection.runs:
            usd = (r.high_usd if end == "high" else r.usd) or 0.0
            if r.source != "cache":
                by_key[r.spec.key] = usd
                by_cell[_cell(r.spec)] = max(usd, by_cell.get(_cell(r.spec), 0.0))
        return lambda spec: by_key.get(spec.key, by_cell.get(_cell(spec), 0.0))

    def reproject(self, made: Sequence[RunResult], rest: Sequence[RunSpec]) -> Update:
        """The runs left, priced from what the runs `made` cost: the mean of the same side,
        case and model, else of the case and model, else of the model, else the prior."""
        measured: dict[tuple[str, ...], list[float]] = {}
        for run in made:
            cost = warm_cost(run, self.price, self.judge_model)
            if run.cached or cost is None or not math.isfinite(cost):
                continue
            for key in _keys(run.side.value, run.suite, run.case_id, run.model):
                measured.setdefault(key, []).append(cost)
        prior = self.prior_of()

        def cost_of(spec: RunSpec) -> float:
            for key in _keys(spec.side.value, spec.suite.rel, spec.case.id, spec.model):
                if key in measured:
                    return math.fsum(measured[key]) / len(measured[key])
            return prior(spec)

        costs = {spec.key: cost_of(spec) for spec in rest}
        spent = math.fsum(c for r in made if not r.cached and (c := run_cost(r)) is not None)
        own = {f.name: getattr(self, f.name) for f in fields(Costing)}
        return Update(**own, costs=costs, spent_usd=spent, made=len(made))

    def lines(self) -> tuple[str, ...]:
        """What the log shows before the first call: the projection, the harness's warning,
        what the budget cut."""
        warning = harness_warning(self.projection.harness)
        cut = cut_lines(self.cut) if self.cut is not None else ()
        return (self.projection_text, *((warning,) if warning else ()), *cut)


def _warmed(usage: Usage) -> Usage:
    return replace(
        usage,
        cache_read_tokens=usage.cache_read_tokens + usage.cache_write_tokens,
        cache_write_tokens=0,
    )


def warm_cost(run: RunResult, price: Price | None, judge_model: str) -> float | None:
    """What `run` would cost with the provider's prompt cache warm: its cache writes priced as
    reads. The first runs of a job write the shared prefix (system prompt, tools) once; the
    runs after them read it, so this, not what the first ones paid, is what a later one
    costs."""
    if price is None:
        return run_cost(run)
    agent, judge = run.transcript.usage, run.judge.usage
    costs = [price(run.model, _warmed(agent)) if agent.calls else 0.0]
    costs.append(price(judge_model, _warmed(judge)) if judge.calls else 0.0)
    known = [c for c in costs if c is not None]
    return math.fsum(known) if known else None


def _cell(spec: RunSpec) -> tuple[str, str, str, str]:
    return (spec.side.value, spec.suite.rel, spec.case.id, spec.model)


def _keys(side: str, suite: str, case: str, model: str) -> tuple[tuple[str, ...], ...]:
    return ((side, suite, case, model), (suite, case, model), (model,))


@dataclass(frozen=True)
class Update(Costing):
    """The projection after the first wave: the rest's cost per run, from what was measured.
    Told to the job's printer as a `Costing` whose lines are this update alone."""

    costs: dict[str, float] = field(default_factory=dict)  # run key → its projected cost
    spent_usd: float = 0.0
    made: int = 0

    @property
    def rest_usd(self) -> float:
        return math.fsum(self.costs.values())

    def lines(self) -> tuple[str, ...]:
        return (reprojection_line(self.made, self.spent_usd, len(self.costs), self.rest_usd),)

    def cut_rest(self, rest: Sequence[RunSpec], limit_usd: float | None) -> Cut | None:
        """The rest cut to what is left of `limit_usd` (None when it fits or has no limit)."""
        if limit_usd is None or self.spent_usd + self.rest_usd <= limit_usd:
            return None
        left = max(0.0, limit_usd - self.spent_usd)
        plan = Plan(list(rest))
        return cut_to_budget(plan, lambda s: self.costs[s.key], left, changed=self.changed)


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
    found = {
        s.key: (fp, probe.get(fp))
        for s in plan.runs
        for fp in (
            fingerprinter.run(
                s.suite,
                s.case,
                model=s.model,
                repetition=s.repetition,
                skill=s.with_skill,
                agent=s.agent,
            ),
        )
    }
    fingerprints = {key: fp for key, (fp, _) in found.items()}
    cached = {key for key, (_, hit) in found.items() if hit is not None}
    projection = project(
        plan,
        cached=cached,
        history=read_history(settings.cache_dir),
        price=prices.cost,
        judge_model=judge_model,
        harness=settings.harness.value,
        max_runs=settings.max_runs,
        turn_cap=lambda case: limits(case, settings.max_turns, settings.timeout_seconds).max_turns,
        runs_on=_runs_on(settings),
    )
    cut = None
    limit = settings.max_cost_usd
    changed = frozenset(_changed(plan, fingerprints))
    if limit is not None and projection.total_usd > limit:
        costs = projection.costs()
        cut = cut_to_budget(plan, lambda s: costs[s.key], limit, changed=changed)
    cap = settings.max_turns or DEFAULT_MAX_TURNS
    later = Later(limit_usd=limit)
    return Costing(
        projection,
        cut,
        prices.as_of(),
        settings.max_runs,
        changed,
        cap,
        later,
        prices.cost,
        judge_model,
        found,
    )


def _runs_on(settings: Settings) -> Callable[[str], str] | None:
    """Under `harness: cli`, a provider → the name of the CLI that runs its models (the cost
    prior's key); None under `sdk`. The registry is imported only when a CLI runs."""
    if settings.harness.value == "sdk":
        return None
    from evolve_action.execute.harness import registry

    def name(provider: str) -> str:
        harness = registry.for_provider(provider, settings.agent)
        return harness.name if harness is not None else settings.harness.value

    return name
