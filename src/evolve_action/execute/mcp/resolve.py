"""A case's MCP servers, resolved for one run: `McpServer` → `McpLaunch` (`model.mcp`).

A launch is the command line as the confinement's inside sees it: the agent (our SDK loop
through `client.py`, or a CLI from its own configuration) starts it in the run's workspace,
inside the run's confinement, with the scrubbed environment plus the variables the eval set.
A mock becomes our own server (`mock.py`, standard library only) with its answers in a spec
file under the workspace's `.tmp/`; its path is the one the confinement shows (`/workspace/...`
under bubblewrap). A URL must name the loopback: nothing else is reachable from inside.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from pathlib import Path

from evolve_action.execute.mcp import mock
from evolve_action.execute.sandbox.confine import (
    SANDBOX_ROOT,
    TMP_DIR,
    Choice,
    Confinement,
    Level,
    is_secret_name,
)
from evolve_action.execute.sandbox.python import python_for_commands
from evolve_action.model.mcp import McpLaunch, McpServer, loopback_problem

SPEC_DIR = f"{TMP_DIR}/evolve-mcp"  # the mocks' answers, inside the workspace
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


class McpStartError(Exception):
    """A server of the case cannot start in this run: a run error naming it, never a failure."""

    def __init__(self, server: str, why: str) -> None:
        super().__init__(f"MCP server {server!r}: {why}")
        self.server = server


async def launches(servers: Sequence[McpServer], confinement: Confinement) -> tuple[McpLaunch, ...]:
    """Each server as it starts in this run; raises `McpStartError` for one that cannot."""
    if not servers:
        return ()
    chosen = await confinement.level()
    bwrap = isinstance(chosen, Choice) and chosen.level is Level.BWRAP
    root = confinement.workspace.resolve()
    seen = SANDBOX_ROOT if bwrap else str(root)
    return tuple([await _launch(i, s, root, seen) for i, s in enumerate(servers)])


async def _launch(index: int, server: McpServer, root: Path, seen: str) -> McpLaunch:
    secret = next((name for name, _ in server.env if is_secret_name(name)), None)
    if secret is not None:
        raise McpStartError(
            server.name,
            f"its variable {secret!r} looks like a credential, and a run passes none to what "
            "the pull request starts; rename it, or mock the server",
        )
    if server.mock:
        python = await asyncio.to_thread(python_for_commands)
        if python is None:
            raise McpStartError(
                server.name, "no Python interpreter is within the confinement's reach to run "
                "the mock server; install python3 in /usr/bin",
            )  # fmt: skip
        name = f"{index}-{_UNSAFE.sub('_', server.name)[:60]}.json"
        await asyncio.to_thread(_write_spec, root / SPEC_DIR / name, server)
        source = Path(mock.__file__).read_text(encoding="utf-8")
        argv = (python, "-I", "-S", "-c", source, f"{seen}/{SPEC_DIR}/{name}")
        return McpLaunch(server.name, argv=argv, env=server.env, notes=("mock",))
    if server.url:
        problem = loopback_problem(server.url)
        if problem is not None:
            raise McpStartError(server.name, problem)
        return McpLaunch(server.name, url=server.url, env=server.env)
    if not server.command:
        raise McpStartError(server.name, "it has no command, URL or mock answers")
    return McpLaunch(server.name, argv=server.command, env=server.env)


def _write_spec(path: Path, server: McpServer) -> None:
    tools = [
        {"name": t.name, "description": t.description, "answer": t.answer, "is_error": t.is_error}
        for t in server.mock
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"name": server.name, "tools": tools}), encoding="utf-8")
    path.chmod(0o644)
