"""OpenCode's `run --format json` events, read into a `CliOutcome`.

One JSON object a line, `{"type", "timestamp", "sessionID", "part": {...}}`
(`tests/data/cli_events/opencode.jsonl` is a recorded run). Each model call is a step:

- `step_start` opens it; `step_finish` closes it with `part.reason` (`tool-calls`, `stop`,
  `length`), `part.tokens` (`input`, `output`, `reasoning`, `cache.read`, `cache.write`) and
  `part.cost` (OpenCode's own price for it).
- `text`: the model's text (`part.text`).
- `tool_use`: a finished tool call, `part.tool`, `part.callID` and `part.state`: `status`
  (`completed` or `error`), `input`, `output`, `error`, and for its shell `metadata.exit`.
  A skill is loaded by the `skill` tool (which needs `rg` on PATH).
- `error`: a failed call, `error.name` and `error.data` (`message`, `statusCode`).

The turns are the steps; the final answer is the text of the last step that called no tool
(else the last text written).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evolve_action.execute.harness.cli_stream import conclude, number
from evolve_action.execute.harness.events import CliOutcome, compact, empty, json_lines, mapping
from evolve_action.model.outcomes import ToolCall, Usage


@dataclass
class _Reading:
    steps: int = 0
    step_text: list[str] = field(default_factory=list)
    answer: str = ""
    last_text: str = ""
    usage: Usage = field(default_factory=Usage)
    cost: float | None = None
    stop: str = ""
    errors: list[tuple[Any, str]] = field(default_factory=list)


def parse(stdout: str, *, exit_code: int, stderr: str = "") -> CliOutcome:
    if not stdout.strip():
        return empty(stderr)
    out, seen = CliOutcome(), _Reading()
    for event in json_lines(stdout):
        _read(out, seen, str(event.get("type", "")), event)
    out.final_text = seen.answer or seen.last_text
    out.turns = seen.steps or None
    if seen.steps:
        seen.usage.cost_usd = seen.cost
        out.usage = seen.usage
    if seen.stop == "length":
        out.stop_reason = "max_tokens"
    conclude(out, "opencode", seen.errors, exit_code, stderr)
    return out


def _read(out: CliOutcome, seen: _Reading, kind: str, event: dict[str, Any]) -> None:
    part = mapping(event.get("part"))
    if kind == "step_start":
        seen.step_text = []
    elif kind == "text":
        text = part.get("text")
        if isinstance(text, str) and text.strip():
            seen.step_text.append(text)
            seen.last_text = text
    elif kind == "tool_use":
        out.tool_calls.append(_call(part))
    elif kind == "step_finish":
        _finish(seen, part)
    elif kind == "error":
        data = mapping(mapping(event.get("error")).get("data"))
        message = str(data.get("message") or mapping(event.get("error")).get("name") or "error")
        seen.errors.append((data.get("statusCode"), message))


def _call(part: dict[str, Any]) -> ToolCall:
    state = mapping(part.get("state"))
    output = state.get("output")
    text = output if isinstance(output, str) else ("" if output is None else compact(output))
    failed = state.get("status") == "error"
    if failed and not text:
        error = state.get("error")
        text = error if isinstance(error, str) else compact(error)
    code = mapping(state.get("metadata")).get("exit")
    failed = failed or (isinstance(code, int) and not isinstance(code, bool) and code != 0)
    arguments = state.get("input")
    return ToolCall(
        str(part.get("tool") or ""),
        compact(arguments if arguments is not None else {}),
        text,
        failed,
        str(part.get("callID") or ""),
    )


def _finish(seen: _Reading, part: dict[str, Any]) -> None:
    seen.steps += 1
    seen.stop = str(part.get("reason") or "")
    if seen.stop != "tool-calls" and seen.step_text:
        seen.answer = "".join(seen.step_text)
    tokens = mapping(part.get("tokens"))
    cache = mapping(tokens.get("cache"))
    seen.usage.input_tokens += number(tokens.get("input"))
    seen.usage.output_tokens += number(tokens.get("output")) + number(tokens.get("reasoning"))
    seen.usage.cache_read_tokens += number(cache.get("read"))
    seen.usage.cache_write_tokens += number(cache.get("write"))
    seen.usage.calls += 1
    cost = part.get("cost")
    if isinstance(cost, int | float) and not isinstance(cost, bool) and 0 <= cost < 1e9:
        seen.cost = (seen.cost or 0.0) + float(cost)
