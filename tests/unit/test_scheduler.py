"""The scheduler and the adaptive limiter: limits, order, isolation of failures, cancellation."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from evolve_action.execute.providers.limiter import AdaptiveLimiter
from evolve_action.execute.scheduler import Job, JobOutcome, Scheduler, run_jobs


class Gauge:
    """Counts jobs running at once, overall and per provider."""

    def __init__(self) -> None:
        self.now: dict[str, int] = {}
        self.peak: dict[str, int] = {}

    def job(self, provider: str, value: int, delay: float = 0.01) -> Job[int]:
        async def run() -> int:
            for key in (provider, "*"):
                self.now[key] = self.now.get(key, 0) + 1
                self.peak[key] = max(self.peak.get(key, 0), self.now[key])
            await asyncio.sleep(delay * (value % 3 + 1))  # finish out of submission order
            for key in (provider, "*"):
                self.now[key] -= 1
            return value

        return Job(provider, run, label=f"{provider}-{value}")


async def test_results_in_submission_order_under_both_limits() -> None:
    gauge = Gauge()
    jobs = [gauge.job("anthropic" if i % 2 else "openai", i) for i in range(24)]
    limiters = {"anthropic": AdaptiveLimiter(2), "openai": AdaptiveLimiter(5)}

    outcomes = await run_jobs(jobs, max_concurrency=6, limiters=limiters)

    assert [o.value for o in outcomes] == list(range(24))
    assert [o.job for o in outcomes] == jobs
    assert gauge.peak["anthropic"] == 2 and gauge.peak["openai"] <= 5
    assert gauge.peak["*"] == 6


async def test_a_failing_job_never_cancels_the_others() -> None:
    async def boom() -> int:
        raise RuntimeError("provider exploded")

    async def cancelled_inside() -> int:
        inner = asyncio.create_task(asyncio.sleep(10, result=0))
        inner.cancel()
        return await inner  # a job whose own sub-task was cancelled

    gauge = Gauge()
    jobs = [gauge.job("openai", 1), Job("openai", boom), Job("openai", cancelled_inside)]
    jobs.append(gauge.job("openai", 3))

    outcomes = await run_jobs(jobs, max_concurrency=1)

    assert [o.ok for o in outcomes] == [True, False, False, True]
    assert isinstance(outcomes[1].error, RuntimeError) and outcomes[3].value == 3
    assert isinstance(outcomes[2].error, asyncio.CancelledError)


async def test_cancellation__finished_results_can_be_collected() -> None:
    release = asyncio.Event()

    def job(value: int, gate: Callable[[], Awaitable[object]] | None = None) -> Job[int]:
        async def run() -> int:
            if gate is not None:
                await gate()
            return value

        return Job("openai", run)

    seen: list[int] = []
    scheduler: Scheduler[int] = Scheduler(max_concurrency=4, on_done=lambda i, _: seen.append(i))
    jobs = [job(0), job(1, release.wait), job(2), job(3, release.wait)]
    task = asyncio.create_task(scheduler.run(jobs))
    while len(seen) < 2:
        await asyncio.sleep(0)

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    finished = scheduler.finished()
    assert [(i, o.value) for i, o in finished] == [(0, 0), (2, 2)]
    assert all(isinstance(o, JobOutcome) for _, o in finished)


def test_scheduler_refuses_a_zero_limit() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Scheduler[int](max_concurrency=0)
    with pytest.raises(ValueError, match="at least 1"):
        AdaptiveLimiter(0)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_limiter__halves_once_per_burst_then_creeps_back() -> None:
    clock = Clock()
    limiter = AdaptiveLimiter(16, cooldown_s=1.0, clock=clock)

    for _ in range(10):  # one overload seen by ten in-flight calls
        limiter.on_overload()
    assert limiter.limit == 8 and limiter.overloads == 10

    clock.now = 1.5
    limiter.on_overload()
    clock.now = 3.0
    limiter.on_overload()
    assert limiter.limit == 2 and limiter.lowest == 2

    for _ in range(2):
        limiter.on_success()
    assert limiter.limit == 3  # one more slot after `limit` successes in a row
    for _ in range(3):
        limiter.on_success()
    assert limiter.limit == 4


def test_limiter__never_below_the_floor_nor_above_the_ceiling() -> None:
    clock = Clock()
    limiter = AdaptiveLimiter(3, floor=1, cooldown_s=0.0, clock=clock)
    for _ in range(5):
        limiter.on_overload()
    assert limiter.limit == 1
    for _ in range(100):
        limiter.on_success()
    assert limiter.limit == 3


async def test_limiter__lower_limit_holds_back_new_jobs_only() -> None:
    limiter = AdaptiveLimiter(4, cooldown_s=0.0)
    for _ in range(4):
        await limiter.acquire()
    limiter.on_overload()  # limit 2, but four are running: none is interrupted
    assert (limiter.limit, limiter.in_flight) == (2, 4)

    waiter = asyncio.create_task(limiter.acquire())
    for _ in range(2):
        limiter.release()
    await asyncio.sleep(0)
    assert not waiter.done()  # two still running = the new limit
    limiter.release()
    await asyncio.wait_for(waiter, 1)
    assert limiter.in_flight == 2


async def test_limiter__a_cancelled_waiter_gives_its_slot_back() -> None:
    limiter = AdaptiveLimiter(1)
    await limiter.acquire()
    waiter = asyncio.create_task(limiter.acquire())
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    limiter.release()
    assert limiter.in_flight == 0
    async with limiter.slot():
        assert limiter.in_flight == 1
