"""Execute a plan: the cache first, then the runs, concurrently, within the cost budget.

A run whose fingerprint is in the cache is reused (marked cached) and costs nothing. Once
the spend reaches `max-cost-usd`, no new run starts: runs already in flight finish, and the
ones never started are returned as `not_run` so the comment can say what was left out.
The same holds once the job is told to stop (`stopping.Stop`): no run starts after the
signal, the runs in flight may end until the stop cuts them, and every run that ended is
in the cache already (each is stored as it ends), so the next push re-uses it.
A bug of ours in one run becomes an `internal` error for that run; the others go on.
A stored run whose case's checks the PR changed is re-graded with base's checks from what
the cache kept of it (`pipeline.regrade`), without paying its agent again.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from evolve_action.execute.providers.limiter import AdaptiveLimiter
from evolve_action.execute.scheduler import Job, JobOutcome, Scheduler
from evolve_action.model.outcomes import ErrorKind, RunResult
from evolve_action.model.records import run_cost
from evolve_action.model.snapshot import Snapshot
from evolve_action.pipeline.pricing import Prices
from evolve_action.pipeline.regrade import can_regrade, regrade
from evolve_action.pipeline.runner import RunEnvironment, error_result, run_and_grade
from evolve_action.pipeline.stopping import Stop
from evolve_action.plan.cache import RunCache
from evolve_action.plan.fingerprints import Fingerprinter
from evolve_action.plan.planning import Plan, RunSpec


@dataclass
class Budget:
    limit_usd: float | None = None
    spent_usd: float = 0.0
    prices: Prices = field(default_factory=lambda: Prices({}))  # the repository's overrides

    @property
    def exhausted(self) -> bool:
        return self.limit_usd is not None and self.spent_usd >= self.limit_usd

    def charge(self, run: RunResult) -> None:
        cost = run_cost(run)
        if cost is not None and math.isfinite(cost) and not run.cached:
            self.spent_usd += cost


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
        side=spec.side,
        repetition=spec.repetition,
        fingerprint=fingerprint,
        cached=True,
        ruler=cached.ruler if spec.ruler is not None else None,
    )


async def run_plan(
    plan: Plan,
    env: RunEnvironment,
    *,
    max_concurrency: int,
    limiters: dict[str, AdaptiveLimiter],
    fingerprinter: Fingerprinter,
    cache: RunCache,
    budget: Budget,
    on_done: Callable[[RunSpec, RunResult], None] | None = None,
    stop: Stop | None = None,
) -> Outcome:
    """Every planned run, in plan order; the ones the budget or a stop left out in `not_run`."""
    specs = plan.runs
    fingerprints = [
        fingerprinter.run(
            s.suite,
            s.case,
            model=s.model,
            repetition=s.repetition,
            skill=s.with_skill,
        )
        for s in specs
    ]
    outcome = Outcome()
    slots: list[RunResult | None] = [None] * len(specs)
    pending: list[int] = []
    # Stored runs to grade with base's checks, which the PR changed: (the run, its snapshot).
    regrading: dict[int, tuple[RunResult, Snapshot, bool]] = {}
    tasks = [
        fingerprinter.task(
            s.suite, s.case, model=s.model, repetition=s.repetition, skill=s.with_skill
        )
        for s in specs
    ]
    for index, (spec, fp) in enumerate(zip(specs, fingerprints, strict=True)):
        hit = cache.get(fp)
        if hit is not None and _fits(hit, spec):
            slots[index] = _as_this_run(hit, spec, fp)
            outcome.cached += 1
            if on_done is not None:
                on_done(spec, slots[index])  # type: ignore[arg-type]
            continue
        own = hit is None  # no run under these very checks: re-grade one of the same work
        if hit is None and (same := cache.by_task(tasks[index])) is not None:
            hit = same[1]
        snapshot = None
        if hit is not None:
            snapshot = cache.snapshot(hit.fingerprint)
        if hit is not None and can_regrade(hit, snapshot):
            assert snapshot is not None  # can_regrade says so
            regrading[index] = (_as_this_run(hit, spec, fp), snapshot, own)
        pending.append(index)

    def job(index: int) -> Job[RunResult | None]:
        spec = specs[index]

        async def run() -> RunResult | None:
            if budget.exhausted or (stop is not None and stop.requested):
                return None
            if index in regrading:
                stored, snapshot, own = regrading.pop(index)
                before = run_cost(stored) or 0.0
                result = budget.prices.reprice(await regrade(spec, stored, snapshot, env, own=own))
                budget.spent_usd += max(0.0, (run_cost(result) or 0.0) - before)
                result.snapshot = snapshot  # the entry keeps it for the next ruler
                outcome.cached += 1
            else:
                result = budget.prices.reprice(await run_and_grade(spec, env))
                budget.charge(result)
            result.fingerprint = fingerprints[index]
            cache.put(fingerprints[index], result, task=tasks[index])
            result.snapshot = None  # the cache has it; a job of many runs must not hold them
            return result

        return Job(provider=spec.model.split("/", 1)[0], run=run, label=spec.key)

    def done(position: int, finished: JobOutcome[RunResult | None]) -> None:
        if on_done is not None and finished.value is not None:
            on_done(specs[pending[position]], finished.value)

    scheduler: Scheduler[RunResult | None] = Scheduler(
        max_concurrency=max_concurrency, limiters=limiters, on_done=done
    )
    try:
        finished = await _run_until_cut(scheduler, [job(i) for i in pending], stop)
    except asyncio.CancelledError:
        # Cancelled from outside: keep what finished; everything else is reported as not run.
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        outcome.interrupted = True
        finished = dict(scheduler.finished())
    outcome.interrupted = outcome.interrupted or (stop is not None and stop.requested)
    for position, index in enumerate(pending):
        result = finished.get(position)
        if result is None or (result.value is None and result.error is None):
            outcome.not_run.append(specs[index])
        elif result.error is not None:
            slots[index] = _internal_error(specs[index], result.error)
        else:
            slots[index] = result.value
    outcome.results = [r for r in slots if r is not None]
    return outcome


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
