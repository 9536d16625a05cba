"""The courier's process, started with nothing imported but `os` and `sys`.

The courier (`courier.py`) is on the first call's critical path: a short job's own process
has its first call ready before the courier has imported the SDK, so every millisecond the
courier starts later is a millisecond later for that call. Starting it with `subprocess`
meant importing `subprocess` (and with `courier.py`, `json`, `dataclasses` and the provider
table) first: about 30 ms on the runner before the child even existed. Here the entry point
(`commands/cli.py`) spawns it with `os.posix_spawn` before importing anything of its own,
and `courier.adopt` takes the `Child` over once the job's process has the modules to serve it.

What the child gets is what `subprocess.Popen(..., stdin=PIPE, stdout=PIPE,
stderr=DEVNULL)` gave it: this process's environment, a pipe on each of standard input and
output, /dev/null for errors, and no other file descriptor (ours are close-on-exec, and any
this process inherited open is closed in the child, as Popen's `close_fds` does). Where
`posix_spawn` does not exist (Windows), there is no courier, and the job sends its own calls.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # `typing` itself is a few milliseconds this module must not cost
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import BinaryIO

SWITCH = "EVOLVE_COURIER"  # "0" turns it off
# `-c` rather than `-m`: `-m` imports `runpy` first (about 5 ms on the runner).
_PROGRAM = (
    "import sys; from evolve_action.execute.providers.courier_process import main; "
    "main(sys.argv[1:])"
)


class Child:
    """The courier's process: its id and the two pipes; `poll`, `wait` and `kill` as
    `subprocess.Popen`'s, for the one child they are needed for."""

    def __init__(self, pid: int, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self.pid = pid
        self.stdin = stdin
        self.stdout = stdout
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """The exit status if the process has ended (reaping it), else None."""
        return self._reap(os.WNOHANG)

    def wait(self) -> int:
        """Wait for the process to end; its exit status."""
        code = self._reap(0)
        assert code is not None
        return code

    def kill(self) -> None:
        if self.returncode is None:
            import contextlib

            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, 9)  # SIGKILL: `signal` is not imported for one number

    def _reap(self, flags: int) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, flags)
            except ChildProcessError:  # reaped already (another thread's wait)
                pid, status = self.pid, 0
            if pid == self.pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode


def spawn(environ: Mapping[str, str]) -> Child | None:
    """Start the courier's process if it can help here (two cores or more, not turned off
    with `EVOLVE_COURIER=0`, `posix_spawn` available); None if not, or if it failed to start."""
    if environ.get(SWITCH, "").strip() == "0" or cores() < 2 or not hasattr(os, "posix_spawn"):
        return None
    to_child, from_child = os.pipe(), os.pipe()  # close-on-exec (PEP 446): the child's
    actions: list[tuple[object, ...]] = [  # are made by dup2, which clears it
        (os.POSIX_SPAWN_DUP2, to_child[0], 0),
        (os.POSIX_SPAWN_DUP2, from_child[1], 1),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
        *((os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited_fds()),
    ]
    argv = [sys.executable, "-c", _PROGRAM]
    try:
        pid = os.posix_spawn(sys.executable, argv, os.environ, file_actions=actions)
    except OSError:
        for fd in (*to_child, *from_child):
            os.close(fd)
        return None
    os.close(to_child[0])
    os.close(from_child[1])
    return Child(pid, open(to_child[1], "wb"), open(from_child[0], "rb"))


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _inherited_fds() -> list[int]:
    """Descriptors above the standard three that this process inherited open across exec
    (ours never are): the child should not hold them, as Popen's `close_fds` ensures."""
    try:
        names = os.listdir("/proc/self/fd")  # noqa: PTH208 (pathlib: 5 ms of imports)
    except OSError:  # no /proc (macOS): what Popen would close is not known cheaply
        return []
    fds = []
    for name in names:
        fd = int(name)
        try:
            if fd > 2 and os.get_inheritable(fd):
                fds.append(fd)
        except OSError:  # the directory's own descriptor, closed by now
            continue
    return fds


def whole_lines(tail: bytearray, chunk: bytes) -> list[bytes]:
    """The lines `chunk` completes, without their newlines, on either end of the pipes (one
    JSON message a line); the rest stays in `tail` for the next chunk. A long line that
    comes in many chunks is copied once, not once a chunk."""
    end = chunk.rfind(b"\n")
    if end < 0:
        tail += chunk
        return []
    lines = (bytes(tail) + chunk[:end]).split(b"\n")
    tail[:] = chunk[end + 1 :]
    return lines
