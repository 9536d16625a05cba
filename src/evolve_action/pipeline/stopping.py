"""Stopping a job on SIGTERM or SIGINT: a cancelled workflow, `timeout-minutes`, Ctrl-C.

GitHub stops a step with SIGINT, then SIGTERM 7.5 s later, then SIGKILL 2.5 s after that.
So the first signal stops new runs and gives the runs in flight `grace_s` to end; the end of
the grace, or a second signal, cuts them. What follows (results, comment, check) has the
seconds left: the GitHub writes run in a thread that the job stops waiting for when a signal
comes (`Stop.wait`), so a stalled request never holds the job past its end.

Until a job claims the stop (`claim`: from then on it has something to report), a signal
simply ends the command, with the shell's status for it and a line saying so. After that,
before and after the event loop a plain handler records the signal, and while the loop runs
the loop's own handler does (woken whichever thread the kernel gave the signal to). Neither
raises: nothing is ever cut half-way through writing a file.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from types import FrameType
from typing import Generic, TypeVar

T = TypeVar("T")

SIGNALS = (signal.SIGTERM, signal.SIGINT)
GRACE_S = 3.0  # the runs in flight may end within this, after the first signal
PUBLISH_S = 6.0  # the GitHub writes of a stopped job (a second signal cuts them sooner)
SETTLE_S = 1.0  # a GitHub write under way when a signal comes may still end within this
POLL_S = 0.05  # how often a waiting main thread looks at the signals


def _seconds(name: str, default: float) -> float:
    """A duration from the environment (tests shorten or lengthen it), else the default."""
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if value >= 0 else default


@dataclass
class Waited(Generic[T]):
    """What a call run in a thread gave: its value, or nothing because it was given up on."""

    value: T | None = None
    done: bool = False


@dataclass
class Stop:
    """The job's stop request: the first SIGTERM or SIGINT it got, from whatever phase."""

    grace_s: float = field(default_factory=lambda: _seconds("EVOLVE_STOP_GRACE_S", GRACE_S))
    publish_s: float = field(default_factory=lambda: _seconds("EVOLVE_STOP_PUBLISH_S", PUBLISH_S))
    signal: str = ""  # the first signal's name; "" while nobody asked the job to stop
    count: int = 0  # signals received
    _listeners: list[Callable[[], None]] = field(default_factory=list)
    _handling: bool = False
    _claimed: bool = False
    _cut: asyncio.Event | None = None

    @property
    def requested(self) -> bool:
        return bool(self.signal)

    def note(self, signum: int) -> None:
        """A signal arrived (from a handler, or a test)."""
        self.count += 1
        if not self.signal:
            self.signal = signal.Signals(signum).name
        for listener in list(self._listeners):
            listener()

    def claim(self) -> None:
        """From now on a signal stops the job, which reports it, instead of ending the process."""
        self._claimed = True

    def _handler(self, signum: int, _frame: FrameType | None) -> None:
        if not self._claimed:
            name = signal.Signals(signum).name
            print(f"evolve-action: stopped by {name} before the job began", file=sys.stderr)
            raise SystemExit(128 + signum)
        self.note(signum)

    @contextlib.contextmanager
    def installed(self) -> Iterator[Stop]:
        """Record SIGTERM and SIGINT for the duration; outside the main thread, nothing."""
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        previous = {s: signal.signal(s, self._handler) for s in SIGNALS}
        self._handling = True
        try:
            yield self
        finally:
            self._handling = False
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    @contextlib.asynccontextmanager
    async def watching(self) -> AsyncIterator[None]:
        """While the loop runs, the loop handles the signals, and `cut` is set once the runs
        in flight must go (the grace is over, or a second signal came)."""
        loop = asyncio.get_running_loop()
        cut = self._cut = asyncio.Event()
        timer: list[asyncio.TimerHandle] = []

        def on_signal() -> None:
            if self.count > 1:
                cut.set()
            elif not timer:
                timer.append(loop.call_later(self.grace_s, cut.set))

        added = []
        for sig in SIGNALS:
            # Only the main thread's loop can; elsewhere the signal keeps its handling.
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, self.note, sig)
                added.append(sig)
        self._listeners.append(on_signal)
        if self.requested:
            on_signal()
        try:
            yield
        finally:
            self._listeners.remove(on_signal)
            self._cut = None
            for handle in timer:
                handle.cancel()
            for sig in added:
                loop.remove_signal_handler(sig)  # which resets it to the default: ours again
                if self._handling:
                    signal.signal(sig, self._handler)

    async def cut(self) -> None:
        """Return once the runs in flight must be cut; never, outside `watching`."""
        if self._cut is None:
            await asyncio.Future()  # cancelled by the caller, never resolved
        else:
            await self._cut.wait()

    def wait(self, call: Callable[[], T], *, limit: float | None = None) -> Waited[T]:
        """`call()` in a daemon thread, waited for until it returns, `limit` seconds pass, or
        `SETTLE_S` after a new signal (at once after two). Given up on, it is left to end or
        stall on its own: the process does not wait for it at exit."""
        result: Waited[T] = Waited()
        failure: list[BaseException] = []
        finished = threading.Event()

        def target() -> None:
            try:
                result.value = call()
                result.done = True
            except BaseException as exc:  # handed to the caller below
                failure.append(exc)
            finally:
                finished.set()

        seen = self.count
        thread = threading.Thread(target=target, name="evolve-publish", daemon=True)
        thread.start()
        end = None if limit is None else time.monotonic() + limit
        settling = False
        # Short waits: the main thread runs signal handlers only between them.
        while not finished.wait(POLL_S):
            now = time.monotonic()
            if self.count > seen + 1:
                return Waited()
            if self.count > seen and not settling:
                settling = True
                end = min(end, now + SETTLE_S) if end is not None else now + SETTLE_S
            if end is not None and now >= end:
                return Waited()
        if failure:
            raise failure[0]
        return result
