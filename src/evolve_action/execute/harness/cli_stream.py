"""What the readers of Copilot CLI's, Gemini CLI's and OpenCode's event streams share.

The lines of a stream are read by `events.json_lines`, an empty one by `events.empty`. `calls`
and `conclude` are what the readers have in common at the end: the tool calls paired with
their results, and what a run without an answer says. `error_kind` classifies an HTTP status
a CLI reports with the rule the SDK path uses (`faults.classify_status`), so a refused key is
`auth` and an exhausted quota `quota` whichever agent saw it.
"""

from __future__ import annotations

import math
import re
from typing import Any

from evolve_action.execute.harness.events import CliOutcome, compact, tail
from evolve_action.execute.providers.faults import classify_status
from evolve_action.model.outcomes import ErrorKind, ToolCall

_STATUS_IN_TEXT = re.compile(
    r'"code"\s*:\s*(\d{3})\b|\bHTTP (\d{3})\b|\bstatus(?:Code)?\W+(\d{3})\b'
)


def error_kind(status: Any, message: str = "", *, provider: str = "") -> ErrorKind:
    """The kind of a failed model call, from its HTTP status (or one named in `message`)."""
    if not isinstance(status, int) or isinstance(status, bool):
        found = _STATUS_IN_TEXT.search(message)
        status = int(next(g for g in found.groups() if g)) if found else None
    if status is None or not 400 <= status <= 599:
        return ErrorKind.HARNESS
    return classify_status(status, "", message, {}, provider=provider).kind


def number(value: Any) -> int:
    """A token count as a CLI printed it: a non-negative int, else 0."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float) and not math.isfinite(value):
        return 0  # Python's decoder accepts NaN and Infinity
    return max(0, int(value))


def calls(
    order: list[str], started: dict[str, tuple[str, Any]], results: dict[str, tuple[str, bool]]
) -> list[ToolCall]:
    """The tool calls in the order they started, each with its result (none: empty, not failed)."""
    paired = []
    for call_id in order:
        name, arguments = started[call_id]
        text, failed = results.get(call_id, ("", False))
        paired.append(ToolCall(name, compact(arguments), text, failed, call_id))
    return paired


def conclude(
    out: CliOutcome, agent: str, errors: list[tuple[Any, str]], exit_code: int, stderr: str
) -> None:
    """Notes for the errors a run reported; an error only when it left nothing to grade."""
    for _, message in errors:
        out.notes.append(f"{agent}: {message[:300]}")
    if out.final_text or out.tool_calls:
        return
    if errors:
        status, message = errors[-1]
        out.error = f"{agent} run error: {message[:500]}"
        out.error_kind = error_kind(status, message)
    elif exit_code != 0:
        out.error = f"{agent} exited with {exit_code}" + (
            f": {tail(stderr)}" if stderr.strip() else ""
        )
    else:
        out.error = f"{agent} printed no answer and called no tool"
