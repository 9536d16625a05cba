"""waza's `tool_calls` grader, read into `CallsParams`: `required_tools`, `forbidden_tools`,
`min_calls`, `max_calls` (0: no bound, as waza reads it). Copilot's tool names (`bash`,
`view`, ...) are read as the agent's tools here; any other name (an MCP tool's) is kept and
matched against every form of a call's name (`model/trajectory.py`)."""

from __future__ import annotations

from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.graders.fields import At, strings
from evolve_action.formats.graders.gates import TOOLS
from evolve_action.formats.waza.params import CallsParams

KEYS = ("required_tools", "forbidden_tools", "min_calls", "max_calls")


def tool_calls_params(problems: Problems, at: At, config: dict[str, Any]) -> CallsParams | None:
    before = problems.errors
    for key in config:
        if key not in KEYS:
            problems.warn((*at, key), f"unknown tool_calls key {key!r} is ignored")
    names = {k: _names(problems, (*at, k), config.get(k)) for k in KEYS[:2]}
    bounds: dict[str, int | None] = {}
    for key in KEYS[2:]:
        value = config.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            problems.error((*at, key), f"must be a whole number ≥ 0 (0: no bound), not {value!r}")
        bounds[key] = value or None if isinstance(value, int) else None
    low, high = bounds["min_calls"], bounds["max_calls"]
    if low is not None and high is not None and low > high:
        problems.error((*at, "min_calls"), f"min_calls {low} is above max_calls {high}")
    if not any(names.values()) and low is None and high is None and problems.errors == before:
        problems.error(at, f"needs at least one of {', '.join(KEYS)}")
    if problems.errors > before:
        return None
    return CallsParams(names["required_tools"], names["forbidden_tools"], low, high)


def _names(problems: Problems, at: At, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    return tuple(TOOLS.get(n.lower(), n) for n in strings(problems, at, value) or [])
