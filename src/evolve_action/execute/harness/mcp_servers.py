"""The case's MCP servers (`Invocation.mcp`) in the shapes the agent CLIs read, one function
each; every harness passes exactly these and keeps every other MCP source of the CLI off (see
each harness's docstring and docs/harness.md, "What reaches a run").

An empty `Invocation.mcp` is an empty list, never "the CLI's defaults": the arms of a case
get the same servers, and a run without declared servers gets none at all.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from evolve_action.model.mcp import McpLaunch


def _checked(launches: Sequence[McpLaunch]) -> Sequence[McpLaunch]:
    names = [launch.name for launch in launches]
    for launch in launches:
        if names.count(launch.name) > 1:
            raise ValueError(f"two MCP servers are named {launch.name!r}; each needs its own name")
        if bool(launch.argv) == bool(launch.url):
            raise ValueError(
                f"the MCP server {launch.name!r} needs a command or a URL, exactly one of them"
            )
    return launches


def claude(launches: Sequence[McpLaunch]) -> str:
    """Claude Code's `--mcp-config` JSON: `{"mcpServers": {name: {...}}}`."""
    servers: dict[str, Any] = {}
    for launch in _checked(launches):
        if launch.url:
            servers[launch.name] = {"type": "http", "url": launch.url}
        else:
            servers[launch.name] = {
                "type": "stdio",
                "command": launch.argv[0],
                "args": list(launch.argv[1:]),
                "env": dict(launch.env),
            }
    return json.dumps({"mcpServers": servers})


def copilot(launches: Sequence[McpLaunch]) -> str:
    """Copilot CLI's `--additional-mcp-config` JSON; `tools: ["*"]` offers every tool."""
    servers: dict[str, Any] = {}
    for launch in _checked(launches):
        if launch.url:
            servers[launch.name] = {"type": "http", "url": launch.url, "tools": ["*"]}
        else:
            servers[launch.name] = {
                "type": "local",
                "command": launch.argv[0],
                "args": list(launch.argv[1:]),
                "env": dict(launch.env),
                "tools": ["*"],
            }
    return json.dumps({"mcpServers": servers})


def opencode(launches: Sequence[McpLaunch]) -> dict[str, Any]:
    """OpenCode's `mcp` configuration key."""
    servers: dict[str, Any] = {}
    for launch in _checked(launches):
        if launch.url:
            servers[launch.name] = {"type": "remote", "url": launch.url, "enabled": True}
        else:
            servers[launch.name] = {
                "type": "local",
                "command": list(launch.argv),
                "environment": dict(launch.env),
                "enabled": True,
            }
    return servers


def codex(launches: Sequence[McpLaunch]) -> str:
    """Codex's `-c mcp_servers=...` value: one TOML inline table (a JSON string is a valid
    TOML basic string, and quoted keys take any server name)."""

    def text(value: str) -> str:
        return json.dumps(value)

    def table(pairs: Sequence[tuple[str, str]]) -> str:
        return "{" + ", ".join(f"{text(k)} = {v}" for k, v in pairs) + "}"

    entries = []
    for launch in _checked(launches):
        if launch.url:
            fields = [("url", text(launch.url))]
        else:
            args = "[" + ", ".join(text(a) for a in launch.argv[1:]) + "]"
            env = table([(k, text(v)) for k, v in launch.env])
            fields = [("command", text(launch.argv[0])), ("args", args), ("env", env)]
        entries.append((launch.name, table(fields)))
    return f"mcp_servers={table(entries)}"


def gemini(launches: Sequence[McpLaunch]) -> dict[str, Any]:
    """Gemini CLI's settings for them: `mcpServers`, and `mcp.allowed` naming exactly these.
    Gemini intersects every scope's allow-list, so a server another settings file adds (the
    workspace's `.gemini/settings.json`) is blocked; an empty list allows none."""
    servers: dict[str, Any] = {}
    for launch in _checked(launches):
        if launch.url:
            servers[launch.name] = {"httpUrl": launch.url}
        else:
            servers[launch.name] = {
                "command": launch.argv[0],
                "args": list(launch.argv[1:]),
                "env": dict(launch.env),
            }
    return {"mcpServers": servers, "mcp": {"allowed": list(servers)}}
