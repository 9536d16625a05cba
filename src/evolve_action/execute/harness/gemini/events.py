"""Gemini CLI's `--output-format stream-json` events, read into a `CliOutcome`.

One JSON object a line (`tests/data/cli_events/gemini.jsonl` is a recorded run):

- `init`: `session_id`, `model`.
- `message`: `role` (`user` or `assistant`) and `content`; the assistant's text arrives in
  pieces (`delta: true`) to be joined.
- `tool_use`: `tool_name`, `tool_id`, `parameters`; `tool_result`: `tool_id`, `status`
  (`success` or `error`), `output`, or `error.message`. A skill is loaded by
  `activate_skill`, the shell is `run_shell_command`.
- `error`: a warning or error the CLI reports and goes on after (`severity`, `message`).
- `result`: the last line: `status` (`success` or `error`), `error.message` (an API error
  quoted, e.g. `[API Error: {"error":{"code":401,...}}]`), and `stats`: `input_tokens`
  (cached ones included), `cached`, `input` (the uncached part), `output_tokens`,
  `tool_calls`, `duration_ms`.

The final answer is the assistant's text after its last tool call (else the last text it
wrote). It does not report its model calls, so the turns are the proxy's count.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evolve_action.execute.harness.cli_stream import calls, error_kind, number
from evolve_action.execute.harness.events import (
    CliOutcome,
    compact,
    empty,
    json_lines,
    mapping,
    tail,
)
from evolve_action.model.outcomes import Usage


@dataclass
class _Reading:
    order: list[str] = field(default_factory=list)
    calls: dict[str, tuple[str, Any]] = field(default_factory=dict)
    results: dict[str, tuple[str, bool]] = field(default_factory=dict)
    pieces: list[str] = field(default_factory=list)  # the text since the last tool call
    last_text: str = ""
    result: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)


def parse(stdout: str, *, exit_code: int, stderr: str = "") -> CliOutcome:
    if not stdout.strip():
        return empty(stderr)
    out, seen = CliOutcome(), _Reading()
    for event in json_lines(stdout):
        _read(seen, str(event.get("type", "")), event)
    out.tool_calls = calls(seen.order, seen.calls, seen.results)
    out.final_text = "".join(seen.pieces).strip() or seen.last_text
    out.notes += seen.notes
    if seen.result is not None:
        out.usage = _usage(mapping(seen.result.get("stats")))
    _conclude(out, seen.result, exit_code, stderr)
    return out


def _read(seen: _Reading, kind: str, event: dict[str, Any]) -> None:
    if kind == "message" and event.get("role") == "assistant":
        content = event.get("content")
        if isinstance(content, str):
            seen.pieces.append(content)
            joined = "".join(seen.pieces).strip()
            seen.last_text = joined or seen.last_text
    elif kind == "tool_use":
        call_id = str(event.get("tool_id", ""))
        if call_id not in seen.calls:
            seen.order.append(call_id)
            arguments = event.get("parameters")
            seen.calls[call_id] = (str(event.get("tool_name") or ""), arguments or {})
        seen.pieces = []
    elif kind == "tool_result":
        seen.results[str(event.get("tool_id", ""))] = _result(event)
        seen.pieces = []
    elif kind == "error":
        seen.notes.append(f"gemini: {str(event.get('message') or 'error')[:300]}")
    elif kind == "result":
        seen.result = event


def _result(event: dict[str, Any]) -> tuple[str, bool]:
    output = event.get("output")
    text = output if isinstance(output, str) else ("" if output is None else compact(output))
    failed = event.get("status") == "error"
    if failed and not text:
        text = str(mapping(event.get("error")).get("message") or "")
    return text, failed


def _usage(stats: dict[str, Any]) -> Usage | None:
    if not stats:
        return None
    cached = number(stats.get("cached"))
    fresh = stats.get("input")
    return Usage(
        input_tokens=number(fresh)
        if fresh is not None
        else max(0, number(stats.get("input_tokens")) - cached),
        output_tokens=number(stats.get("output_tokens")),
        cache_read_tokens=cached,
    )


def _conclude(out: CliOutcome, result: dict[str, Any] | None, exit_code: int, stderr: str) -> None:
    failure = ""
    if result is not None and result.get("status") == "error":
        failure = str(mapping(result.get("error")).get("message") or "error")
        out.notes.append(f"gemini: {failure[:300]}")
    if out.final_text or out.tool_calls:
        return
    if failure:
        out.error = f"gemini run error: {failure[:500]}"
        out.error_kind = error_kind(None, failure)
    elif exit_code != 0:
        out.error = f"gemini exited with {exit_code}" + (f": {tail(stderr)}" if stderr else "")
    elif result is None:
        out.error = "gemini printed no result event and no answer"
    else:
        out.error = "gemini printed no answer and called no tool"
