"""A case's setup commands (Vally `environment.commands`, skill-validator `setup.commands`),
run in its workspace before the agent starts.

They are pull-request content, so they run exactly as a `command` check does: through the
run's `Confinement`, in the workspace, with its scrubbed environment (no key, token or
`GITHUB_*` value) and a deadline. One after the other, in the order written; the first that
cannot start, times out or (where its format says so) exits non-zero stops the run as a
workspace error, never as a failed eval: the agent was never given its task.

What the commands made is the workspace the agent starts from, so the baseline is taken
again afterwards (`Workspace.rebaseline`): the agent's changes are what differs from it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Protocol

from evolve_action.model.evals import SetupCommand
from evolve_action.model.outcomes import CommandResult

SHOWN_CHARS = 80  # of a command, in a message
TAIL_CHARS = 400  # of its output, in a message


class Runner(Protocol):
    def __call__(
        self, command: str, *, cwd: Path | None = ..., timeout_s: float
    ) -> Awaitable[CommandResult]: ...


class SetupError(Exception):
    """A setup command failed; the message names it, says how, and what to do."""


def _shown(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def run_setup(
    commands: Sequence[SetupCommand],
    run: Runner,
    workspace: Path,
    *,
    timeout_s: float,
    clock: Callable[[], float] = time.monotonic,
) -> list[str]:
    """Run `commands` within `timeout_s` in all; the notes to keep in the transcript. Raises
    `SetupError` at the first that fails."""
    deadline = clock() + timeout_s
    notes: list[str] = []
    for command in commands:
        where = f"{command.origin}: setup command {_shown(command.run, SHOWN_CHARS)!r}"
        left = deadline - clock()
        if left <= 0:
            raise SetupError(f"{where} was not run: the setup took the whole {timeout_s:g} s")
        done = await run(command.run, cwd=workspace, timeout_s=left)
        if done.error:
            raise SetupError(f"{where} could not start: {done.error}")
        if done.timed_out:
            raise SetupError(
                f"{where} timed out; the case's setup has {timeout_s:g} s in all (its timeout)"
            )
        if done.exit_code != 0:
            tail = _shown((done.stderr or done.stdout)[-TAIL_CHARS:], TAIL_CHARS)
            said = f"{where} exited with {done.exit_code}" + (f": {tail}" if tail else "")
            if command.check_exit:
                raise SetupError(f"{said}; fix the command, or end it with `|| exit 0`")
            notes.append(f"{said} (ignored, as skill-validator ignores it)")
    return notes


async def prepare_workspace(
    commands: Sequence[SetupCommand],
    run: Runner,
    workspace: Path,
    rebaseline: Callable[[], None],
    *,
    timeout_s: float,
) -> list[str]:
    """`run_setup`, then the new baseline (off the event loop: git hashes what was made)."""
    if not commands:
        return []
    notes = await run_setup(commands, run, workspace, timeout_s=timeout_s)
    await asyncio.to_thread(rebaseline)
    return notes
