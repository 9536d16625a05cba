"""What a CLI's event stream says about a run, in one shape for both CLIs.

`claude.parse` and `codex.parse` fill a `CliOutcome` from stdout; `run.py` turns it, with the
proxy's counts, into the same `Transcript` the SDK loop produces. `error` is set only when
the run produced nothing gradable (empty output, a crash, an error envelope with no answer,
a usage limit): such a run is an error, never a failure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from evolve_action.model.outcomes import ErrorKind, ToolCall, Usage

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


@dataclass
class CliOutcome:
    final_text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None  # as the CLI reported it (the proxy's count is preferred)
    turns: int | None = None
    stop_reason: str = "end_turn"
    error: str = ""  # non-empty: nothing gradable came out
    error_kind: ErrorKind = ErrorKind.HARNESS
    notes: list[str] = field(default_factory=list)


def empty(stderr: str) -> CliOutcome:
    """The outcome of a CLI that printed nothing on stdout: an error naming its stderr."""
    return CliOutcome(error="empty CLI output" + (f": {tail(stderr)}" if stderr.strip() else ""))


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def json_lines(stdout: str) -> Iterator[dict[str, Any]]:
    """Each line of stdout that is a JSON object; anything else (a banner, a warning) is
    skipped, as the CLIs may print such lines between events. A line nested so deeply that
    the decoder runs out of stack (what an agent printed may be anything) is garbled too."""
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


def mapping(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one: events are read defensively."""
    return value if isinstance(value, dict) else {}


def items(value: Any) -> list[dict[str, Any]]:
    """The JSON objects of `value` when it is a list, else none."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def compact(value: Any) -> str:
    """JSON as the CLIs print it (no spaces), which is what `tool_call` patterns are written
    against."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def text_of(content: Any) -> str:
    """A tool result's text: a string, or a list of content blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif isinstance(block, dict):
                parts.append(f"[{block.get('type', 'block')}]")
        return "\n".join(parts)
    return "" if content is None else str(content)


def tail(text: str, limit: int = 400) -> str:
    """The end of stderr, on one line, for an error message."""
    flat = " ".join(strip_ansi(text).split())
    return flat if len(flat) <= limit else "…" + flat[-limit:]
