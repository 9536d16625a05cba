"""Reading MCP server declarations, in the shape the tools share, into `McpServer`s.

Every format that declares servers writes the MCP clients' configuration shape: a mapping
from a server's name to `{command, args, env}` (a stdio server) or `{url}` (with `type: http`,
`sse`, `streamable-http`), or a list of such entries each with its `name`. Ours adds `mock:`,
the answers of our own mock server, by tool name (a text, or `{answer, description,
is_error}`), or as a list of `{name, answer, ...}`.

What a run cannot honour is warned, naming the case, and the server is left out (the case
runs without it, and fails for a reason its author can read): a URL off the loopback, a
variable that looks like a credential or a value taken from the host's environment
(`${VAR}`), request headers (a token, usually). A field of the wrong type is an error.
"""

from __future__ import annotations

import re
from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.model.mcp import McpMockTool, McpServer, loopback_problem
from evolve_action.util.secret_names import is_secret_name
from evolve_action.util.text import json_kind

At = tuple[str | int, ...]
HTTP_TYPES = frozenset({"http", "sse", "streamable-http", "streamable_http", "streamableHttp"})
STDIO_TYPES = frozenset({"stdio", "local"})
ANSWER_KEYS = ("answer", "returns", "response", "result", "output", "text")
_FROM_HOST = re.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{env:")
SERVER_KEYS = frozenset(
    {"name", "type", "transport", "command", "args", "env", "url", "mock", "tools", "cwd"}
    | {"headers", "description", "timeout", "disabled"}
)


def read_servers(problems: Problems, at: At, value: Any, *, case: str) -> tuple[McpServer, ...]:
    """The servers declared at `at` (a mapping by name, or a list of entries with `name`).
    `case` names the case (or "every case") in the warnings."""
    if value is None:
        return ()
    entries: list[tuple[At, str, Any]] = []
    if isinstance(value, dict):
        entries = [((*at, name), str(name), entry) for name, entry in value.items()]
    elif isinstance(value, list):
        for i, entry in enumerate(value):
            name = entry.get("name") if isinstance(entry, dict) else None
            if not isinstance(name, str) or not name.strip():
                problems.error((*at, i), "an MCP server in a list needs a `name`")
                continue
            entries.append(((*at, i), name.strip(), entry))
    else:
        problems.error(at, f"MCP servers are a mapping by name, not {json_kind(value)}")
        return ()
    servers = [_server(problems, where, name, entry, case) for where, name, entry in entries]
    return tuple(s for s in servers if s is not None)


def _server(problems: Problems, at: At, name: str, raw: Any, case: str) -> McpServer | None:
    if not isinstance(raw, dict):
        problems.error(at, f"MCP server {name!r} is a mapping, not {json_kind(raw)}")
        return None
    origin = problems.origin(*at)
    source = f"{origin.path}:{origin.line}" if origin.line else origin.path

    def skip(field: str, why: str) -> None:
        problems.warn((*at, field), f"{case}: MCP server {name!r} is not started: {why}; the "
                      "case runs without it")  # fmt: skip

    for key in raw:
        if key not in SERVER_KEYS:
            problems.warn((*at, key), f"MCP server {name!r}: unknown key {key!r} is ignored")
    if raw.get("disabled") is True:
        return None
    if raw.get("headers"):
        skip("headers", "it sends request headers (a credential, usually), which a run never has")
        return None
    env = _env(problems, at, name, raw.get("env"), skip)
    if env is None:
        return None
    if "mock" in raw:
        tools = _mock(problems, (*at, "mock"), name, raw["mock"])
        return McpServer(name, env=env, mock=tools, source=source) if tools else None
    kind = raw.get("type", raw.get("transport"))
    url = raw.get("url")
    if url is not None or kind in HTTP_TYPES:
        if not isinstance(url, str) or not url.strip():
            problems.error((*at, "url"), f"MCP server {name!r} of type {kind!r} needs a `url`")
            return None
        problem = loopback_problem(url.strip())
        if problem is not None:
            skip("url", problem)
            return None
        return McpServer(name, env=env, url=url.strip(), source=source)
    if kind is not None and kind not in STDIO_TYPES:
        skip("type", f"its type {kind!r} is not one a run starts (stdio, http)")
        return None
    argv = _argv(problems, at, name, raw)
    return McpServer(name, command=argv, env=env, source=source) if argv else None


def _argv(problems: Problems, at: At, name: str, raw: dict[str, Any]) -> tuple[str, ...]:
    command, args = raw.get("command"), raw.get("args", [])
    if isinstance(command, list) and command and all(isinstance(c, str) for c in command):
        argv = list(command)
    elif isinstance(command, str) and command.strip():
        argv = [command.strip()]
    else:
        where = (*at, "command") if "command" in raw else at
        problems.error(where, f"MCP server {name!r} needs a `command`, a `url` or `mock` answers")
        return ()
    if not isinstance(args, list) or not all(isinstance(a, str | int | float) for a in args):
        problems.error((*at, "args"), f"MCP server {name!r}: `args` is a list of strings")
        return ()
    return tuple(argv + [str(a) for a in args])


Env = tuple[tuple[str, str], ...]


def _env(problems: Problems, at: At, name: str, raw: Any, skip: Any) -> Env | None:
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        problems.error((*at, "env"), f"MCP server {name!r}: `env` is a mapping of variables")
        return None
    pairs = []
    for key, value in raw.items():
        text = str(value) if isinstance(value, str | int | float | bool) else None
        if text is None:
            problems.error((*at, "env", key), f"the variable {key!r} must be a text")
            return None
        if is_secret_name(str(key)):
            skip("env", f"its variable {key!r} looks like a credential, and a run passes none")
            return None
        if _FROM_HOST.search(text):
            skip("env", f"its variable {key!r} takes a value from the host's environment "
                 f"({text!r}), which a run never passes on")  # fmt: skip
            return None
        pairs.append((str(key), text))
    return tuple(sorted(pairs))


def _mock(problems: Problems, at: At, name: str, raw: Any) -> tuple[McpMockTool, ...]:
    if isinstance(raw, dict) and isinstance(raw.get("tools"), dict | list):
        at, raw = (*at, "tools"), raw["tools"]
    items: list[tuple[At, str, Any]] = []
    if isinstance(raw, dict):
        items = [((*at, tool), str(tool), spec) for tool, spec in raw.items()]
    elif isinstance(raw, list):
        for i, spec in enumerate(raw):
            tool = spec.get("name") if isinstance(spec, dict) else None
            if not isinstance(tool, str) or not tool.strip():
                problems.error((*at, i), "a mocked tool in a list needs a `name`")
                continue
            items.append(((*at, i), tool.strip(), spec))
    else:
        problems.error(at, f"`mock` of MCP server {name!r} maps tool names to their answers")
        return ()
    tools = [_tool(problems, where, tool, spec) for where, tool, spec in items]
    if not items:
        problems.error(at, f"`mock` of MCP server {name!r} declares no tool")
    return tuple(t for t in tools if t is not None)


def _tool(problems: Problems, at: At, tool: str, spec: Any) -> McpMockTool | None:
    if isinstance(spec, str):
        return McpMockTool(tool, spec)
    if not isinstance(spec, dict):
        problems.error(at, f"mocked tool {tool!r}: an answer text or a mapping with `answer`")
        return None
    key = next((k for k in ANSWER_KEYS if k in spec), None)
    answer = spec.get(key) if key else None
    if not isinstance(answer, str):
        problems.error(at, f"mocked tool {tool!r} needs an `answer` text")
        return None
    description = spec.get("description")
    is_error = spec.get("is_error", spec.get("isError", spec.get("error", False)))
    return McpMockTool(tool, answer, description if isinstance(description, str) else "",
                       is_error is True)  # fmt: skip
