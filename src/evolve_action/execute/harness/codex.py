"""Codex, headless: its command line and how to read its `exec --json` events.

Invocation: `codex exec --json --skip-git-repo-check -m ID -`,
the prompt on stdin. Codex ignores `OPENAI_BASE_URL`, so the proxy is declared as a model
provider with `-c` (Responses API, its retries off: the proxy retries). Its own sandbox is
bypassed when ours is on (nesting bubblewrap fails) and is `workspace-write` when ours is
off, as evolve does. Skills are read from `.agents/skills/NAME/SKILL.md`. Codex has no
turn cap of its own; the proxy refuses the call past the cap, which ends the run there.

Reading the stream, as evolve does: each completed `command_execution` is a tool call
named so, its arguments the JSON-encoded command; `file_change` carries its changes; MCP and
function calls their whole item. The final answer is the `agent_message` texts joined with
newlines. A failed turn that left nothing behind is an error.
"""

from __future__ import annotations

import json
from typing import Any

from evolve_action.execute.harness.events import CliOutcome, compact, json_lines, mapping, tail
from evolve_action.model.outcomes import ToolCall, Usage

NAME = "codex"
PROVIDER = "openai"
SKILLS_DIR = ".agents/skills"
_PROVIDER_ID = "evolve"
_TOOL_ITEMS = ("command_execution", "file_change", "mcp_tool_call", "function_call", "web_search")


def endpoint(base_url: str, token: str) -> dict[str, str]:
    """The variables Codex reads: only the key (the URL is a `-c` option, see `command`)."""
    return {"OPENAI_API_KEY": token}


def _toml(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string


def command(
    binary: str,
    *,
    model: str,
    base_url: str,
    sandboxed: bool,
    system: str | None = None,
) -> list[str]:
    provider = (
        f"model_providers.{_PROVIDER_ID}={{name={_toml(_PROVIDER_ID)}, "
        f"base_url={_toml(base_url + '/' + PROVIDER)}, env_key={_toml('OPENAI_API_KEY')}, "
        'wire_api="responses", request_max_retries=0, stream_max_retries=0}'
    )
    argv = [binary, "exec", "--json", "--skip-git-repo-check", "-m", model]
    if sandboxed:
        argv.append("--dangerously-bypass-approvals-and-sandbox")
    else:
        argv += ["--sandbox", "workspace-write"]
    argv += ["-c", f"model_provider={_toml(_PROVIDER_ID)}", "-c", provider]
    # Its analytics flush at exit waits seconds for a network the sandbox does not have.
    argv += ["-c", "analytics.enabled=false"]
    if system:
        argv += ["-c", f"developer_instructions={_toml(system)}"]
    return [*argv, "-"]


def parse(stdout: str, *, exit_code: int, stderr: str = "") -> CliOutcome:
    out = CliOutcome()
    if not stdout.strip():
        out.error = "empty CLI output" + (f": {tail(stderr)}" if stderr.strip() else "")
        return out
    messages: list[str] = []
    failure = ""
    for event in json_lines(stdout):
        kind = event.get("type")
        item = mapping(event.get("item"))
        if kind == "item.completed":
            _item(out, item, messages)
        elif kind == "turn.completed" and isinstance(event.get("usage"), dict):
            out.usage = _usage(event["usage"])
        elif kind == "turn.failed":
            error = mapping(event.get("error"))
            failure = str(error.get("message") or "turn failed")
        elif kind == "error":
            failure = str(event.get("message") or "error")
    out.final_text = "\n".join(messages)
    if failure:
        out.notes.append(f"codex: {failure[:300]}")
        if not messages and not out.tool_calls:
            out.error = f"codex run error: {failure[:500]}"
    elif exit_code != 0 and not messages and not out.tool_calls:
        out.error = f"codex exited with {exit_code}" + (f": {tail(stderr)}" if stderr else "")
    return out


def _item(out: CliOutcome, item: dict[str, Any], messages: list[str]) -> None:
    kind = str(item.get("type", ""))
    if kind == "agent_message":
        messages.append(str(item.get("text", "")))
    elif kind == "command_execution":
        code = item.get("exit_code")
        failed = item.get("status") == "failed" or (isinstance(code, int) and code != 0)
        out.tool_calls.append(
            ToolCall(
                kind,
                json.dumps(str(item.get("command", "")), ensure_ascii=False),
                str(item.get("aggregated_output", "")),
                failed,
                str(item.get("id", "")),
            )
        )
    elif kind == "file_change":
        changes = compact(item.get("changes", []))
        failed = item.get("status") == "failed"
        out.tool_calls.append(ToolCall(kind, changes, "", failed, str(item.get("id", ""))))
    elif kind in _TOOL_ITEMS:
        result = item.get("result") or item.get("output") or ""
        out.tool_calls.append(
            ToolCall(kind, compact(item), compact(result), False, str(item.get("id", "")))
        )
    elif kind == "error" and item.get("message"):
        out.notes.append(f"codex: {str(item['message'])[:300]}")


def _usage(raw: dict[str, Any]) -> Usage:
    cached = int(raw.get("cached_input_tokens") or 0)
    return Usage(
        input_tokens=max(0, int(raw.get("input_tokens") or 0) - cached),
        output_tokens=int(raw.get("output_tokens") or 0),
        cache_read_tokens=cached,
        cache_write_tokens=int(raw.get("cache_write_input_tokens") or 0),
    )
