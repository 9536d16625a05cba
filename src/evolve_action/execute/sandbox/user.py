"""Confinement without namespaces: each run's commands as their own unprivileged user.

Where bubblewrap cannot start but we are root (GitHub's container actions: Docker's seccomp
profile refuses user namespaces), a run borrows a user id from a pool (`POOL_FIRST`, …):

- the workspace is handed over to that user (`hand_over`), whose directory it alone can
  enter; HOME and TMPDIR are inside it; its parents need only be searchable;
- every command starts through `sandbox_drop.py`: no groups, that uid, `no_new_privs`,
  resource limits, then the command;
- after each command every process of that user is killed (`kill_all`), so nothing runs
  while our own (root) file tools and checks read the workspace, and nothing outlives a run;
- one user per run, locked across processes with `flock`, so a hostile run can neither
  touch another run's workspace (the base side's, say) nor signal its processes.

What such a user can reach is checked first (`exposures`): where it could connect to a
container daemon's socket, write the runner's file commands or the checkout, the level is
refused, since it would not hold. `/github`, a directory of our own container, is closed to
others (mode 0700) before that: no checkout, event file or file command is even readable.
The world-writable directories (`/tmp`, `/var/tmp`, `/dev/shm`, ...) are closed to the pool
users too (`sandbox_shared`), so no run can leave a file for another; one that cannot be
closed refuses the level. Access is judged with the ACLs (`sandbox_acl`), not the mode bits
alone. The network is not isolated at this level; the comment says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import os
import pwd
import stat
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from evolve_action.execute.sandbox import acl as sandbox_acl
from evolve_action.execute.sandbox import drop as sandbox_drop
from evolve_action.execute.sandbox import shared as sandbox_shared
from evolve_action.execute.sandbox.drop import SANDBOX_GID

POOL_FIRST = 50_000
POOL_SIZE = 256
GITHUB_MOUNTS = Path("/github")
DAEMON_SOCKETS = (
    "/var/run/docker.sock",
    "/run/docker.sock",
    "/run/podman/podman.sock",
    "/run/containerd/containerd.sock",
)
_LOCK_DIRS = (Path("/run/evolve-action"), Path("/var/tmp/evolve-action-users"))
_HELPER = Path(sandbox_drop.__file__).resolve()
_WAIT_S = 0.05


@dataclass(frozen=True)
class UserStatus:
    works: bool
    reason: str = ""  # why it does not work


def add_pool_users(etc: Path = Path("/etc")) -> int:
    """Name the pool's users and groups (`evolve-NNN`) in passwd and group; the image does
    this once at build time. Unnamed uids work too, but some programs (node's
    `os.userInfo()`, `whoami`) fail without a name. Returns how many users were added."""
    passwd, group = etc / "passwd", etc / "group"
    known = {line.split(":")[2] for line in passwd.read_text().splitlines() if line.count(":") >= 6}
    new = [uid for uid in range(POOL_FIRST, POOL_FIRST + POOL_SIZE) if str(uid) not in known]
    names = {uid: f"evolve-{uid - POOL_FIRST:03d}" for uid in new}
    with passwd.open("a") as out:
        out.writelines(
            f"{names[u]}:x:{u}:{u}:evolve sandbox:/nonexistent:/usr/sbin/nologin\n" for u in new
        )
    groups = {line.split(":")[2] for line in group.read_text().splitlines() if line.count(":") >= 3}
    with group.open("a") as out:
        if str(SANDBOX_GID) not in groups:
            out.write(f"evolve-sandbox:x:{SANDBOX_GID}:\n")
        out.writelines(f"{names[u]}:x:{u}:\n" for u in new)
    return len(new)


def helper_argv(uid: int, *rest: str) -> list[str]:
    """The dropper's command line; `-I -S`: no environment, no site, nothing of the venv."""
    return [sys.executable, "-I", "-S", str(_HELPER), "--uid", str(uid), *rest]


def daemon_sockets(environ: Mapping[str, str]) -> list[Path]:
    """Container daemons' sockets: whoever connects to one controls the host."""
    paths = [Path(p) for p in DAEMON_SOCKETS]
    host = environ.get("DOCKER_HOST", "")
    if host.startswith("unix://"):
        paths.append(Path(host.removeprefix("unix://")))
    runtime = environ.get("XDG_RUNTIME_DIR", "")
    if runtime.startswith("/"):
        paths += [Path(runtime) / "docker.sock", Path(runtime) / "podman" / "podman.sock"]
    return paths


def runner_paths(environ: Mapping[str, str]) -> list[Path]:
    """What the Actions runner hands to a step: its file commands and the checkout."""
    names = ("GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY")
    paths = [Path(environ[n]) for n in names if environ.get(n, "").startswith("/")]
    paths += [GITHUB_MOUNTS / "file_commands", GITHUB_MOUNTS / "workspace"]
    if environ.get("GITHUB_WORKSPACE", "").startswith("/"):
        paths.append(Path(environ["GITHUB_WORKSPACE"]))
    return paths


def allows(uid: int, path: Path, want: int) -> bool:
    """Whether pool user `uid` (groups `uid` and `SANDBOX_GID`) may search every parent of
    `path` and use it with `want` (`os.W_OK`, `os.R_OK`), by its mode bits and ACLs."""
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return False
    # The path as written and as resolved: the kernel walks both when it follows a link.
    passed = dict.fromkeys([*path.absolute().parents, *real.parents])
    return all(_grants(p, uid, os.X_OK) for p in passed) and _grants(real, uid, want)


def _grants(path: Path, uid: int, want: int) -> bool:
    # Through a link the kernel checks the directory it leads to: its mode and its ACL.
    try:
        info = path.stat()
    except OSError:
        return False
    acl = sandbox_acl.read(path, follow_symlinks=True)
    return sandbox_acl.grants(info, acl, uid, (uid, SANDBOX_GID), want)


def exposures(uid: int, environ: Mapping[str, str]) -> list[str]:
    """What `uid` could reach that no PR code may: a daemon socket, runner files for writing."""
    found = [
        f"the container daemon's socket {p} accepts connections from every user"
        for p in daemon_sockets(environ)
        if p.exists() and allows(uid, p, os.W_OK)
    ]
    seen: set[Path] = set()
    for path in runner_paths(environ):
        if path in seen or not path.exists():
            continue
        seen.add(path)
        writable = allows(uid, path, os.W_OK)
        if path.is_dir():
            writable = writable or any(allows(uid, f, os.W_OK) for f in _files(path))
        if writable:
            found.append(f"{path} is writable by every user")
    return found


def _files(directory: Path) -> Iterable[Path]:
    with contextlib.suppress(OSError):
        yield from (p for p in directory.iterdir() if p.is_file())


def close_github_mounts() -> None:
    """Make `/github` enterable by root alone. It is a directory of this container (the
    runner mounts its folders below it), so this changes nothing for the runner or for
    later steps, and the checkout, file commands and event file vanish for other users."""
    try:
        info = GITHUB_MOUNTS.lstat()
    except OSError:
        return
    if stat.S_ISDIR(info.st_mode) and info.st_uid == 0 and info.st_mode & 0o077:
        with contextlib.suppress(OSError):
            GITHUB_MOUNTS.chmod(0o700)


@functools.cache
def probe_user() -> UserStatus:
    """Whether commands can run as a pool user here, and what makes that level fail."""
    if not sys.platform.startswith("linux"):
        return UserStatus(False, "switching users is only done on Linux")
    if os.geteuid() != 0:
        return UserStatus(False, "the process is not root, so it cannot switch to another user")
    try:
        done = subprocess.run(
            helper_argv(POOL_FIRST, "--check"), capture_output=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return UserStatus(False, f"the user-switching helper failed to run: {exc}")
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = detail[-1].removeprefix(sandbox_drop.MARKER).strip() if detail else ""
        return UserStatus(False, why or f"the user-switching helper exited {done.returncode}")
    close_github_mounts()
    found = sandbox_shared.close_shared_dirs() + exposures(POOL_FIRST, os.environ)
    if found:
        return UserStatus(False, "; ".join(found))
    return UserStatus(True)


class UserLease:
    """One pool user, held (by `flock`) from `acquire` to `release`, across processes."""

    def __init__(self, uid: int, handle: int) -> None:
        self.uid = uid
        self._handle: int | None = handle

    def release(self) -> None:
        if self._handle is not None:
            os.close(self._handle)  # closing the file drops the lock
            self._handle = None

    def __del__(self) -> None:  # a confinement nobody released must not hold its user forever
        self.release()


def _lock_dir() -> Path:
    for directory in _LOCK_DIRS:
        with contextlib.suppress(OSError):
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            info = directory.lstat()
            if stat.S_ISDIR(info.st_mode) and info.st_uid == 0 and not info.st_mode & 0o022:
                return directory
    raise OSError("no private directory for the sandbox users' locks (/run or /var/tmp)")


def _taken_by_someone(uid: int) -> bool:
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        return False
    return not name.startswith("evolve")  # ours are named evolve-NNN in the image


def try_acquire() -> UserLease | None:
    directory = _lock_dir()
    for uid in range(POOL_FIRST, POOL_FIRST + POOL_SIZE):
        if _taken_by_someone(uid):
            continue
        handle = os.open(directory / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(handle)
            continue
        return UserLease(uid, handle)
    return None


async def acquire(deadline: float) -> UserLease:
    """A free pool user; waits while all are busy, until `deadline` (a monotonic time)."""
    while True:
        lease = await asyncio.to_thread(try_acquire)
        if lease is not None:
            # A process left over by a crashed holder must not meet the next run.
            await kill_all(lease.uid)
            return lease
        if time.monotonic() >= deadline:
            raise OSError(f"all {POOL_SIZE} sandbox users are busy; lower max-concurrency")
        await asyncio.sleep(_WAIT_S)


async def kill_all(uid: int) -> None:
    """SIGKILL every process of `uid`: atomic in the kernel, so no fork can slip through."""
    proc = await asyncio.create_subprocess_exec(
        *helper_argv(uid, "--kill"),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
        env={},
    )
    await proc.wait()


def unreachable_parent(root: Path, uid: int) -> Path | None:
    """The first parent of `root` that `uid` cannot search, if any."""
    for parent in reversed(root.parents):
        if not _grants(parent, uid, os.X_OK):
            return parent
    return None


def hand_over(root: Path, uid: int) -> None:
    """Give the workspace to `uid`: everything in it becomes its own, and only it (and root)
    can enter it. Files we wrote since (the file tools run as root) are taken over too.

    Links are never followed; a file with several hard links is skipped, since changing its
    owner would change the owner of its other names too, which may be anywhere."""
    os.chown(root, uid, uid, follow_symlinks=False)
    root.chmod(0o700)
    for current, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            path = Path(current, name)
            try:
                info = os.lstat(path)
                if info.st_uid == uid and info.st_gid == uid:
                    continue
                if not stat.S_ISDIR(info.st_mode) and info.st_nlink > 1:
                    continue
                os.chown(path, uid, uid, follow_symlinks=False)
            except OSError:
                continue  # vanished meanwhile, or not ours to give


def unlink_hard_links(root: Path) -> list[str]:
    """Remove every name in the workspace of a file that has other names, and return them
    (workspace-relative). Without namespaces (and on a kernel without protected hard links)
    a command can link a file from anywhere on the same filesystem into its workspace; our
    file tools and checks run as root and would read or write that file through the link."""
    removed = []
    for current, _dirs, files in os.walk(root):
        for name in files:
            path = Path(current, name)
            try:
                if path.lstat().st_nlink > 1:
                    path.unlink()
                    removed.append(path.relative_to(root).as_posix())
            except OSError:
                continue
    return sorted(removed)


def wrap(uid: int, argv: Sequence[str]) -> list[str]:
    return helper_argv(uid, "--", *argv)
