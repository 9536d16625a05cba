"""Run a command as an unprivileged user, and bury everything it started (`sandbox_user`).

Started by root as `python -I -S sandbox_drop.py --uid N (-- ARGV... | --check | --kill)`;
it imports nothing from the package, so it starts in milliseconds from any install.

With `-- ARGV`, this process stays root and becomes the command's reaper: a child drops to
the user (its one supplementary group `SANDBOX_GID`, gid and uid, `no_new_privs` so no
setuid binary gives privileges back, resource limits) and execs the command. Whatever the
command leaves behind, even after `setsid` or a double fork, is re-parented here rather than
to PID 1 (which is us, in a container, and would never reap it), and is killed and reaped
when the command ends or when we get SIGTERM. Being root, this process cannot be signalled
by the commands it watches. The exit status is the command's (a signal is passed on as that signal).

    --check   a child drops and verifies, then exits: can this process switch users at all?
    --kill    drop, then SIGKILL every process of that user (`kill(-1)` as that user)
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import sys

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_CHILD_SUBREAPER = 36
EXEC_FAILED = 127
# The one supplementary group of every pool user. Nothing grants it anything: the shared
# world-writable directories carry an ACL entry that refuses it (`sandbox_shared`), so they
# are closed to the sandbox users and to no one else. A process cannot leave a group
# without CAP_SETGID, which the user has lost by then.
SANDBOX_GID = 49_999
MARKER = "evolve-sandbox:"  # stderr prefix of our own failures, which the caller recognises
# Per-user limits: a fork bomb, a core dump or a runaway file stops at these. No address
# space limit: JIT runtimes (node, the agent CLIs) reserve far more than they use.
LIMITS = (
    (resource.RLIMIT_CORE, 0),
    (resource.RLIMIT_NPROC, 2048),
    (resource.RLIMIT_FSIZE, 4 << 30),
)


def _fail(message: str, code: int = EXEC_FAILED) -> None:
    with contextlib.suppress(OSError):
        os.write(2, f"{MARKER} {message}\n".encode())
    os._exit(code)


def _prctl(option: int, value: int) -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.prctl(option, value, 0, 0, 0)) == 0


def drop(uid: int) -> None:
    """Become `uid` (group `uid`, and `SANDBOX_GID` as its only other group) for good, or
    exit."""
    try:
        for kind, value in LIMITS:
            hard = resource.getrlimit(kind)[1]
            cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(kind, (cap, cap))
        os.setgroups([SANDBOX_GID])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    except (OSError, ValueError) as exc:
        _fail(f"cannot switch to user {uid}: {exc}")
    if not _prctl(_PR_SET_NO_NEW_PRIVS, 1):
        _fail(f"prctl(PR_SET_NO_NEW_PRIVS) failed: {os.strerror(ctypes.get_errno())}")
    dropped = os.getresuid() == (uid, uid, uid) and os.getresgid() == (uid, uid, uid)
    if not dropped or os.getgroups() != [SANDBOX_GID]:
        _fail(f"switching to user {uid} did not take effect")
    try:
        os.setuid(0)
    except PermissionError:
        return
    _fail("root could be regained after switching users; refusing to run anything")


def kill_user(uid: int) -> None:
    """SIGKILL every process of `uid`, from a child that becomes `uid`: as that user, -1
    reaches exactly its processes (never the caller), atomically, so no fork slips by."""
    pid = os.fork()
    if pid == 0:
        drop(uid)
        with contextlib.suppress(ProcessLookupError):  # nothing was left
            os.kill(-1, signal.SIGKILL)
        os._exit(0)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _reap_all() -> None:
    with contextlib.suppress(ChildProcessError):
        while True:
            os.wait()


def _exec(argv: list[str]) -> None:
    """`execvp` without its lazy imports: once we are the user, the interpreter's own
    library may be out of reach (a Python under /root, say), so nothing may be imported."""
    name = argv[0]
    paths = os.environ.get("PATH", os.defpath).split(os.pathsep)
    candidates = [name] if "/" in name else [f"{d or '.'}/{name}" for d in paths]
    first: OSError | None = None
    for candidate in candidates:
        try:
            os.execv(candidate, argv)
        except OSError as exc:
            # Like execvp: a program found but not allowed says more than "not found".
            if first is None or isinstance(first, FileNotFoundError):
                first = exc
    raise first or FileNotFoundError(2, "No such file or directory")


def _start(uid: int, argv: list[str]) -> int:
    pid = os.fork()
    if pid == 0:
        try:
            drop(uid)
            _exec(argv)
        except OSError as exc:
            _fail(f"could not start {argv[0]!r}: {exc.strerror or exc}")
        except BaseException as exc:  # never a traceback from the child
            _fail(f"could not start {argv[0]!r}: {type(exc).__name__}")
    return pid


def supervise(uid: int, argv: list[str]) -> None:
    """Run `argv` as `uid`; when it ends (or we are told to stop), kill and reap the rest."""
    if not _prctl(_PR_SET_CHILD_SUBREAPER, 1):
        _fail("prctl(PR_SET_CHILD_SUBREAPER) failed")

    def stop(signum: int, _frame: object) -> None:
        kill_user(uid)
        _reap_all()
        os._exit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop)
    child = _start(uid, argv)
    # The command has the pipes now; holding them here would delay their end of file.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    status = 0
    with contextlib.suppress(ChildProcessError):
        while True:
            pid, status = os.wait()
            if pid == child:
                break
    kill_user(uid)
    _reap_all()
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def main(args: list[str]) -> None:
    if len(args) < 3 or args[0] != "--uid" or not args[1].isdigit() or int(args[1]) == 0:
        _fail("usage: sandbox_drop.py --uid N (--check | --kill | -- ARGV...)", 2)
    uid, what, argv = int(args[1]), args[2], args[3:]
    if what == "--check":
        pid = os.fork()
        if pid == 0:
            drop(uid)
            os._exit(0)
        os._exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
    if what == "--kill":
        kill_user(uid)
        os._exit(0)
    if what != "--" or not argv:
        _fail("nothing to run", 2)
    supervise(uid, argv)


if __name__ == "__main__":
    main(sys.argv[1:])
