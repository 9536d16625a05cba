"""Runs jobs concurrently under a global limit and per-provider adaptive limits.

A job is an async callable tagged with its provider id. Each job first takes a slot of its
provider's `AdaptiveLimiter` (so a provider that answers 429 holds back only its own jobs),
then a global slot. Results come back in submission order as `JobOutcome`s: a failing job
never cancels the others, it only records its exception. When the whole run is cancelled
(SIGTERM), unfinished jobs are cancelled and `Scheduler.finished()` still yields every result
that was complete.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from evolve_action.execute.providers.limiter import AdaptiveLimiter

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Job(Generic[T]):
    provider: str
    run: Callable[[], Awaitable[T]]
    label: str = ""


@dataclass(frozen=True, slots=True)
class JobOutcome(Generic[T]):
    job: Job[T]
    value: T | None = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class Scheduler(Generic[T]):
    def __init__(
        self,
        *,
        max_concurrency: int,
        limiters: Mapping[str, AdaptiveLimiter] | None = None,
        on_done: Callable[[int, JobOutcome[T]], None] | None = None,
    ) -> None:
        """`limiters` maps provider ids to their limiter; a provider without one is bounded
        by `max_concurrency` alone. `on_done(index, outcome)` is called as each job ends."""
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
        self.max_concurrency = max_concurrency
        self.limiters = dict(limiters or {})
        self.on_done = on_done
        self._outcomes: list[JobOutcome[T] | None] = []

    async def run(self, jobs: Sequence[Job[T]]) -> list[JobOutcome[T]]:
        global_slots = AdaptiveLimiter(self.max_concurrency)  # fixed: never told of overload
        self._outcomes = [None] * len(jobs)
        tasks = [
            asyncio.create_task(self._run_one(i, job, global_slots), name=job.label or None)
            for i, job in enumerate(jobs)
        ]
        try:
            await asyncio.gather(*tasks)
        finally:
            # Reached with live tasks only when we were cancelled: stop the rest, wait for them.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        return [o for o in self._outcomes if o is not None]

    def finished(self) -> list[tuple[int, JobOutcome[T]]]:
        """The outcomes complete so far, with their submission index (for the SIGTERM path)."""
        return [(i, o) for i, o in enumerate(self._outcomes) if o is not None]

    async def _run_one(self, index: int, job: Job[T], global_slots: AdaptiveLimiter) -> None:
        provider_slots = self.limiters.get(job.provider)
        if provider_slots is not None:
            await provider_slots.acquire()
        try:
            async with global_slots.slot():
                try:
                    outcome = JobOutcome(job, value=await job.run())
                except Exception as exc:
                    outcome = JobOutcome(job, error=exc)
                except asyncio.CancelledError as exc:
                    task = asyncio.current_task()
                    if task is not None and task.cancelling():
                        raise  # we are being cancelled (SIGTERM): stop
                    outcome = JobOutcome(job, error=exc)  # the job cancelled itself: a failure
        finally:
            if provider_slots is not None:
                provider_slots.release()
        self._outcomes[index] = outcome
        if self.on_done is not None:
            self.on_done(index, outcome)


async def run_jobs(
    jobs: Sequence[Job[T]],
    *,
    max_concurrency: int,
    limiters: Mapping[str, AdaptiveLimiter] | None = None,
) -> list[JobOutcome[T]]:
    """Run `jobs` to completion and return their outcomes in submission order."""
    return await Scheduler[T](max_concurrency=max_concurrency, limiters=limiters).run(jobs)
