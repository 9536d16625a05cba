"""Our mock MCP server: a stdio server answering each tool with the text an eval declared.

    python -I -S -c "$(cat mock.py)" /workspace/.tmp/evolve-mcp/<server>.json

It runs inside the run's confinement, started by whichever agent the run has (our SDK loop
through the `mcp` SDK's client, or an agent CLI from its own MCP configuration), so it is
standard library only, like the harness's relay: a sandbox user or a bubblewrap namespace may
see neither our venv nor the package. Its source goes on the command line and its answers
in a spec file the resolver writes into the run's workspace (`resolve.py`):

    {"name": "<server>", "tools": [{"name", "description", "answer", "is_error"}]}

The protocol is MCP's stdio transport: one JSON-RPC 2.0 message per line on stdin and
stdout. It answers `initialize`, `ping`, `tools/list` and `tools/call` (the declared answer,
whatever the arguments, with `{{input.<field>}}` filled in from them), ignores
notifications, and refuses any other request with JSON-RPC's "method not found". It ends at
the end of its input.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

# The protocol revisions this server speaks; an older client gets its own back when listed.
VERSIONS = ("2025-06-18", "2025-03-26", "2024-11-05")
_METHOD_NOT_FOUND = -32601
_INVALID_PARAMS = -32602
_PARSE_ERROR = -32700


_INPUT = re.compile(r"\{\{\s*input\.([A-Za-z0-9_.-]+)\s*\}\}")


def filled(answer: str, arguments: dict[str, Any]) -> str:
    """`{{input.<field>}}` (a dotted path into the call's arguments) replaced by its value:
    a text as it is, anything else as JSON, a missing one by nothing."""

    def value(match: re.Match[str]) -> str:
        found: Any = arguments
        for key in match.group(1).split("."):
            found = found.get(key) if isinstance(found, dict) else None
        if found is None:
            return ""
        return found if isinstance(found, str) else json.dumps(found, ensure_ascii=False)

    return _INPUT.sub(value, answer)


def _tools(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in spec.get("tools", []) if isinstance(t, dict) and "name" in t}


def _listing(tools: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "name": name,
            "description": tool.get("description") or f"{name} (mocked for this eval)",
            # Any arguments are accepted: the answer does not depend on them.
            "inputSchema": {"type": "object", "additionalProperties": True},
        }
        for name, tool in tools.items()
    ]


def answer(spec: dict[str, Any], method: str, params: dict[str, Any]) -> dict[str, Any]:
    """The `result` (or `error`) member of the reply to one request."""
    tools = _tools(spec)
    if method == "initialize":
        asked = params.get("protocolVersion")
        version = asked if asked in VERSIONS else VERSIONS[0]
        return {
            "result": {
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": str(spec.get("name") or "mock"), "version": "1"},
            }
        }
    if method == "ping":
        return {"result": {}}
    if method == "tools/list":
        return {"result": {"tools": _listing(tools)}}
    if method == "tools/call":
        name = params.get("name")
        tool = tools.get(name) if isinstance(name, str) else None
        if tool is None:
            known = ", ".join(tools) or "none"
            message = f"no tool named {name!r} on this server; its tools: {known}"
            return {"error": {"code": _INVALID_PARAMS, "message": message}}
        arguments = params.get("arguments")
        text = filled(str(tool.get("answer", "")), arguments if isinstance(arguments, dict) else {})
        content = [{"type": "text", "text": text}]
        return {"result": {"content": content, "isError": bool(tool.get("is_error"))}}
    return {"error": {"code": _METHOD_NOT_FOUND, "message": f"method {method!r} not served"}}


def _reply(message: Any, spec: dict[str, Any]) -> dict[str, Any] | None:
    if not isinstance(message, dict) or "method" not in message:
        return None  # a response or junk: a mock sends no requests of its own
    if "id" not in message:
        return None  # a notification
    params = message.get("params")
    body = answer(spec, str(message["method"]), params if isinstance(params, dict) else {})
    return {"jsonrpc": "2.0", "id": message["id"], **body}


def serve(spec: dict[str, Any], stdin: Any = None, stdout: Any = None) -> None:
    source = stdin or sys.stdin
    sink = stdout or sys.stdout
    for line in source:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            reply: dict[str, Any] | None = {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": _PARSE_ERROR, "message": "not JSON"},
            }
        else:
            reply = _reply(message, spec)
        if reply is not None:
            sink.write(json.dumps(reply, ensure_ascii=False) + "\n")
            sink.flush()


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: mock.py SPEC.json", file=sys.stderr)
        return 2
    try:
        with open(argv[0], encoding="utf-8") as fh:
            spec = json.load(fh)
    except (OSError, ValueError) as exc:
        print(f"evolve mock MCP server: cannot read {argv[0]}: {exc}", file=sys.stderr)
        return 2
    serve(spec if isinstance(spec, dict) else {})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
