"""Spawning one confined process: concurrent capped capture, and killing its whole group.

`sandbox.Confinement` decides *what* runs (argv, env, cwd, bubblewrap or not); this module
only runs it. The process starts in a new session so that it and everything it forks share
one process group, which is what we signal at the timeout and again once the command is over
(background jobs never outlive their command). Output is read concurrently from both pipes
into bounded buffers: past the cap we keep reading and discarding, so a `yes` flood neither
fills memory nor blocks the writer forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evolve_action.model.outcomes import CommandResult

_CHUNK = 1 << 16
# After the command ended, how long its pipes may stay open: a process that escaped the
# group (it called setsid itself) would otherwise keep our readers waiting forever.
_READER_GRACE_S = 2.0
_POLL_S = 0.02


@dataclass
class _Capture:
    """Bytes kept from one pipe (at most `cap`) and how many were seen in all."""

    cap: int
    kept: bytearray = field(default_factory=bytearray)
    seen: int = 0

    def add(self, chunk: bytes) -> None:
        self.seen += len(chunk)
        room = self.cap - len(self.kept)
        if room > 0:
            self.kept += chunk[:room]

    @property
    def truncated(self) -> bool:
        return self.seen > len(self.kept)

    def text(self) -> str:
        out = self.kept.decode("utf-8", errors="replace")
        if self.truncated:
            out += (
                f"\n[output truncated after {len(self.kept)} bytes; "
                f"{self.seen} bytes were produced]"
            )
        return out


async def _pump(stream: asyncio.StreamReader | None, capture: _Capture) -> None:
    if stream is None:
        return
    while chunk := await stream.read(_CHUNK):
        capture.add(chunk)


async def _feed(stdin: asyncio.StreamWriter | None, data: bytes) -> None:
    if stdin is None:
        return
    # A command that exits without reading its input closes the pipe; that is not our error.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.write(data)
        await stdin.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.close()


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def _exited(proc: asyncio.subprocess.Process) -> None:
    """Until the process itself exits. `proc.wait()` would also wait for every pipe to close,
    which a background job holding stdout delays until the timeout; the return code is set
    as soon as the child watcher reaps the process, so poll that instead."""
    while proc.returncode is None:
        await asyncio.sleep(_POLL_S)


async def _terminate(proc: asyncio.subprocess.Process, grace_s: float) -> None:
    """SIGTERM to the group, then SIGKILL whatever is still alive after `grace_s`."""
    _signal_group(proc.pid, signal.SIGTERM)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(_exited(proc), grace_s)
    _signal_group(proc.pid, signal.SIGKILL)
    await _exited(proc)


async def _start(
    argv: Sequence[str], *, cwd: Path, env: dict[str, str], stdin: int
) -> asyncio.subprocess.Process:
    """The process, started whole even when the caller is cancelled meanwhile. asyncio forks
    first and connects the pipes after; a cancellation in between makes it kill only the
    direct child and then wait for the pipes to close, which a background job of that child
    holds open for as long as it lives (a stopped job would hang on it). So the start is
    shielded, and on cancellation the new process group is killed once it exists."""
    starting = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=env,
            stdin=stdin,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    )
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):  # it could not start: nothing to kill
            proc = await starting
            _signal_group(proc.pid, signal.SIGKILL)
            await _exited(proc)
        raise


async def spawn(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: dict[str, str],
    timeout_s: float,
    stdin: str | None,
    output_cap: int,
    kill_grace_s: float = 2.0,
) -> CommandResult:
    """Run `argv` to completion or to its timeout; never raises for a command's failure."""
    started = time.monotonic()
    try:
        proc = await _start(
            argv,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        )
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return CommandResult(
            -1, "", "", error=f"could not start {argv[0]!r}: {reason}", duration_s=0.0
        )
    out, err = _Capture(output_cap), _Capture(output_cap)
    readers = {
        asyncio.ensure_future(_pump(proc.stdout, out)),
        asyncio.ensure_future(_pump(proc.stderr, err)),
    }
    feeder = asyncio.ensure_future(_feed(proc.stdin, (stdin or "").encode("utf-8")))
    timed_out = False
    try:
        await asyncio.wait_for(_exited(proc), max(timeout_s, 0.0))
    except TimeoutError:
        timed_out = True
        await _terminate(proc, kill_grace_s)
    except BaseException:  # cancelled: nothing of ours may outlive the run
        _signal_group(proc.pid, signal.SIGKILL)
        for task in (*readers, feeder):
            task.cancel()
        raise
    # Background jobs die with their command: no process outlives the call that started it.
    _signal_group(proc.pid, signal.SIGKILL)
    _, pending = await asyncio.wait(readers | {feeder}, timeout=_READER_GRACE_S)
    for task in pending:
        task.cancel()
    if not pending:
        await proc.wait()  # the pipes are closed, so this only lets asyncio finish cleanly
    return CommandResult(
        exit_code=-1 if timed_out else int(proc.returncode or 0),
        stdout=out.text(),
        stderr=err.text(),
        timed_out=timed_out,
        truncated=out.truncated or err.truncated,
        duration_s=time.monotonic() - started,
    )
