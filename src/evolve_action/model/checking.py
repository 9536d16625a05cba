"""What a check kind is: a function of the `Check` and the finished run, registered by name.

A format family's check kinds (`formats/<family>/checks.py`) register here with `register`;
`grade.checks.run_check` finds them through `registered`. The contract sits in `model`, below
`formats` and `grade`, so a family can hold its own kinds without importing the stage that
runs them.

A check function receives the `Check` (its validated `params`) and a `CheckContext` (the
finished run: workspace, transcript, a confined command runner) and returns an `ItemResult`:
`passed=True`, `False`, or `None` for a skip, always with evidence. It never raises for
anything a user wrote.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from evolve_action.model.evals import Case, Check, CheckParams, Suite
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
P = TypeVar("P", bound=CheckParams)

_REGISTRY: dict[str, CheckFn] = {}
_PARAMS: dict[str, type[CheckParams]] = {}


def register(kind: str, params: type[CheckParams] | None = None) -> Callable[[CheckFn], CheckFn]:
    """Register the decorated function as the check of `kind` (`<format>.<type>`), whose
    loader builds `params` for it."""

    def decorate(fn: CheckFn) -> CheckFn:
        if kind in _REGISTRY:
            raise RuntimeError(f"check kind {kind!r} registered twice")
        _REGISTRY[kind] = fn
        if params is not None:
            _PARAMS[kind] = params
        return fn

    return decorate


def registered() -> Mapping[str, CheckFn]:
    """Every kind registered so far (the families' check modules register on import)."""
    return _REGISTRY


def parameter_types() -> Mapping[str, type[CheckParams]]:
    """The parameter type each typed kind declared when it registered."""
    return _PARAMS


def params_of(check: Check, kind: type[P]) -> P:
    """The check's parameters as its kind declares them. A check whose loader built other
    parameters is a bug, which `grade.checks.run_check` reports as a failed item."""
    if not isinstance(check.params, kind):
        got = type(check.params).__name__
        raise TypeError(f"{check.kind} reads {kind.__name__} parameters, not {got}")
    return check.params
