"""GitHub Copilot CLI's `--output-format json` events, read into a `CliOutcome`.

One JSON object a line, `{"type": ..., "data": {...}, "id", "timestamp", "parentId"}`
(`tests/data/cli_events/copilot.jsonl` is a recorded run). What matters here:

- `assistant.turn_start` opens a model turn (`data.turnId`); the turns are counted from it.
- `assistant.message`: the model's text (`data.content`) and the calls it asked for
  (`data.toolRequests`: `toolCallId`, `name`, `arguments`).
- `tool.execution_start` / `tool.execution_complete`: a tool call and its outcome
  (`data.success`, `data.result.content`, or `data.error.message`; a shell's exit code in
  `data.shellExecution.exitCode`). A skill is loaded by the `skill` tool.
- `session.skills_loaded` lists the skills it found (`source: "project"` for ours).
- `session.error`: a failed model call (`errorType`, `statusCode`, `message`).
- `result`: the last line (`exitCode`); its `usage` has no token counts for a BYOK
  provider, so tokens are the proxy's count alone.

The final answer is the text of the last assistant message that asked for no tool (else
the last text it wrote). No answer and no tool call, with an error or a failed exit, is an
error of the run, never a failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evolve_action.execute.harness.cli_stream import calls, conclude
from evolve_action.execute.harness.events import CliOutcome, empty, items, json_lines, mapping


@dataclass
class _Reading:
    order: list[str] = field(default_factory=list)
    calls: dict[str, tuple[str, Any]] = field(default_factory=dict)
    results: dict[str, tuple[str, bool]] = field(default_factory=dict)
    turns: set[str] = field(default_factory=set)
    answer: str = ""
    last_text: str = ""
    errors: list[tuple[Any, str]] = field(default_factory=list)
    skills: list[str] = field(default_factory=list)
    exit_code: int | None = None


def parse(stdout: str, *, exit_code: int, stderr: str = "") -> CliOutcome:
    if not stdout.strip():
        return empty(stderr)
    out, seen = CliOutcome(), _Reading()
    for event in json_lines(stdout):
        _read(seen, str(event.get("type", "")), mapping(event.get("data")), event)
    out.tool_calls = calls(seen.order, seen.calls, seen.results)
    out.final_text = seen.answer or seen.last_text
    out.turns = len(seen.turns) or None
    if seen.skills:
        out.notes.append(f"copilot found the skills: {', '.join(seen.skills[:20])}")
    # the CLI may exit 0 after a session whose own exit event reported a failure
    conclude(out, "copilot", seen.errors, exit_code or seen.exit_code or 0, stderr)
    return out


def _read(seen: _Reading, kind: str, data: dict[str, Any], event: dict[str, Any]) -> None:
    if kind == "assistant.turn_start":
        seen.turns.add(str(data.get("turnId", len(seen.turns))))
    elif kind == "assistant.message":
        _message(seen, data)
    elif kind == "tool.execution_start":
        _call(seen, str(data.get("toolCallId", "")), data.get("toolName"), data.get("arguments"))
    elif kind == "tool.execution_complete":
        seen.results[str(data.get("toolCallId", ""))] = _result(data)
    elif kind == "session.skills_loaded":
        project = [s for s in items(data.get("skills")) if s.get("source") == "project"]
        seen.skills = [str(s.get("name", "")) for s in project]
    elif kind == "session.error":
        seen.errors.append((data.get("statusCode"), str(data.get("message") or "error")))
    elif kind == "result" and isinstance(event.get("exitCode"), int):
        seen.exit_code = event["exitCode"]


def _message(seen: _Reading, data: dict[str, Any]) -> None:
    requests = items(data.get("toolRequests"))
    for request in requests:
        _call(
            seen, str(request.get("toolCallId", "")), request.get("name"), request.get("arguments")
        )
    content = data.get("content")
    if isinstance(content, str) and content.strip():
        seen.last_text = content
        if not requests:
            seen.answer = content


def _call(seen: _Reading, call_id: str, name: Any, arguments: Any) -> None:
    if call_id in seen.calls:
        return
    seen.order.append(call_id)
    seen.calls[call_id] = (str(name or ""), arguments if arguments is not None else {})


def _result(data: dict[str, Any]) -> tuple[str, bool]:
    result = mapping(data.get("result"))
    content = result.get("content")
    text = content if isinstance(content, str) else ""
    failed = data.get("success") is False
    if failed and not text:
        text = str(mapping(data.get("error")).get("message") or "")
    code = mapping(data.get("shellExecution")).get("exitCode")
    return text, failed or (isinstance(code, int) and code != 0)
