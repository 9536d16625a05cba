"""Deterministic checks: one small function per kind, registered by name (`<format>.<type>`).

A check function receives the `Check` (its validated `params`) and a `CheckContext` (the
finished run: workspace, transcript, a confined command runner) and returns an `ItemResult`:
`passed=True`, `False`, or `None` for a skip, always with evidence. Check functions never
raise for anything a user wrote; `run_check` turns an unexpected exception into a failed item
naming the bug, so one broken check cannot lose a run's other verdicts.

Modules with checks register themselves on import; `load_all()` imports them.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from evolve_action.model.evals import Case, Check, Suite
from evolve_action.model.outcomes import CommandResult, ItemResult, Transcript


class CommandRunner(Protocol):
    """Runs a command confined to the run's workspace with a scrubbed environment.

    A string runs through `/bin/sh -c`; a sequence is an argv. `cwd` must lie in the workspace.
    """

    async def __call__(
        self,
        command: str | Sequence[str],
        *,
        cwd: Path | None = None,
        timeout_s: float,
        stdin: str | None = None,
        extra_env: Mapping[str, str] | None = None,
    ) -> CommandResult: ...


@dataclass(frozen=True)
class CheckContext:
    suite: Suite
    case: Case
    workspace: Path
    transcript: Transcript
    run_command: CommandRunner
    timeout_s: float  # the case timeout; each command check gets all of it
    network: bool = False  # may checks reach the network (clauditor urls_reachable)
    reports_tool_calls: bool = True  # False only for replayed transcripts without tool calls


CheckFn = Callable[[Check, CheckContext], Awaitable[ItemResult]]

_REGISTRY: dict[str, CheckFn] = {}

# Modules that register checks; imported by `load_all()`.
MODULES = (
    "evolve",
    "skill_evaluator",
    "clauditor",
    "agentv",
    "vally",
    "waza",
    "promptfoo",
    "trajectory",
)


def register(kind: str) -> Callable[[CheckFn], CheckFn]:
    def decorate(fn: CheckFn) -> CheckFn:
        if kind in _REGISTRY:
            raise RuntimeError(f"check kind {kind!r} registered twice")
        _REGISTRY[kind] = fn
        return fn

    return decorate


def load_all() -> None:
    for name in MODULES:
        try:
            importlib.import_module(f"evolve_action.grade.checks.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"evolve_action.grade.checks.{name}":
                raise


def kinds() -> frozenset[str]:
    load_all()
    return frozenset(_REGISTRY)


async def run_check(check: Check, ctx: CheckContext) -> ItemResult:
    load_all()
    fn = _REGISTRY.get(check.kind)
    if fn is None:
        return ItemResult(
            check.id,
            check.text,
            False,
            f"unknown check kind: {check.kind}",
            kind=check.kind,
            source=check.source,
        )
    try:
        return await fn(check, ctx)
    except Exception as exc:  # a bug in a check must not lose the run's other verdicts
        return ItemResult(
            check.id,
            check.text,
            False,
            f"internal error in check {check.kind}: {type(exc).__name__}: {exc}",
            kind=check.kind,
            source=check.source,
        )
