"""Confinement for every command the agent (`Bash`) or a check runs (docs/design.md §Trust).

Eval files, skills and fixtures come from the PR, so whatever they make us run is untrusted.
The environment is always an allowlist (`scrubbed_env`): no API key, token, `GITHUB_*`,
`INPUT_*` or `ACTIONS_*` value ever reaches a command, and HOME/TMPDIR live inside the
workspace. On top of that, the strongest level that works here (`Level`):

- namespaces (bubblewrap): read-only root, private /tmp, no network unless asked, host
  credentials, daemon sockets and the runner's mounts masked (`sandbox_bwrap`);
- unprivileged user, no namespaces: where we are root but bubblewrap cannot start, as in
  GitHub's container; each run's commands get a user of their own (`sandbox_user`);
- none: commands run as we do, with the scrubbed environment, timeouts and group kills
  only. Locally that is a warning; inside Actions the job refuses to start unless the
  `allow-unconfined` input says otherwise (`unconfined_refusal`).

Output never shows the real workspace path: it is rewritten to `/workspace`, the name the
model knows. `Confinement.launch` runs any argv (a whole agent CLI, say) in the same way.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from evolve_action.execute.sandbox import pool
from evolve_action.execute.sandbox.bwrap import (
    SANDBOX_ROOT,
    BwrapStatus,
    bwrap_argv,
    default_hidden,
    probe_bwrap,
    resolved,
)
from evolve_action.execute.sandbox.env import (
    DEFAULT_PATH,
    HOME_DIR,
    TMP_DIR,
    is_secret_name,
    scrubbed_env,
)
from evolve_action.execute.sandbox.exec import spawn
from evolve_action.execute.sandbox.pool import harden_process
from evolve_action.execute.sandbox.user import UserStatus, probe_user
from evolve_action.model.outcomes import CommandResult

__all__ = [
    "DEFAULT_PATH",
    "HOME_DIR",
    "SANDBOX_ROOT",
    "TMP_DIR",
    "BwrapStatus",
    "Confinement",
    "Level",
    "SandboxMode",
    "UserStatus",
    "bwrap_argv",
    "default_hidden",
    "harden_process",
    "is_secret_name",
    "probe_bwrap",
    "probe_user",
    "resolved",
    "scrubbed_env",
]

log = logging.getLogger(__name__)


class SandboxMode(StrEnum):
    AUTO = "auto"  # the strongest level that works here
    BWRAP = "bwrap"  # bubblewrap or an error
    USER = "user"  # an unprivileged user or an error
    NONE = "none"  # direct, on purpose


class Level(StrEnum):
    """The confinement that ran, as the comment, the job summary and results.json say it."""

    BWRAP = "bwrap"
    USER = "user"
    NONE = "none"

    @property
    def words(self) -> str:
        return _WORDS[self]


_WORDS = {
    Level.BWRAP: "namespaces (bubblewrap)",
    Level.USER: "unprivileged user, no namespaces: the network is not isolated",
    Level.NONE: "none",
}


@dataclass(frozen=True)
class Choice:
    level: Level
    reason: str = ""  # why no stronger level works here


# One prober at a time: a run asking while the SDK thread probes
# (`pipeline.first_request`) waits for its answer instead of starting a second
# bubblewrap.
_probing = threading.Lock()


def choose(mode: SandboxMode = SandboxMode.AUTO) -> Choice | str:
    """The level commands get under `mode`, or why the level `mode` requires is impossible.
    Probes (one bubblewrap start, one user switch) run once per process."""
    if mode is SandboxMode.NONE:
        return Choice(Level.NONE, "confinement was turned off")
    with _probing:
        return _choose(mode)


def _choose(mode: SandboxMode) -> Choice | str:
    bwrap = probe_bwrap()
    if mode is SandboxMode.BWRAP:
        if bwrap.works:
            return Choice(Level.BWRAP)
        return f"the sandbox is required but bubblewrap fails: {bwrap.reason}"
    if mode is SandboxMode.AUTO and bwrap.works:
        return Choice(Level.BWRAP)
    user = probe_user()
    if user.works:
        return Choice(Level.USER, bwrap.reason)
    if mode is SandboxMode.USER:
        return f"an unprivileged user is required but cannot be used: {user.reason}"
    return Choice(Level.NONE, f"{bwrap.reason}; {user.reason}")


def job_level() -> Choice:
    """What every run of this process gets (the runner uses `SandboxMode.AUTO`)."""
    chosen = choose(SandboxMode.AUTO)
    assert isinstance(chosen, Choice)  # AUTO always settles on a level
    return chosen


def unconfined_refusal(allow_unconfined: bool) -> str | None:
    """Inside Actions: why the job must not start, when commands could not be confined."""
    chosen = job_level()
    if chosen.level is not Level.NONE or allow_unconfined:
        return None
    return (
        "the agent's commands and `command` checks cannot be confined here "
        f"({chosen.reason}), so code from the pull request would run with this job's "
        "privileges: its network, the runner's file commands and checkout, its processes. "
        "Use the container action (`uses: bitwise-media-group/evolve@v1`, which switches "
        "to an unprivileged user), install bubblewrap where unprivileged user namespaces "
        "are allowed, or set `allow-unconfined: true` only if you trust every PR's code."
    )


@functools.cache
def _warn_unsandboxed(reason: str) -> None:
    log.warning(
        "commands run WITHOUT confinement (%s); the environment is still scrubbed and "
        "time-limited, but a command can write outside its workspace; install bubblewrap "
        "and allow user namespaces, or run as root to use an unprivileged user",
        reason,
    )


@dataclass(frozen=True)
class Confinement:
    """Runs commands for one workspace; pass `confinement.run` as a `checks.CommandRunner`,
    and call `release()` when the run is over (it gives back the pool user, if any)."""

    workspace: Path
    network: bool = False
    output_cap: int = 1_000_000
    mode: SandboxMode = SandboxMode.AUTO
    # None: `default_hidden()`, looked up when a command first runs under bubblewrap (a dozen
    # `stat`s a run that most runs, which run no command, need not pay).
    hidden: tuple[Path, ...] | None = None
    kill_grace_s: float = 2.0
    _slot: pool.Slot = field(default_factory=pool.Slot, init=False, repr=False, compare=False)

    def masked(self) -> tuple[Path, ...]:
        """The host paths bubblewrap masks for this confinement's commands."""
        return default_hidden() if self.hidden is None else self.hidden

    @property
    def sandboxed(self) -> bool:
        chosen = choose(self.mode)
        return isinstance(chosen, Choice) and chosen.level is not Level.NONE

    def note(self) -> str:
        """A line for the run's notes when commands ran unconfined by necessity, else ""."""
        chosen = choose(self.mode)
        if self.mode is SandboxMode.NONE or not isinstance(chosen, Choice):
            return ""
        return f"sandbox off: {chosen.reason}" if chosen.level is Level.NONE else ""

    async def level(self) -> Choice | str:
        # The first call probes (a bubblewrap start); keep the event loop free meanwhile.
        return await asyncio.to_thread(choose, self.mode)

    async def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The scrubbed environment for this confinement (HOME as the command sees it).
        Raises ValueError for a secret-looking `extra` name."""
        chosen = await self.level()
        bwrap = isinstance(chosen, Choice) and chosen.level is Level.BWRAP
        root = self.workspace.resolve()
        return scrubbed_env(root, extra, seen_as=SANDBOX_ROOT if bwrap else None)

    async def run(
        self,
        command: str | Sequence[str],
        *,
        cwd: Path | None = None,
        timeout_s: float,
        stdin: str | None = None,
        extra_env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        argv = ["/bin/sh", "-c", command] if isinstance(command, str) else list(command)
        try:
            env = await self.environment(extra_env)
        except ValueError as exc:
            return CommandResult(-1, "", "", error=str(exc))
        return await self.launch(argv, env=env, cwd=cwd, timeout_s=timeout_s, stdin=stdin)

    async def launch(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: Path | None = None,
        timeout_s: float,
        stdin: str | None = None,
    ) -> CommandResult:
        """Run `argv` and everything it starts in this confinement with exactly `env` (start
        from `environment()`: nothing else is scrubbed here), `cwd` inside the workspace,
        until it ends or `timeout_s` passes; then its whole process tree is killed."""
        if not argv:
            return CommandResult(-1, "", "", error="empty command: nothing to run")
        root = self.workspace.resolve()
        where = _inside(root, cwd)
        if isinstance(where, str):
            return CommandResult(-1, "", "", error=where)
        chosen = await self.level()
        if isinstance(chosen, str):
            return CommandResult(-1, "", "", error=chosen)
        if self._slot.lock is None:
            self._slot.lock = asyncio.Lock()
        async with self._slot.lock:
            if chosen.level is Level.USER:
                result = await pool.run_as_user(
                    self._slot, self._spawn, root, where, argv, env, timeout_s, stdin
                )
            else:
                if chosen.level is Level.BWRAP:
                    rel = where.relative_to(root).as_posix()
                    chdir = SANDBOX_ROOT if rel == "." else f"{SANDBOX_ROOT}/{rel}"
                    hidden = self.masked()
                    argv = bwrap_argv(root, chdir, argv, network=self.network, hidden=hidden)
                    where = root
                else:
                    harden_process()
                    if self.mode is SandboxMode.AUTO:
                        _warn_unsandboxed(chosen.reason)
                result = await self._spawn(argv, where, env, timeout_s, stdin)
        return self.mask(result)

    async def _spawn(
        self,
        argv: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        timeout_s: float,
        stdin: str | None,
    ) -> CommandResult:
        return await spawn(
            argv,
            cwd=cwd,
            env=dict(env),
            timeout_s=timeout_s,
            stdin=stdin,
            output_cap=self.output_cap,
            kill_grace_s=self.kill_grace_s,
        )

    async def lend_user(self, timeout_s: float) -> int | str:
        """At the user level, the pool user this confinement's commands run as, leased and
        handed the workspace, for a process the caller starts itself with `sandbox_user.wrap`
        (an MCP server over stdio); a message when there is none. Every command's end kills
        all of that user's processes, so such a process must end before the next command."""
        return await pool.lend(self._slot, self.workspace, timeout_s)

    @property
    def user(self) -> int | None:
        """The pool user this confinement's commands run as, once one was needed."""
        return self._slot.lease.uid if self._slot.lease is not None else None

    def release(self) -> None:
        """Give the pool user back; the confinement may not run commands after this.

        The workspace is taken back first (root's, 0700): the next run to borrow the same
        user must not find this one's files, before or after they are removed."""
        pool.give_back(self._slot, self.workspace)

    def mask(self, result: CommandResult) -> CommandResult:
        """Show the workspace as `/workspace` in output, whatever its real location."""
        real = sorted({str(self.workspace), str(self.workspace.resolve())}, key=len, reverse=True)
        # Only whole path components: `/tmp/ws1` must not turn `/tmp/ws10` into `/workspace0`.
        pattern = re.compile("|".join(re.escape(p) for p in real) + r"(?![\w.-])")

        def fix(text: str) -> str:
            return pattern.sub(SANDBOX_ROOT, text)

        return replace(result, stdout=fix(result.stdout), stderr=fix(result.stderr))


def _inside(root: Path, cwd: Path | None) -> Path | str:
    """The resolved working directory, or a message when it is not a directory in `root`."""
    if cwd is None:
        return root
    if cwd.is_absolute() and cwd.parts[:2] == ("/", SANDBOX_ROOT.strip("/")):
        cwd = Path(*cwd.parts[2:]) if len(cwd.parts) > 2 else Path()
    target = resolved(root / cwd)
    if target is None:
        return f"working directory {cwd.as_posix()!r} cannot be resolved (a symlink loop?)"
    if not target.is_relative_to(root):
        return f"working directory {cwd.as_posix()!r} is outside the workspace; use a path in it"
    if not target.is_dir():
        shown = target.relative_to(root).as_posix()
        return f"working directory {shown!r} does not exist in the workspace"
    return target
