"""The SDK loop's entry to a case's MCP servers: resolved, started, listed, and closed with
the run; a server that cannot start ends the run as an error naming it (`McpStartError`).

The `mcp` SDK is imported inside `open_servers`, and only when the case declares a server:
loading this module costs a run without MCP nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING

from evolve_action.execute.agent import AgentError
from evolve_action.execute.mcp.resolve import McpStartError, launches
from evolve_action.execute.sandbox.confine import Confinement
from evolve_action.model.mcp import McpLaunch, McpServer
from evolve_action.model.outcomes import ErrorKind, Transcript
from evolve_action.model.provider import ProviderError

if TYPE_CHECKING:
    from evolve_action.execute.mcp.client import McpTools


@contextlib.asynccontextmanager
async def open_servers(
    servers: Sequence[McpServer],
    confinement: Confinement,
    *,
    label: str = "",
    deadline: float | None = None,
) -> AsyncIterator[McpTools | None]:
    """A case's `servers` started for this run (None without any); raises `AgentError`, with
    an empty transcript and the case's `label`, when one cannot start."""
    if not servers:
        yield None
        return
    from evolve_action.execute.mcp.client import McpTools

    resolved = await launches_for_run(servers, confinement, label=label)
    try:
        tools = await McpTools(resolved, confinement, deadline=deadline).__aenter__()
    except McpStartError as exc:
        raise _run_error(exc, label) from exc
    try:
        yield tools
    finally:
        await tools.__aexit__(None, None, None)


async def launches_for_run(
    servers: Sequence[McpServer], confinement: Confinement, *, label: str = ""
) -> tuple[McpLaunch, ...]:
    """The launches a harness hands its agent (`Invocation.mcp`); raises `AgentError` when a
    server cannot start in this run."""
    try:
        return await launches(servers, confinement)
    except McpStartError as exc:
        raise _run_error(exc, label) from exc


def _run_error(exc: McpStartError, label: str) -> AgentError:
    return AgentError(ProviderError(ErrorKind.WORKSPACE, str(exc)), Transcript(), label=label)
