"""An adaptive concurrency limit per provider: halve on overload, creep back up on success.

The scheduler takes a slot per run job; the retry loop reports 429/529 and successes. The
shape is TCP's AIMD: a multiplicative decrease (at most once per `cooldown_s`, so the burst
of 429s that one overload produces across all in-flight calls counts once) and an additive
increase of one slot after `limit` successes in a row, never above the configured ceiling
and never below `floor`. Running jobs are never interrupted: a lower limit only holds back
new ones.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager


class AdaptiveLimiter:
    def __init__(
        self,
        limit: int,
        *,
        floor: int = 1,
        cooldown_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if limit < 1:
            raise ValueError(f"a concurrency limit must be at least 1, got {limit}")
        self.ceiling = limit
        self.floor = max(1, min(floor, limit))
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._limit = limit
        self._in_flight = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._successes = 0
        self._last_decrease: float | None = None
        # Reported in the results so users see why a run was slow.
        self.overloads = 0
        self.lowest = limit

    @property
    def limit(self) -> int:
        return self._limit

    @property
    def in_flight(self) -> int:
        return self._in_flight

    async def acquire(self) -> None:
        if self._in_flight < self._limit and not self._waiters:
            self._in_flight += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # the slot was handed over just as we were cancelled
            else:
                self._waiters.remove(waiter)
            raise

    def release(self) -> None:
        self._in_flight -= 1
        self._wake()

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        await self.acquire()
        try:
            yield
        finally:
            self.release()

    def on_overload(self) -> None:
        self.overloads += 1
        now = self._clock()
        if self._last_decrease is not None and now - self._last_decrease < self.cooldown_s:
            return
        self._last_decrease = now
        self._successes = 0
        self._limit = max(self.floor, self._limit // 2)
        self.lowest = min(self.lowest, self._limit)

    def on_success(self) -> None:
        self._successes += 1
        if self._successes >= self._limit and self._limit < self.ceiling:
            self._limit += 1
            self._successes = 0
            self._wake()

    def _wake(self) -> None:
        while self._waiters and self._in_flight < self._limit:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self._in_flight += 1
                waiter.set_result(None)
