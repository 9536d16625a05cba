"""MCP servers an eval declares, as every stage sees them.

An eval names the servers its agent needs (Vally `mcpServers`, waza `required_mcp_servers`,
caliper `mcp:`, `claude plugin eval` mocks, evolve's `mcp:`); the loader turns each into an
`McpServer`. A server is either one the repository or a pinned package starts (`command`, a
stdio server; or `url`, an HTTP server that must listen on the run's loopback), or a mock:
`mock` holds the answers per tool, and our own mock server serves them. Before a run, the
executor resolves every server into an `McpLaunch`: the exact argv and environment that start
it inside the run's confinement. The SDK loop connects to those launches through the `mcp`
SDK; a CLI harness writes them into the CLI's own MCP configuration, and nothing else.

The with-skill and no-skill arms of a case get the same launches: the servers are the case's,
not the skill's.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from urllib.parse import urlsplit


@dataclass(frozen=True, slots=True)
class McpMockTool:
    """One tool of a mock server: what it is called, what it says it does, what it returns."""

    name: str
    answer: str  # the text the tool returns, whatever the arguments
    description: str = ""
    is_error: bool = False  # the answer is an error result


@dataclass(frozen=True, slots=True)
class McpServer:
    """One MCP server a case declares. Exactly one of `command`, `url` and `mock` is set."""

    name: str  # as the eval wrote it; the agent sees its tools as `mcp__<name>__<tool>`
    command: tuple[str, ...] = ()  # a stdio server: argv, run in the run's workspace
    # Variables the eval sets for the server. Never a secret: the loader refuses names that
    # look like keys (`sandbox.env.is_secret_name`), and the confinement filters again.
    env: tuple[tuple[str, str], ...] = ()
    url: str = ""  # an HTTP server; only loopback addresses are accepted
    mock: tuple[McpMockTool, ...] = ()  # answers served by our own mock server
    # Where it was declared (`file:line`), for messages; not what a run depends on, so run
    # fingerprints leave it out (`plan.fingerprints.plain` skips a `location` field).
    source: str = field(default="", metadata={"location": True})


@dataclass(frozen=True, slots=True)
class McpLaunch:
    """A server ready to start inside one run's confinement: what a harness hands the agent."""

    name: str
    argv: tuple[str, ...] = ()  # stdio: the command line (our mock server is one too)
    env: tuple[tuple[str, str], ...] = ()
    url: str = ""  # HTTP: the loopback URL the agent connects to
    notes: tuple[str, ...] = field(default_factory=tuple)  # e.g. "mock"


def loopback_problem(url: str) -> str | None:
    """Why `url` is not an HTTP URL on the loopback (the only host a run reaches), or None."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return f"{url!r} is not an http(s) URL"
    host = parts.hostname or ""
    if host == "localhost":
        return None
    try:
        if ipaddress.ip_address(host).is_loopback:
            return None
    except ValueError:
        pass
    return (
        f"{url!r} is not on the loopback (127.0.0.1, ::1 or localhost), and a run reaches "
        "no other host"
    )
