"""No shared writable place at the unprivileged-user level, and a home for the runs.

Without namespaces every run sees the same filesystem. Its workspace is its own (0700, its
own user), but `/tmp`, `/var/tmp`, `/dev/shm` and any other world-writable directory would
be shared by every run of the job: a head run could leave a file that a later base run reads
(the runs are then not independent, which the verdict assumes), or plant a file or link
where a root process writes. So, before the first command runs as a pool user, each such
directory gets an ACL entry that refuses the sandbox group everything (`sandbox_acl`), as
`/github` is closed to it. Root and every other user keep their access, so nothing else on
the machine notices; the entry is left in place afterwards, since concurrent jobs share the
directories and it only ever concerns our own pool users. A run's temporary files go to its
own `TMPDIR`, inside its workspace.

Where the filesystem keeps no ACLs, inside a container of our own (GitHub's container
action) the directory's "other" bits are cleared instead; elsewhere the directory stays open
and `probe_user` refuses the level, naming it.

The workspaces themselves therefore cannot live in the system temporary directory at this
level: `runs_dir` gives a root-owned directory that the pool users may search but not list,
whatever `TMPDIR` says.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from evolve_action.execute.sandbox import acl as sandbox_acl
from evolve_action.execute.sandbox.drop import SANDBOX_GID

# The usual shared places, looked at whatever the scan finds; symlinks among them (/var/lock)
# are followed to their directory.
KNOWN = ("/tmp", "/var/tmp", "/dev/shm", "/run/shm", "/run/lock", "/var/lock", "/dev/mqueue")
# The scan goes this deep below /: deep enough for every distribution's shared directories,
# cheap on any tree (tens of milliseconds; a full walk of a developer's disk takes seconds).
SCAN_DEPTH = 3
_NOT_FILES = ("/proc", "/sys", "/dev/pts")
RUNS_ROOT = Path("/var/lib/evolve-action/runs")
_CONTAINER_MARKS = (Path("/.dockerenv"), Path("/run/.containerenv"))


def world_writable(
    known: Iterable[str] = KNOWN, top: Path = Path("/"), depth: int = SCAN_DEPTH
) -> list[Path]:
    """World-writable directories among `known` and up to `depth` levels below `top`; below
    one found nothing is looked at (closing it closes what it holds)."""
    found: dict[Path, None] = {}
    for name in known:
        with contextlib.suppress(OSError, RuntimeError):
            path = Path(name).resolve(strict=True)
            if _open_to_all(path.stat()):
                found[path] = None
    level = [top]
    for _ in range(depth):
        below = []
        for directory in level:
            for entry in _subdirectories(directory):
                if any(entry.is_relative_to(f) for f in found):
                    continue
                try:
                    info = os.lstat(entry)
                except OSError:
                    continue
                if _open_to_all(info):
                    found[entry] = None
                elif info.st_mode & stat.S_IXOTH:  # a pool user can go below: look there too
                    below.append(entry)
        level = below
    return list(found)


def _open_to_all(info: os.stat_result) -> bool:
    return stat.S_ISDIR(info.st_mode) and bool(info.st_mode & stat.S_IWOTH)


def _subdirectories(directory: Path) -> list[Path]:
    if str(directory) in _NOT_FILES:
        return []
    try:
        with os.scandir(directory) as entries:
            return [
                Path(e.path)
                for e in entries
                if e.is_dir(follow_symlinks=False) and e.path not in _NOT_FILES
            ]
    except OSError:
        return []


def close_shared_dirs(directories: Iterable[Path] | None = None) -> list[str]:
    """Close every world-writable directory to the sandbox users; returns what stays open,
    each as a sentence for `probe_user`'s refusal."""
    still_open = []
    for directory in world_writable() if directories is None else directories:
        why = sandbox_acl.deny_group(directory, SANDBOX_GID)
        if why is None:
            continue
        if in_own_container() and _close_to_others(directory):
            continue
        still_open.append(
            f"{directory} is writable by every user and cannot be closed to the sandbox "
            f"users ({why}), so runs could share files through it"
        )
    return still_open


def in_own_container() -> bool:
    """Whether this process runs in a container (Docker's or podman's marker file), whose
    shared directories no other user's process needs."""
    return any(mark.exists() for mark in _CONTAINER_MARKS)


def _close_to_others(directory: Path) -> bool:
    try:
        info = os.lstat(directory)
        if not stat.S_ISDIR(info.st_mode):
            return False
        directory.chmod(stat.S_IMODE(info.st_mode) & ~0o007, follow_symlinks=False)
    except OSError:
        return False
    return True


def runs_dir() -> Path | None:
    """Where workspaces are made: as root, `RUNS_ROOT` (root's, mode 0711: a pool user can
    reach its own workspace there but list nothing); otherwise, or when that place cannot be
    made safely, None, for the system's temporary directory."""
    if os.geteuid() != 0:
        return None
    try:
        RUNS_ROOT.mkdir(mode=0o711, parents=True, exist_ok=True)
        info = RUNS_ROOT.lstat()
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0:
            return None
        RUNS_ROOT.chmod(0o711)
        for parent in RUNS_ROOT.parents:
            seen = parent.lstat()
            if seen.st_uid != 0 or seen.st_mode & 0o022 or not seen.st_mode & stat.S_IXOTH:
                return None  # someone else could swap it, or the users could not pass
    except OSError:
        return None
    return RUNS_ROOT
