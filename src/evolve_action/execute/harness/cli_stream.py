"""What the readers of Copilot CLI's, Gemini CLI's and OpenCode's event streams share.

`events` is `events.json_lines` made safe for hostile output: a line nested deeply enough
makes Python's JSON decoder raise `RecursionError`, which a CLI's stdout (whatever the agent
printed through it) must never turn into a traceback. `error_kind` classifies an HTTP status
a CLI reports with the rule the SDK path uses (`faults.classify_status`), so a refused key is
`auth` and an exhausted quota `quota` whichever agent saw it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

from evolve_action.execute.harness.events import strip_ansi
from evolve_action.execute.providers.faults import classify_status
from evolve_action.model.outcomes import ErrorKind

_STATUS_IN_TEXT = re.compile(
    r'"code"\s*:\s*(\d{3})\b|\bHTTP (\d{3})\b|\bstatus(?:Code)?\W+(\d{3})\b'
)


def events(stdout: str) -> Iterator[dict[str, Any]]:
    """Each line of stdout that is a JSON object; anything else is skipped."""
    for line in strip_ansi(stdout).splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            yield value


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
