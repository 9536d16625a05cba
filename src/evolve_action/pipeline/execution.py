"""Execute a plan: the cache first, then the runs, concurrently, under the cost ceiling.

A run whose fingerprint is in the cache is reused (marked cached) and costs nothing. Under
`max-cost-usd`, the others go in two waves when the plan repeats its cases: the first
repetition of every case, then the rest, which the job projects again from what the first
cost (`Costing.reproject`), prints, and cuts in whole pairs before they start when that
projection overruns the budget. Without a budget nothing waits: every run goes at once.
Within a wave, `max-cost-usd` is a ceiling (`pipeline.ceiling`): a pair starts only when its
pessimistic cost fits in what is left, and a pair that started is made whole. The pairs it
refused, or the cut, are returned as `not_run` so the comment can say what was left out.
The same holds once the job is told to stop (`stopping.Stop`): no run starts after the
signal, the runs in flight may end until the stop cuts them, and every run that ended is
in the cache already (each is stored as it ends), so the next push re-uses it.
A bug of ours in one run becomes an `internal` error for that run; the others go on.
A stored run whose case's checks the PR changed is re-graded with base's checks from what
the cache kept of it (`pipeline.regrade`), without paying its agent again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from evolve_action.execute.providers.limiter import AdaptiveLimiter
from evolve_action.execute.scheduler import Job, JobOutcome, Scheduler
from evolve_action.model.outcomes import ErrorKind, RunResult
from evolve_action.model.records import run_cost
from evolve_action.model.snapshot import Snapshot
from evolve_action.pipeline.ceiling import Budget as Budget
from evolve_action.pipeline.cost_plan import Costing
from evolve_action.pipeline.regrade import can_regrade, regrade
from evolve_action.pipeline.runner import RunEnvironment, error_result, run_and_grade
from evolve_action.pipeline.stopping import Stop
from evolve_action.plan.cache import RunCache
from evolve_action.plan.fingerprints import Fingerprinter
from evolve_action.plan.planning import Plan, RunSpec

Done = Callable[[RunSpec, RunResult], None]
Told = Callable[[Costing], None]
Ended = Callable[[int, JobOutcome[RunResult | None]], None]  # a wave's position, its outcome


@dataclass
class Outcome:
    results: list[RunResult] = field(default_factory=list)
    not_run: list[RunSpec] = field(default_factory=list)
    cached: int = 0
    interrupted: bool = False


def _internal_error(spec: RunSpec, error: BaseException | None) -> RunResult:
    return error_result(
        spec, ErrorKind.INTERNAL, f"internal error: {type(error).__name__}: {error}"
    )


def _fits(cached: RunResult, spec: RunSpec) -> bool:
    """A stored run serves a run graded under base's checks too only when it was graded under
    that very ruler; else it is re-graded from its snapshot (`pipeline.regrade`), or made
    again when the cache kept too little of it."""
    return spec.ruler is None or (cached.ruler is not None and cached.ruler.key == spec.ruler.key)


def _as_this_run(cached: RunResult, spec: RunSpec, fingerprint: str) -> RunResult:
    # The same work can serve another side or a moved file: label it as the run asked for.
    return replace(
        cached,
        suite=spec.suite.rel,
        case_id=spec.case.id,
        model=spec.model,
        agent=spec.agent,
        side=spec.side,
        repetition=spec.repetition,
        fingerprint=fingerprint,
        cached=True,
        ruler=cached.ruler if spec.ruler is not None else None,
    )


@dataclass
class _Looked:
    """A plan's runs after the cache was asked: what it answered, and what is left to make."""

    specs: Sequence[RunSpec]
    fingerprints: list[str]
    tasks: list[str]
    slots: list[RunResult | None]
    pending: list[int] = field(default_factory=list)
    # Stored runs to grade with base's checks, which the PR changed: (the run, its snapshot).
    regrading: dict[int, tuple[RunResult, Snapshot, bool]] = field(default_factory=dict)


def _look_up(
    specs: Sequence[RunSpec],
    fingerprinter: Fingerprinter,
    cache: RunCache,
    found: Mapping[str, tuple[str, RunResult | None]],
) -> _Looked:
    """`found`: what the projection already hashed and read, by run key (a later wave's
    runs are not in it)."""

    def of(spec: RunSpec, make: Callable[..., str]) -> str:
        options = {
            "model": spec.model,
            "repetition": spec.repetition,
            "skill": spec.with_skill,
            "agent": spec.agent,
        }
        return make(spec.suite, spec.case, **options)

    def fingerprint(spec: RunSpec) -> str:
        known = found.get(spec.key)
        return known[0] if known is not None else of(spec, fingerprinter.run)

    looked = _Looked(
        specs,
        [fingerprint(s) for s in specs],
        [of(s, fingerprinter.task) for s in specs],
        [None] * len(specs),
    )
    for index, spec in enumerate(specs):
        fp = looked.fingerprints[index]
        # A miss is asked again (an earlier wave may have stored it since); a hit is not.
        known = found.get(spec.key)
        hit = cache.counted(known[1]) if known and known[1] else cache.get(fp)
        if hit is not None and _fits(hit, spec):
            looked.slots[index] = _as_this_run(hit, spec, fp)
            continue
        own = hit is None  # no run under these very checks: re-grade one of the same work
        if hit is None and (same := cache.by_task(looked.tasks[index])) is not None:
            hit = same[1]
        snapshot = cache.snapshot(hit.fingerprint) if hit is not None else None
        if hit is not None and can_regrade(hit, snapshot):
            assert snapshot is not None  # can_regrade says so
            looked.regrading[index] = (_as_this_run(hit, spec, fp), snapshot, own)
        looked.pending.append(index)
    return looked


@dataclass
class _Waves:
    """The runs left to make, wave by wave, under the ceiling; what each made or refused."""

    looked: _Looked
    env: RunEnvironment
    cache: RunCache
    budget: Budget
    scheduler: Callable[[Ended], Scheduler[RunResult | None]]
    on_done: Done | None
    stop: Stop | None
    finished: dict[int, JobOutcome[RunResult | None]] = field(default_factory=dict)
    interrupted: bool = False
    made_by: list[RunResult] = field(default_factory=list)
    regraded: int = 0  # stored runs graded again (counted with the cached ones)

    def job(self, index: int) -> Job[RunResult | None]:
        spec, looked, budget = self.looked.specs[index], self.looked, self.budget

        async def run() -> RunResult | None:
            if self.stop is not None and self.stop.requested:
                return None
            if not await budget.admit(spec):
                return None
            cost: float | None = None
            try:
                if index in looked.regrading:
                    stored, snapshot, own = looked.regrading.pop(index)
                    before = run_cost(stored) or 0.0
                    graded = await regrade(spec, stored, snapshot, self.env, own=own)
                    result = budget.prices.reprice(graded)
                    cost = max(0.0, (run_cost(result) or 0.0) - before)
                    result.snapshot = snapshot  # the entry keeps it for the next ruler
                    self.regraded += 1
                else:
                    result = budget.prices.reprice(await run_and_grade(spec, self.env))
                    cost = run_cost(result)
            finally:
                await budget.settle(spec, cost)
            result.fingerprint = looked.fingerprints[index]
            self.cache.put(looked.fingerprints[index], result, task=looked.tasks[index])
            result.snapshot = None  # the cache has it; a job of many runs must not hold them
            return result

        return Job(provider=spec.model.split("/", 1)[0], run=run, label=spec.key)

    async def run(self, indices: list[int]) -> None:
        """One wave: `indices` of the plan's runs, each admitted by the ceiling as it starts."""
        if self.interrupted or not indices:
            return
        self.budget.expect(self.looked.specs[i] for i in indices)

        def done(position: int, ended: JobOutcome[RunResult | None]) -> None:  # an `Ended`
            if ended.value is not None:
                self.made_by.append(ended.value)
                if self.on_done is not None:
                    self.on_done(self.looked.specs[indices[position]], ended.value)

        scheduler = self.scheduler(done)
        try:
            ended = await _run_until_cut(scheduler, [self.job(i) for i in indices], self.stop)
        except asyncio.CancelledError:
            # Cancelled from outside: keep what finished; everything else is reported as not run.
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            self.interrupted = True
            ended = dict(scheduler.finished())
        self.interrupted = self.interrupted or (self.stop is not None and self.stop.requested)
        self.finished.update({indices[p]: outcome for p, outcome in ended.items()})


def _first_wave(looked: _Looked, budget: Budget) -> tuple[list[int], list[int]]:
    """Under a budget, the first repetition of every case, and the rest; else (and when
    nothing repeats) every run in one wave, in plan order, with no wait between two."""
    first = [i for i in looked.pending if looked.specs[i].repetition == 1]
    rest = [i for i in looked.pending if looked.specs[i].repetition != 1]
    split = budget.limit_usd is not None and first and rest
    return (first, rest) if split else (looked.pending, [])


def _after_first(
    waves: _Waves, rest: list[int], costing: Costing | None, tell: Told | None
) -> list[int]:
    """The rest of the runs once the first wave has ended: projected again from what it cost,
    printed, and cut to what is left of the budget."""
    if costing is None or waves.interrupted or not rest:
        return rest
    specs = [waves.looked.specs[i] for i in rest]
    update = costing.reproject(waves.made_by, specs)
    if tell is not None and not costing.projection.unpriced:  # no dollars to say otherwise
        tell(update)
    cut = update.cut_rest(specs, waves.budget.limit_usd)
    if cut is None or not cut.any:
        return rest
    costing.later.cuts.append(cut)
    kept = {s.key for s in cut.kept}
    return [i for i in rest if waves.looked.specs[i].key in kept]


async def run_plan(
    plan: Plan,
    env: RunEnvironment,
    *,
    max_concurrency: int,
    limiters: dict[str, AdaptiveLimiter],
    fingerprinter: Fingerprinter,
    cache: RunCache,
    budget: Budget,
    on_done: Done | None = None,
    stop: Stop | None = None,
    costing: Costing | None = None,
    tell: Told | None = None,
) -> Outcome:
    """Every planned run, in plan order; the ones the budget or a stop left out in `not_run`.
    `costing`: the projection, to project the rest again after the first wave and say it
    through `tell`."""
    looked = _look_up(plan.runs, fingerprinter, cache, costing.found if costing else {})
    outcome = Outcome(cached=sum(slot is not None for slot in looked.slots))
    for spec, slot in zip(plan.runs, looked.slots, strict=True):
        if slot is not None and on_done is not None:
            on_done(spec, slot)

    def scheduler(done: Ended) -> Scheduler[RunResult | None]:
        return Scheduler(max_concurrency=max_concurrency, limiters=limiters, on_done=done)

    if costing is not None:
        budget.prior = costing.prior_of("high")  # pessimistic: the high end of the range
    waves = _Waves(looked, env, cache, budget, scheduler, on_done, stop)
    first, rest = _first_wave(looked, budget)
    await waves.run(first)
    await waves.run(_after_first(waves, rest, costing, tell))
    outcome.interrupted = waves.interrupted
    outcome.cached += waves.regraded
    _collect(looked, waves.finished, outcome)
    if costing is not None:
        costing.later.refused = budget.refused_runs()
        costing.later.overrun_usd = budget.overrun_usd
        costing.later.spent_usd = budget.spent_usd
        if budget.need_usd is not None:
            costing.later.need = (budget.need_usd, budget.left_usd)
    return outcome


def _collect(
    looked: _Looked, finished: dict[int, JobOutcome[RunResult | None]], outcome: Outcome
) -> None:
    for index in looked.pending:
        result = finished.get(index)
        if result is None or (result.value is None and result.error is None):
            outcome.not_run.append(looked.specs[index])
        elif result.error is not None:
            looked.slots[index] = _internal_error(looked.specs[index], result.error)
        else:
            looked.slots[index] = result.value
    outcome.results = [r for r in looked.slots if r is not None]


async def _run_until_cut(
    scheduler: Scheduler[RunResult | None], jobs: list[Job[RunResult | None]], stop: Stop | None
) -> dict[int, JobOutcome[RunResult | None]]:
    """The jobs' outcomes by position: all of them, or those that ended before the stop cut
    the rest (which are cancelled, and so never reach the cache)."""
    running = asyncio.ensure_future(scheduler.run(jobs))
    if stop is None:
        return dict(enumerate(await running))
    cut = asyncio.ensure_future(stop.cut())
    try:
        await asyncio.wait({running, cut}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not running.done():
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
        cut.cancel()
    if running.cancelled():
        return dict(scheduler.finished())
    return dict(enumerate(running.result()))
