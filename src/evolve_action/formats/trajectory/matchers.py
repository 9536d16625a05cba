"""promptfoo's trajectory assertions, which AgentV 5 adopts: `trajectory:tool-used` and
`trajectory:tool-sequence`, validated into check params both loaders share.

`tool-used`: a tool name (globs `*` and `?` allowed) or a list of them, each of which must be
called; or `{name | pattern, min, max}`, the number of matching calls in range (min 1 by
default). `tool-sequence`: a list, called in that order with others between, or
`{mode: exact | in_order, steps}`; exact allows nothing else. The `not-` forms invert both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evolve_action.model.evals import CheckParams

KINDS = ("trajectory:tool-used", "trajectory:tool-sequence")


@dataclass(frozen=True, slots=True)
class Trajectory(CheckParams):
    """A trajectory assertion's parameters; `inverse` for its `not-` form."""

    inverse: bool


@dataclass(frozen=True, slots=True)
class ToolsUsed(Trajectory):
    tools: tuple[str, ...]  # every one of them (globs) was called


@dataclass(frozen=True, slots=True)
class ToolCount(Trajectory):
    tool: str  # a glob
    min: int = 1
    max: int | None = None


@dataclass(frozen=True, slots=True)
class ToolSequence(Trajectory):
    steps: tuple[str, ...]  # globs, called in this order
    exact: bool = False  # nothing else, in between or after


def parse(kind: str, value: Any) -> Trajectory | str:
    """The check params, or why the value does not read (the message for the author)."""
    inverse = kind.startswith("not-")
    base = kind.removeprefix("not-")
    if base == "trajectory:tool-used":
        return _tool_used(value, inverse)
    if base == "trajectory:tool-sequence":
        return _tool_sequence(value, inverse)
    return f"{kind!r} is no trajectory assertion"


def _name(matcher: Any) -> str | None:
    if isinstance(matcher, str) and matcher.strip():
        return matcher
    if isinstance(matcher, dict):
        named = matcher.get("pattern", matcher.get("name"))
        return named if isinstance(named, str) and named.strip() else None
    return None


def _tool_used(value: Any, inverse: bool) -> Trajectory | str:
    if isinstance(value, str) or (isinstance(value, list) and value):
        names = [value] if isinstance(value, str) else value
        if not all(isinstance(n, str) and n.strip() for n in names):
            return "must be a tool name, a list of tool names, or {name, min, max}"
        return ToolsUsed(inverse, tuple(names))
    if isinstance(value, dict):
        name = _name(value)
        low, high = value.get("min", 1), value.get("max")
        ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high or 0))
        if name is None or not ints:
            return "an object value needs a name (or pattern) and whole-number min / max"
        return ToolCount(inverse, name, low, high)
    return "must be a tool name, a list of tool names, or {name, min, max}"


def _tool_sequence(value: Any, inverse: bool) -> Trajectory | str:
    exact = False
    steps = value
    if isinstance(value, dict):
        exact = value.get("mode") == "exact"
        steps = value.get("steps")
    if not isinstance(steps, list) or not steps:
        return "must be a list of tool names, or {mode: exact | in_order, steps: [...]}"
    names = [_name(s) for s in steps]
    steps_named = tuple(n for n in names if n is not None)
    if len(steps_named) < len(names):
        return "every step needs a tool name (or a name / pattern)"
    return ToolSequence(inverse, steps_named, exact)


def describe(kind: str, params: Trajectory) -> str:
    said = "not " if params.inverse else ""
    if isinstance(params, ToolsUsed):
        return f"{said}tool-used {', '.join(params.tools)}"
    if isinstance(params, ToolCount):
        span = f"{params.min}+" if params.max is None else f"{params.min}-{params.max}"
        return f"{said}tool-used {params.tool} ({span} calls)"
    assert isinstance(params, ToolSequence)
    mode = "exactly" if params.exact else "in order"
    return f"{said}tool-sequence {mode}: {' → '.join(params.steps)}"
