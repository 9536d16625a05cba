"""Claude Code, headless: its command line and how to read its `stream-json` events.

Invocation (as evolve runs it): `claude -p --output-format stream-json
--verbose --model ID --max-turns N --allowedTools "..."`, the prompt on stdin. The tools are
granted by `--allowedTools` rather than `--dangerously-skip-permissions`, which Claude Code
refuses as root (GitHub runs container actions as root). Its retries are off
(`CLAUDE_CODE_MAX_RETRIES=0`): the proxy retries, once, for every call. Skills are read from
`.claude/skills/NAME/SKILL.md` in the working directory and loaded with its `Skill` tool.

Nothing but the case attaches (docs/harness.md, "What reaches a run"): `--strict-mcp-config`
with `--mcp-config` holding exactly `Invocation.mcp` (none: an empty list), so neither
`~/.claude.json`, a project's `.mcp.json` nor a plugin's servers start; their tools are
allowed as `mcp__NAME`. `--setting-sources project` reads the project's
`.claude/settings.json` (the skills it stages are a project source too) and never the
user's `~/.claude/settings.json` nor `.claude/settings.local.json`. The machine's managed
files, which no flag turns off, make the run refuse to start (`machine_config`).

Reading the stream follows evolve's rules: every `tool_use` block of every
`assistant` event is a tool call, its result the matching `tool_result`; the final answer is
the last `result` event's `result`. Empty output, no result event from a failed process, a
usage-limit rejection, or an error result with no text are errors; a run stopped at the turn
cap is graded like the SDK loop's, on the last text it wrote.
"""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

from evolve_action.execute.harness import mcp_servers
from evolve_action.execute.harness.contract import CliSpec, Command, Harness, Invocation
from evolve_action.execute.harness.events import (
    CliOutcome,
    compact,
    empty,
    items,
    json_lines,
    mapping,
    tail,
    text_of,
)
from evolve_action.execute.tools.specs import AGENT_TOOLS, TRIGGER_TOOLS
from evolve_action.model.outcomes import ErrorKind, ToolCall, Usage


def _native(system: str, arch: str, libc: str) -> tuple[str, str]:
    suffix = "-musl" if libc == "musl" else ""
    return f"node_modules/@anthropic-ai/claude-code-{system}-{arch}{suffix}", "claude"


class ClaudeCode(Harness):
    name = "claude"
    cli = CliSpec("claude", "@anthropic-ai/claude-code", _native)
    providers = ("anthropic",)
    skills_dir = ".claude/skills"
    home_dirs = (".claude",)
    machine_config = (
        "/etc/claude-code/managed-settings.json",
        "/etc/claude-code/managed-settings.d",
        "/etc/claude-code/managed-mcp.json",
    )
    env = MappingProxyType(
        {
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_MAX_RETRIES": "0",
        }
    )

    def command(self, run: Invocation) -> Command:
        argv = [run.binary, "-p", "--output-format", "stream-json", "--verbose"]
        argv += ["--model", run.model, "--max-turns", str(run.max_turns)]
        tools = TRIGGER_TOOLS if run.trigger else AGENT_TOOLS
        argv += ["--allowedTools", " ".join([*tools, *(f"mcp__{m.name}" for m in run.mcp)])]
        argv += ["--strict-mcp-config", "--mcp-config", mcp_servers.claude(run.mcp)]
        argv += ["--setting-sources", "project"]
        if run.sandboxed:
            # Ours confines it already; a sandbox inside bubblewrap would only fail (as in
            # evolve).
            argv += ["--settings", json.dumps({"sandbox": {"enabled": False}})]
        if run.system:
            argv += ["--append-system-prompt", run.system]
        env = {"ANTHROPIC_BASE_URL": run.endpoint, "ANTHROPIC_API_KEY": run.token}
        return Command(argv, env, stdin=run.prompt)

    def parse(self, stdout: str, *, exit_code: int, stderr: str = "") -> CliOutcome:
        return parse(stdout, exit_code=exit_code, stderr=stderr)


def parse(stdout: str, *, exit_code: int, stderr: str = "") -> CliOutcome:
    if not stdout.strip():
        return empty(stderr)
    out = CliOutcome()
    calls: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    results: dict[str, tuple[str, bool]] = {}
    last_text = ""
    result: dict[str, Any] | None = None
    rejected: dict[str, Any] | None = None
    for event in json_lines(stdout):
        kind = event.get("type")
        blocks = items(mapping(event.get("message")).get("content"))
        if kind == "assistant":
            for block in blocks:
                if block.get("type") == "tool_use" and block.get("id") not in calls:
                    calls[str(block.get("id"))] = block
                    order.append(str(block.get("id")))
                elif block.get("type") == "text" and block.get("text"):
                    last_text = str(block["text"])
        elif kind == "user":
            for block in blocks:
                if block.get("type") == "tool_result":
                    text = text_of(block.get("content"))
                    results[str(block.get("tool_use_id"))] = (text, bool(block.get("is_error")))
        elif kind == "result":
            result = event
        elif kind == "rate_limit_event":
            info = event.get("rate_limit_info") or {}
            if isinstance(info, dict) and info.get("status") == "rejected":
                rejected = info
    for call_id in order:
        block = calls[call_id]
        text, is_error = results.get(call_id, ("", False))
        name = str(block.get("name", ""))
        out.tool_calls.append(
            ToolCall(name, compact(block.get("input", {})), text, is_error, call_id)
        )
    if result is None:
        if exit_code != 0:
            out.error = f"unparseable CLI output (exit {exit_code})"
            if stderr.strip():
                out.error += f": {tail(stderr)}"
        else:
            out.final_text = stdout.strip()
        return out
    _read_result(out, result, last_text)
    if rejected is not None and (out.usage is None or out.usage.output_tokens == 0):
        resets = rejected.get("resetsAt") or rejected.get("resets_at")
        out.error = f"usage limit reached ({rejected.get('rateLimitType', 'unknown')})"
        out.error += f", resets {resets}" if resets else ""
        out.error_kind = ErrorKind.QUOTA
    elif "usage limit reached" in out.final_text.lower() and not out.tool_calls:
        out.error, out.error_kind = f"usage limit reached: {out.final_text[:200]}", ErrorKind.QUOTA
    return out


def _read_result(out: CliOutcome, result: dict[str, Any], last_text: str) -> None:
    text = result.get("result")
    out.final_text = text if isinstance(text, str) else ""
    turns = result.get("num_turns")
    out.turns = turns if isinstance(turns, int) else None
    usage = result.get("usage")
    if isinstance(usage, dict):
        out.usage = Usage(
            input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            cache_read_tokens=int(usage.get("cache_read_input_tokens") or 0),
            cache_write_tokens=int(usage.get("cache_creation_input_tokens") or 0),
            cost_usd=result.get("total_cost_usd")
            if isinstance(result.get("total_cost_usd"), int | float)
            else None,
        )
    subtype = str(result.get("subtype", ""))
    if subtype == "error_max_turns":
        out.stop_reason = "max_turns"
        out.final_text = out.final_text or last_text
        out.notes.append("stopped at the turn cap (Claude Code's --max-turns)")
    elif result.get("is_error") and not out.final_text:
        errors = result.get("errors")
        detail = "; ".join(map(str, errors)) if isinstance(errors, list) else ""
        out.error = f"claude run error ({subtype or 'unknown'})" + (f": {detail}" if detail else "")
