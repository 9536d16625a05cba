"""A tiny MCP server over stdio, written by hand (standard library only), for the tests that
run the real agent CLIs: newline-delimited JSON-RPC 2.0 on stdin and stdout, as the MCP
stdio transport says.

    python mcp_stdio.py MARKER TOOL ANSWER

On start it appends its own process id to the file MARKER (a test that planted it where
it must never be started checks that the file never appears; one that declared it checks
that it does). It answers `initialize`, `ping`, `tools/list` (one tool, TOOL, taking an
optional string `query`) and `tools/call` (the text ANSWER, followed by the arguments it
was given, so a test sees that the model's call reached it); anything else with an id gets
"method not found". Run as a file (`python -I -S`), it imports nothing of the repository.
"""

from __future__ import annotations

import json
import os
import sys

PROTOCOL = "2025-06-18"


def _tool(name: str) -> dict[str, object]:
    schema = {"type": "object", "properties": {"query": {"type": "string"}}}
    return {"name": name, "description": f"Answers questions ({name}).", "inputSchema": schema}


def answer(message: dict[str, object], tool: str, reply: str) -> dict[str, object] | None:
    """The response to one request; None for a notification."""
    if "id" not in message:
        return None
    method = message.get("method")
    params = message.get("params")
    params = params if isinstance(params, dict) else {}
    result: dict[str, object]
    if method == "initialize":
        asked = params.get("protocolVersion")
        result = {
            "protocolVersion": asked if isinstance(asked, str) else PROTOCOL,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "evolve-test-mcp", "version": "1.0"},
        }
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": [_tool(tool)]}
    elif method == "tools/call" and params.get("name") == tool:
        said = json.dumps(params.get("arguments") or {}, sort_keys=True)
        result = {"content": [{"type": "text", "text": f"{reply} {said}"}], "isError": False}
    else:
        error = {"code": -32601, "message": f"method not found: {method}"}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def main(argv: list[str]) -> int:
    marker, tool, reply = argv[1], argv[2], argv[3]
    with open(marker, "a", encoding="utf-8") as file:
        file.write(f"{os.getpid()}\n")
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        response = answer(message, tool, reply) if isinstance(message, dict) else None
        if response is not None:
            sys.stdout.write(json.dumps(response) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
