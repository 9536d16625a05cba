"""Putting the agent CLIs where the confined CLI can start them and cannot change them.

The pinned CLIs are installed into the cache directory, so that a cached job downloads
nothing. In GitHub's container that directory is in the checkout, under /github, which the
user level closes to the sandbox users and bubblewrap masks: a CLI there could not even
start, and every run would end as a `harness` error. A CLI found on PATH may sit in /root.

`for_confinement` checks each CLI against the level this job's commands get:

- unprivileged user: a sandbox user must be able to search every parent and read and run
  the binary, and no sandbox user may change the CLI: nothing in its package, nor a parent
  it could rename it out of, is writable by one (mode bits; owner, group, other). A CLI the
  run can change is a CLI the next run (the other side's, say) starts changed.
- bubblewrap: no mask (/github, the checkout, …) and no directory the sandbox makes its own
  (a private /tmp) may cover it. Everything else is read-only in there anyway.

An installed CLI that fails is copied (its native package only: the binary and the files
beside it) into the staging directory, `/var/lib/evolve-action/clis/<lock digest>` when we
are root: /var/lib and its parents are root's alone, so no other user can make, swap or
squat that path (unlike /tmp or /var/tmp); bubblewrap shows /var as it is (its /tmp is a
private one); it is outside /github and outside every run's workspace; and keyed by the lock,
a copy made earlier on the same machine is checked and reused, never mixed with another pin.
On GitHub every job has a fresh container, so that is one copy per job. The copy is checked
like any CLI before it is used. A CLI on PATH is never copied: it may need files beside it.
"""

from __future__ import annotations

import itertools
import logging
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from evolve_action.execute.harness.install import (
    STAMP,
    CliBinary,
    clis,
    installed,
    lock_digest,
    locked,
    this_platform,
    user_cache,
)
from evolve_action.execute.sandbox.bwrap import masked
from evolve_action.execute.sandbox.confine import Level, default_hidden, job_level
from evolve_action.execute.sandbox.user import POOL_FIRST, POOL_SIZE, allows, unreachable_parent
from evolve_action.util.files import readable_by_all

log = logging.getLogger(__name__)

ROOT_STAGE_DIR = Path("/var/lib/evolve-action/clis")
_WHAT_TO_DO = (
    "set EVOLVE_CLI_STAGE_DIR to a directory outside /github that only root may write (with "
    "room for the copy), or EVOLVE_CLI_DIR to an install directory the sandbox users may read "
    "but not write"
)


class StageError(Exception):
    """The CLI could not be put where the confined CLI can start it; says what to do."""


def stage_dir(environ: Mapping[str, str]) -> Path:
    """`EVOLVE_CLI_STAGE_DIR`, else root's /var/lib/evolve-action/clis, else the user's cache."""
    if environ.get("EVOLVE_CLI_STAGE_DIR"):
        return Path(environ["EVOLVE_CLI_STAGE_DIR"])
    if os.geteuid() == 0:
        return ROOT_STAGE_DIR
    return user_cache(environ) / "staged-clis"


def for_confinement(
    binaries: Mapping[str, CliBinary], environ: Mapping[str, str]
) -> tuple[dict[str, CliBinary], dict[str, str]]:
    """The CLIs as this job's confinement can run them (copied when it must), and for each
    one that cannot be run, why not and what to do."""
    if not binaries:
        return {}, {}
    return place(
        binaries, level=job_level().level, hidden=default_hidden(), root=stage_dir(environ)
    )


def place(
    binaries: Mapping[str, CliBinary], *, level: Level, hidden: Sequence[Path], root: Path
) -> tuple[dict[str, CliBinary], dict[str, str]]:
    usable: dict[str, CliBinary] = {}
    unavailable: dict[str, str] = {}
    for name, binary in binaries.items():
        problem = obstacle(binary, level, hidden)
        if problem is None:
            usable[name] = binary
        elif binary.source == "PATH":
            unavailable[name] = (
                f"{name} on PATH ({binary.path}) {problem}; install it where other users may "
                "read and run it but not change it, or take it off PATH so that the pinned "
                "release is installed (and copied where the sandbox can start it)"
            )
        else:
            try:
                usable[name] = stage(binary, root, level=level, hidden=hidden)
            except StageError as exc:
                unavailable[name] = f"{name} in {binary.source} {problem}, and {exc}"
    return usable, unavailable


def _package(binary: CliBinary) -> Path | None:
    """The installed native package holding `binary` (None for one found on PATH)."""
    if binary.source == "PATH":
        return None
    package, _ = clis()[binary.name].native(*this_platform())
    return Path(binary.source) / package


def obstacle(binary: CliBinary, level: Level, hidden: Sequence[Path]) -> str | None:
    """What keeps a command confined at `level` from starting `binary`, or lets it change
    the CLI, in words that follow the CLI's name; None when there is nothing."""
    if level is Level.BWRAP:
        for needed in (binary.path, *binary.path_dirs):
            mask = masked(needed, hidden)
            if mask is not None:
                return (
                    f"is not visible inside the sandbox: {needed} is under {mask}, which "
                    "bubblewrap replaces with a directory of its own"
                )
        return None
    if level is not Level.USER:
        return None
    wanted = [(binary.path, os.R_OK | os.X_OK), *((d, os.X_OK) for d in binary.path_dirs)]
    # As written and once resolved: the kernel walks both the link's path and its target's.
    for needed, want in [(p, w) for given, w in wanted for p in (given, given.resolve())]:
        if not allows(POOL_FIRST, needed, want):
            blocked = unreachable_parent(needed, POOL_FIRST)
            why = (
                f"{blocked} is closed to other users"
                if blocked is not None
                else f"{needed} is not {'readable and ' if want & os.R_OK else ''}executable "
                "by other users"
            )
            return f"cannot be started by the sandbox users: {why}"
    package = _package(binary)
    changeable = _changeable((package or binary.path).resolve())
    if changeable is not None:
        return (
            f"could be changed by the commands it runs: {changeable} is writable by the "
            "sandbox users (or theirs)"
        )
    return None


def _in_pool(number: int) -> bool:
    return POOL_FIRST <= number < POOL_FIRST + POOL_SIZE


def _writable(info: os.stat_result) -> bool:
    """Whether some sandbox user may change this entry (its contents, or its mode)."""
    return (
        _in_pool(info.st_uid)
        or bool(info.st_mode & stat.S_IWOTH)
        or (_in_pool(info.st_gid) and bool(info.st_mode & stat.S_IWGRP))
    )


def _changeable(top: Path) -> Path | None:
    """The first path a sandbox user could change in `top`, or replace `top` by: a parent it
    may write (unless sticky, which keeps it from renaming what it does not own), `top`, or
    anything inside. Symbolic links are judged by where they are, not what they name."""
    try:
        for parent, child in itertools.pairwise([*reversed(top.parents), top]):
            info = parent.stat()
            sticky = bool(info.st_mode & stat.S_ISVTX) and not _in_pool(child.lstat().st_uid)
            if _writable(info) and not sticky:
                return parent
        if _writable(top.lstat()):
            return top
        for current, dirs, files in os.walk(top):
            for name in (*dirs, *files):
                entry = Path(current, name)
                info = entry.lstat()
                if _writable(info) and not stat.S_ISLNK(info.st_mode):
                    return entry
                if stat.S_ISLNK(info.st_mode) and _in_pool(info.st_uid):
                    return entry
    except OSError as exc:
        return Path(exc.filename) if isinstance(exc.filename, str) else top
    return None


def stage(binary: CliBinary, root: Path, *, level: Level, hidden: Sequence[Path]) -> CliBinary:
    """`binary`'s native package copied into `root/<lock digest>` (once: a copy already
    there is reused), checked like any CLI; the CLI as started from there."""
    spec = clis()[binary.name]
    source = _package(binary)
    assert source is not None, "only installed CLIs are staged"
    package = source.relative_to(binary.source)
    home = root.absolute() / lock_digest()[:16]
    try:
        _make_dirs(home)
        with locked(home):
            if not (home / package).is_dir():
                _copy(source, home, package)
            stamp = home / STAMP
            if not stamp.is_file():
                stamp.write_text(lock_digest() + "\n")
                stamp.chmod(0o644)
    except OSError as exc:
        megabytes = _megabytes(source)
        raise StageError(
            f"it could not be copied to {home}: {exc.strerror or exc}"
            f"{f' ({exc.filename})' if exc.filename else ''}; it needs {megabytes} MiB there; "
            f"{_WHAT_TO_DO}"
        ) from exc
    staged = installed(spec, home)
    if staged is None:
        raise StageError(f"its copy in {home} is incomplete; remove {home} and run again")
    problem = obstacle(staged, level, hidden)
    if problem is not None:
        raise StageError(f"its copy in {home} {problem}; {_WHAT_TO_DO}")
    return replace(staged, copied_from=binary.source)


def _make_dirs(path: Path) -> None:
    """Create `path` and its missing parents, each readable and searchable by all and
    writable by us alone, whatever the umask."""
    missing = [p for p in (*reversed(path.parents), path) if not p.exists()]
    for directory in missing:
        directory.mkdir(mode=0o755)
        directory.chmod(0o755)


def _copy(source: Path, home: Path, package: Path) -> None:
    """Copy `source` to `home/package` whole or not at all: into a private directory first,
    then renamed into place, so a copy cut short is never taken for a complete one.

    Links are copied as links, never followed: we read as root, and a link planted in a
    cache (to /proc/1/environ, say) must not become a copy everyone may read. A named pipe or
    a device refuses the copy (`shutil.SpecialFileError`)."""
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix=".stage-", dir=home))
    try:
        copy = work / "package"
        shutil.copytree(source, copy, symlinks=True, copy_function=shutil.copy)
        readable_by_all(copy)
        _make_dirs((home / package).parent)
        copy.rename(home / package)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    log.info(
        "harness cli: copied %s (%d MiB) to %s in %.1f s, where the confined CLI can start it",
        package.name,
        _megabytes(home / package),
        home,
        time.monotonic() - started,
    )


def job_env(
    binaries: Mapping[str, CliBinary], environ: Mapping[str, str]
) -> dict[str, dict[str, str]]:
    """For each CLI that shares work between its runs (`Harness.prepare_job`), the variables
    pointing its runs at what was prepared once, beside the staged CLIs. A CLI whose shared
    folder cannot be made, or could be changed by a run, gets none: each run then does that
    work in its own HOME, slower but whole."""
    if not binaries:
        return {}
    return shared(
        binaries, level=job_level().level, hidden=default_hidden(), root=stage_dir(environ)
    )


def shared(
    binaries: Mapping[str, CliBinary], *, level: Level, hidden: Sequence[Path], root: Path
) -> dict[str, dict[str, str]]:
    from evolve_action.execute.harness.contract import Harness
    from evolve_action.execute.harness.registry import HARNESSES  # it imports every harness

    found: dict[str, dict[str, str]] = {}
    home = root.absolute() / lock_digest()[:16]
    for name, binary in binaries.items():
        harness = HARNESSES[name]
        if getattr(type(harness), "prepare_job", None) is Harness.prepare_job:
            continue  # nothing to share: no folder made
        directory = home / "shared" / name
        try:
            _make_dirs(directory.parent)
            with locked(home):
                env = harness.prepare_job(binary.path, directory)
        except (OSError, RuntimeError) as exc:
            log.warning("harness cli: %s: each run prepares its own HOME (%s)", name, exc)
            continue
        problem = _shared_obstacle(directory, level, hidden) if env else None
        if problem is not None:
            log.warning(
                "harness cli: %s: %s is not shared with its runs: %s", name, directory, problem
            )
            continue
        found[name] = env
    return found


def _shared_obstacle(directory: Path, level: Level, hidden: Sequence[Path]) -> str | None:
    """Why the runs at `level` could not read `directory`, or could change it; None: neither."""
    if level is Level.BWRAP:
        mask = masked(directory, hidden)
        return None if mask is None else f"it is under {mask}, which bubblewrap replaces"
    if level is not Level.USER:
        return None
    if not allows(POOL_FIRST, directory, os.R_OK | os.X_OK):
        return "the sandbox users cannot read it"
    changeable = _changeable(directory.resolve())
    return None if changeable is None else f"{changeable} is writable by the sandbox users"


def _megabytes(directory: Path) -> int:
    total = 0
    for current, _dirs, files in os.walk(directory):
        for name in files:
            try:
                total += Path(current, name).stat().st_size
            except OSError:
                continue
    return round(total / (1 << 20))
