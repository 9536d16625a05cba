"""Become an unprivileged user, then exec a command: the last step before PR code runs.

Started by root as `python -I -S sandbox_drop.py --uid N [--check | --kill | -- ARGV...]`
(see `sandbox_user`); it imports nothing from the package, so it starts in milliseconds and
works from any install. In order: no supplementary groups, gid, uid (real, effective and
saved), `no_new_privs` (no setuid binary can give the privileges back), resource limits,
then `execvp`. It refuses to go on if root can be regained.

    --check   drop, verify, exit 0: can this process switch users at all?
    --kill    drop, then SIGKILL every process of that user (`kill(-1)` as that user), so
              nothing a command started outlives it, even after `setsid` or a double fork
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import sys

_PR_SET_NO_NEW_PRIVS = 38
EXEC_FAILED = 127
MARKER = "evolve-sandbox:"  # stderr prefix of our own failures, which the caller recognises
# Per-user limits: a fork bomb, a core dump or a runaway file stops at these. No address
# space limit: JIT runtimes (node, the agent CLIs) reserve far more than they use.
LIMITS = (
    (resource.RLIMIT_CORE, 0),
    (resource.RLIMIT_NPROC, 2048),
    (resource.RLIMIT_FSIZE, 4 << 30),
)


def _fail(message: str, code: int = EXEC_FAILED) -> None:
    sys.stderr.write(f"{MARKER} {message}\n")
    sys.stderr.flush()
    os._exit(code)


def _no_new_privs() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        _fail(f"prctl(PR_SET_NO_NEW_PRIVS) failed: {os.strerror(ctypes.get_errno())}")


def _limit() -> None:
    for kind, value in LIMITS:
        _soft, hard = resource.getrlimit(kind)
        cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(kind, (cap, cap))


def drop(uid: int) -> None:
    """Become `uid` (group `uid`, no other group) for good, or exit."""
    try:
        _limit()
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    except (OSError, ValueError) as exc:
        _fail(f"cannot switch to user {uid}: {exc}")
    _no_new_privs()
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (uid, uid, uid) or os.getgroups():
        _fail(f"switching to user {uid} did not take effect")
    try:
        os.setuid(0)
    except PermissionError:
        return
    _fail("root could be regained after switching users; refusing to run anything")


def main(args: list[str]) -> None:
    if len(args) < 3 or args[0] != "--uid" or not args[1].isdigit() or int(args[1]) == 0:
        _fail("usage: sandbox_drop.py --uid N (--check | --kill | -- ARGV...)", 2)
    uid, what, argv = int(args[1]), args[2], args[3:]
    drop(uid)
    if what == "--check":
        os._exit(0)
    if what == "--kill":
        # The caller is `uid` now: -1 reaches exactly that user's processes, never this one.
        with contextlib.suppress(ProcessLookupError):  # nothing was left
            os.kill(-1, signal.SIGKILL)
        os._exit(0)
    if what != "--" or not argv:
        _fail("nothing to run", 2)
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        _fail(f"could not start {argv[0]!r}: {exc.strerror or exc}")


if __name__ == "__main__":
    main(sys.argv[1:])
