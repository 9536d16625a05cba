"""Codex, headless: its command line and how to read its `exec --json` events.

Invocation: `codex exec --json --skip-git-repo-check -m ID -`,
the prompt on stdin. Codex ignores `OPENAI_BASE_URL`, so the proxy is declared as a model
provider with `-c` (Responses API, its retries off: the proxy retries). Its own sandbox is
bypassed when ours is on (nesting bubblewrap fails) and is `workspace-write` when ours is
off, as evolve does. Skills are read from `.agents/skills/NAME/SKILL.md`. Codex has no
turn cap of its own; the proxy refuses the call past the cap, which ends the run there.

Nothing but the case attaches (docs/harness.md, "What reaches a run"):
`--ignore-user-config` leaves `$CODEX_HOME/config.toml` unread (and with it every trusted
project, so a project's `.codex/config.toml` stays off too), `--ignore-rules` the user's and
the project's `.rules`; `-c mcp_servers=...` holds exactly `Invocation.mcp`. The machine's
`/etc/codex` files, which no flag turns off, make the run refuse to start
(`machine_config`).

Reading the stream, as evolve does: each completed `command_execution` is a tool call
named so, its arguments the JSON-encoded command; `file_change` carries its changes; MCP and
function calls their whole item. The final answer is the `agent_message` texts joined with
newlines. A failed turn that left nothing behind is an error.
"""

from __future__ import annotations

import json
from typing import Any

from evolve_action.execute.harness import mcp_servers
from evolve_action.execute.harness.contract import CliSpec, Command, Harness, Invocation
from evolve_action.execute.harness.events import (
    CliOutcome,
    compact,
    empty,
    json_lines,
    mapping,
    tail,
)
from evolve_action.model.outcomes import ToolCall, Usage

_PROVIDER_ID = "evolve"
_TOOL_ITEMS = ("command_execution", "file_change", "mcp_tool_call", "function_call", "web_search")

_RUST_TRIPLES = {
    ("linux", "x64"): "x86_64-unknown-linux-musl",
    ("linux", "arm64"): "aarch64-unknown-linux-musl",
    ("darwin", "x64"): "x86_64-apple-darwin",
    ("darwin", "arm64"): "aarch64-apple-darwin",
}


def _native(system: str, arch: str, _libc: str) -> tuple[str, str]:
    triple = _RUST_TRIPLES.get((system, arch), f"{arch}-{system}")
    return f"node_modules/@openai/codex-{system}-{arch}", f"vendor/{triple}/bin/codex"


def _toml(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string


class Codex(Harness):
    name = "codex"
    cli = CliSpec("codex", "@openai/codex", _native, helper_dirs=("codex-path",))
    providers = ("openai",)
    skills_dir = ".agents/skills"
    home_dirs = (".codex",)
    caps_turns = False
    machine_config = ("/etc/codex/config.toml", "/etc/codex/managed_config.toml")

    def command(self, run: Invocation) -> Command:
        # Codex ignores `OPENAI_BASE_URL`: the proxy is a model provider declared with `-c`,
        # and only the key is a variable.
        provider = (
            f"model_providers.{_PROVIDER_ID}={{name={_toml(_PROVIDER_ID)}, "
            f"base_url={_toml(run.endpoint)}, env_key={_toml('OPENAI_API_KEY')}, "
            'wire_api="responses", request_max_retries=0, stream_max_retries=0}'
        )
        argv = [run.binary, "exec", "--json", "--skip-git-repo-check", "-m", run.model]
        argv += ["--ignore-user-config", "--ignore-rules", "-c", mcp_servers.codex(run.mcp)]
        if run.sandboxed:
            argv.append("--dangerously-bypass-approvals-and-sandbox")
        else:
            argv += ["--sandbox", "workspace-write"]
        argv += ["-c", f"model_provider={_toml(_PROVIDER_ID)}", "-c", provider]
        # Its analytics flush at exit waits seconds for a network the sandbox does not have.
        argv += ["-c", "analytics.enabled=false"]
        if run.system:
            argv += ["-c", f"developer_instructions={_toml(run.system)}"]
        return Command([*argv, "-"], {"OPENAI_API_KEY": run.token}, stdin=run.prompt)

    def parse(self, stdout: str, *, exit_code: int, stderr: str = "") -> CliOutcome:
        return parse(stdout, exit_code=exit_code, stderr=stderr)


def parse(stdout: str, *, exit_code: int, stderr: str = "") -> CliOutcome:
    if not stdout.strip():
        return empty(stderr)
    out = CliOutcome()
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
    elif kind == "mcp_tool_call":  # the server and its tool, as the model called it
        result = item.get("result") or item.get("error") or ""
        failed = item.get("status") == "failed" or bool(item.get("error"))
        out.tool_calls.append(
            ToolCall(
                str(item.get("tool") or kind),
                compact(item.get("arguments") or {}),
                compact(result),
                failed,
                str(item.get("id", "")),
                server=str(item.get("server") or ""),
            )
        )
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
