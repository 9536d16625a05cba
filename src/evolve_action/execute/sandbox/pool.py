"""The user level of a confinement: its commands run as a pool user it leases (`sandbox_user`),
one command at a time, each one's leftover processes killed before root reads the workspace.
`confine.Confinement` chooses the level and calls in here when it is the user level."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import os
import sys
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from evolve_action.execute.sandbox import drop as sandbox_drop
from evolve_action.execute.sandbox import user as sandbox_user
from evolve_action.execute.sandbox.user import UserLease
from evolve_action.model.outcomes import CommandResult

_PR_SET_DUMPABLE = 4

# Runs an argv in a directory with an environment, a timeout and stdin (`Confinement._spawn`).
Spawn = Callable[
    [Sequence[str], Path, Mapping[str, str], float, str | None], Awaitable[CommandResult]
]


@functools.cache
def harden_process() -> bool:
    """Make this process non-dumpable, so that an unconfined command cannot read our
    `/proc/<pid>/environ` (which still holds the API keys and tokens we were started with)
    unless it has CAP_SYS_PTRACE, which containers do not grant by default. Linux only;
    returns whether it took effect."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


class Slot:
    """The mutable part of a frozen `Confinement`: its pool user and its one-at-a-time lock
    (the user's processes are all killed after each command, so commands never overlap)."""

    def __init__(self) -> None:
        self.lease: UserLease | None = None
        self.lock: asyncio.Lock | None = None


async def _lease(slot: Slot, timeout_s: float) -> UserLease:
    """The slot's pool user, leased on first use; OSError when none is free in time."""
    if slot.lease is None:
        slot.lease = await sandbox_user.acquire(time.monotonic() + max(timeout_s, 1.0))
    return slot.lease


async def run_as_user(
    slot: Slot,
    spawn: Spawn,
    root: Path,
    where: Path,
    argv: Sequence[str],
    env: Mapping[str, str],
    timeout_s: float,
    stdin: str | None,
) -> CommandResult:
    """Run `argv` as the slot's pool user, handed the workspace `root` first."""
    harden_process()
    try:
        lease = await _lease(slot, timeout_s)
    except OSError as exc:
        return CommandResult(-1, "", "", error=f"no sandbox user: {exc}")
    program = Path(argv[0])
    if program.is_absolute() and not sandbox_user.allows(lease.uid, program, os.X_OK):
        return CommandResult(
            -1, "", "", error=f"{program} cannot be run by the sandbox user: it is not "
            "executable by other users, or inside a directory they cannot enter (such as "
            "/github, closed to them); put it somewhere others may read",
        )  # fmt: skip
    blocked = sandbox_user.unreachable_parent(root, lease.uid)
    if blocked is not None:
        return CommandResult(
            -1, "", "", error=f"the workspace is not reachable by the sandbox user: {blocked} "
            "is not searchable by other users; put workspaces in a directory others may "
            "enter (the default temporary directory is)",
        )  # fmt: skip
    await asyncio.to_thread(sandbox_user.hand_over, root, lease.uid)
    result = None
    try:
        result = await spawn(sandbox_user.wrap(lease.uid, argv), where, env, timeout_s, stdin)
    finally:
        # The helper kills what the command left when it ends on its own; after a timeout
        # or a cancellation it may have been killed first. Either way nothing the command
        # started may run on while we read its workspace as root.
        if result is None or result.timed_out:
            await asyncio.shield(sandbox_user.kill_all(lease.uid))
    removed = await asyncio.to_thread(sandbox_user.unlink_hard_links, root)
    if removed:
        shown = ", ".join(removed[:10]) + (" …" if len(removed) > 10 else "")
        note = f"\n[evolve: removed hard links, which the sandbox does not allow: {shown}]\n"
        result = replace(result, stderr=result.stderr + note)
    if result.exit_code == sandbox_drop.EXEC_FAILED and result.stderr.startswith(
        sandbox_drop.MARKER
    ):
        message = result.stderr.removeprefix(sandbox_drop.MARKER).strip()
        return CommandResult(-1, "", "", error=message, duration_s=result.duration_s)
    return result


async def lend(slot: Slot, workspace: Path, timeout_s: float) -> int | str:
    """The slot's pool user, leased and handed `workspace`, or a message when there is none."""
    harden_process()
    try:
        uid = (await _lease(slot, timeout_s)).uid
    except OSError as exc:
        return f"no sandbox user: {exc}"
    root = workspace.resolve()
    blocked = sandbox_user.unreachable_parent(root, uid)
    if blocked is not None:
        return f"the workspace is not reachable by the sandbox user: {blocked} is closed"
    await asyncio.to_thread(sandbox_user.hand_over, root, uid)
    return uid


def give_back(slot: Slot, workspace: Path) -> None:
    """Take `workspace` back (root's, 0700), then return the slot's pool user, if any."""
    if slot.lease is not None:
        with contextlib.suppress(OSError):
            os.chown(workspace, 0, 0, follow_symlinks=False)
            workspace.chmod(0o700, follow_symlinks=False)
        slot.lease.release()
        slot.lease = None
