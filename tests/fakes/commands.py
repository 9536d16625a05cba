"""Command runners for check tests: a small real one, and one that must never be called.

The product runs every `command` check through the sandbox (`execute/sandbox/`); the check
modules only see the `CommandRunner` contract. These tests are about the checks, so they get a
plain subprocess with a timeout, in a minimal environment, and record each call to assert on.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from evolve_action.model.outcomes import CommandResult


@dataclass(frozen=True)
class CommandCall:
    argv: list[str]
    cwd: Path | None
    timeout: float
    env: Mapping[str, str] | None
    stdin: str | None


class ShellRunner:
    """A real `CommandRunner` without confinement: a string runs under `/bin/sh -c`, in a new
    session killed whole at the timeout; the environment is `PATH`, `HOME` (the working
    directory) and whatever the check adds."""

    def __init__(self) -> None:
        self.calls: list[CommandCall] = []

    async def __call__(
        self,
        command: str | Sequence[str],
        *,
        cwd: Path | None = None,
        timeout_s: float,
        stdin: str | None = None,
        extra_env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        argv = ["/bin/sh", "-c", command] if isinstance(command, str) else list(command)
        self.calls.append(CommandCall(argv, cwd, timeout_s, extra_env, stdin))
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(cwd or Path.cwd())}
        start = time.monotonic()
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                cwd=cwd,
                env={**env, **(extra_env or {})},
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            return CommandResult(-1, "", "", error=str(exc.strerror or exc))
        try:
            out, err = await asyncio.wait_for(proc.communicate((stdin or "").encode()), timeout_s)
        except TimeoutError:
            os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
            return CommandResult(-1, "", "", timed_out=True, duration_s=time.monotonic() - start)
        took = time.monotonic() - start
        return CommandResult(proc.returncode or 0, out.decode(), err.decode(), duration_s=took)


class NoCommands(ShellRunner):
    """For checks that must never run a command (clauditor's)."""

    async def __call__(self, command: str | Sequence[str], **_: object) -> CommandResult:
        raise AssertionError(f"this check ran a command it should not have: {command!r}")


# For a test that does not look at the calls.
run_command = ShellRunner()
no_commands = NoCommands()
