"""The SDK loop's side of a run's MCP servers: connect, list, call, close (`mcp` SDK client).

`McpTools` starts each launch inside the run's confinement (bubblewrap's command line, or the
pool user's helper) with the scrubbed environment, in the workspace, and talks to it through
the `mcp` SDK's stdio client. Its tools are offered as `mcp__<server>__<tool>`, Claude Code's
names, so an eval's tool assertions read the same on both harnesses.

At the unprivileged-user level every command's end kills all the user's processes, so a
server cannot live beside the agent's commands: there it is started for the listing and for
each call, and keeps no state between calls. Elsewhere it lives for the whole run. A server
that does not start, or does not list its tools, is `McpStartError`: the run errors, naming
the server and why.

The `mcp` SDK (pydantic and all) is imported here only, and this module only when a case
declares a server: a run without MCP never pays for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, TextIO, TypeVar

import anyio
import httpx
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

from evolve_action.execute.mcp.resolve import McpStartError
from evolve_action.execute.mcp.session import Held, hold
from evolve_action.execute.sandbox import user as sandbox_user
from evolve_action.execute.sandbox.confine import (
    SANDBOX_ROOT,
    Choice,
    Confinement,
    Level,
    bwrap_argv,
    harden_process,
)
from evolve_action.model.mcp import McpLaunch
from evolve_action.model.provider import ToolResultPart, ToolSpec

if TYPE_CHECKING:
    from mcp.types import CallToolResult, ListToolsResult

T = TypeVar("T")

PREFIX = "mcp__"
START_TIMEOUT_S = 60.0  # a package server may install itself on first start
_NAME = re.compile(r"[^A-Za-z0-9_-]")


def offered_name(server: str, tool: str) -> str:
    """The name the model sees: providers accept `[A-Za-z0-9_-]{1,64}` only."""
    return f"{PREFIX}{_NAME.sub('_', server)}__{_NAME.sub('_', tool)}"[:64]


class McpTools:
    """The tools of one run's MCP servers; `async with` starts and closes them."""

    def __init__(
        self,
        launches: Sequence[McpLaunch],
        confinement: Confinement,
        *,
        deadline: float | None = None,
    ) -> None:
        self.launches = tuple(launches)
        self.confinement = confinement
        self.deadline = deadline
        self._stack = contextlib.AsyncExitStack()
        self._held: dict[str, Held] = {}  # sessions live for the run (not at the user level)
        self._routes: dict[str, tuple[McpLaunch, str]] = {}  # offered name → server, tool
        self._specs: list[ToolSpec] = []
        self._per_call = False

    async def __aenter__(self) -> McpTools:
        chosen = await self.confinement.level()
        self._per_call = isinstance(chosen, Choice) and chosen.level is Level.USER
        try:
            for launch in self.launches:
                await self._list(launch)
        except BaseException:
            await self._stack.aclose()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    def specs(self) -> tuple[ToolSpec, ...]:
        return tuple(self._specs)

    def offers(self, name: str) -> bool:
        return name in self._routes

    async def call(self, name: str, arguments: str) -> ToolResultPart:
        """One tool call; a failure comes back as an `is_error` result the model can act on."""
        launch, tool = self._routes[name]
        try:
            args = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            return ToolResultPart("", f"Error: the arguments of {name} are not valid JSON "
                                  f"({exc.msg})", is_error=True)  # fmt: skip
        if not isinstance(args, dict):
            return ToolResultPart("", f"Error: the arguments of {name} must be an object", True)
        timeout = timedelta(seconds=self._left(START_TIMEOUT_S * 10))

        async def calling(session: ClientSession) -> CallToolResult:
            return await session.call_tool(tool, args, read_timeout_seconds=timeout)

        try:
            result = await self._using(launch, calling)
        except McpStartError as exc:
            return ToolResultPart("", f"Error: {exc}", is_error=True)
        except McpError as exc:
            return ToolResultPart("", f"Error: {launch.name}: {exc.error.message}", True)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
            # The server exited: its streams closed under the call (or before it was sent).
            return ToolResultPart("", f"Error: the MCP server {launch.name} has stopped", True)
        return ToolResultPart("", _text(result), is_error=bool(result.isError))

    async def _list(self, launch: McpLaunch) -> None:
        async def listing(session: ClientSession) -> ListToolsResult:
            return await session.list_tools()

        try:
            listed = await self._using(launch, listing)
        except McpError as exc:
            raise McpStartError(launch.name, f"listing its tools failed: {exc}") from exc
        for tool in listed.tools:
            offered = offered_name(launch.name, tool.name)
            if offered in self._routes:
                continue  # two names that read alike: the first is offered
            self._routes[offered] = (launch, tool.name)
            schema = dict(tool.inputSchema or {"type": "object"})
            schema.setdefault("type", "object")
            description = tool.description or f"{tool.name} from the MCP server {launch.name}"
            self._specs.append(ToolSpec(offered, description, schema))

    async def _using(self, launch: McpLaunch, op: Callable[[ClientSession], Awaitable[T]]) -> T:
        """`op` on the server's session: the run's, or (at the user level) one of its own."""
        live = self._held.get(launch.name)
        if live is not None:
            return await op(live.session)
        held = await hold(launch.name, lambda stack, log: self._open(launch, stack, log))
        if not self._per_call:
            self._held[launch.name] = held
            self._stack.push_async_callback(held.close)
            return await op(held.session)
        try:
            return await op(held.session)
        finally:
            await held.close()
            await _unlink_links(self.confinement)

    async def _open(
        self, launch: McpLaunch, stack: contextlib.AsyncExitStack, log: TextIO
    ) -> ClientSession:
        """The transport and the session, initialized (run by the task that holds them)."""
        timeout = self._left(START_TIMEOUT_S)
        if launch.url:
            read, write, _ = await stack.enter_async_context(
                streamable_http_client(launch.url, http_client=_loopback_client(stack, timeout))
            )
        else:
            params = await self._stdio(launch)
            read, write = await stack.enter_async_context(stdio_client(params, errlog=log))
        session = await stack.enter_async_context(
            ClientSession(read, write, read_timeout_seconds=timedelta(seconds=timeout))
        )
        await session.initialize()
        return session

    async def _stdio(self, launch: McpLaunch) -> StdioServerParameters:
        try:
            env = await self.confinement.environment(dict(launch.env))
        except ValueError as exc:
            raise McpStartError(launch.name, str(exc)) from exc
        root = self.confinement.workspace.resolve()
        chosen = await self.confinement.level()
        if isinstance(chosen, str):
            raise McpStartError(launch.name, chosen)
        argv = list(launch.argv)
        if chosen.level is Level.BWRAP:
            argv = bwrap_argv(root, SANDBOX_ROOT, argv, network=self.confinement.network,
                              hidden=self.confinement.masked())  # fmt: skip
        elif chosen.level is Level.USER:
            uid = await self.confinement.lend_user(self._left(START_TIMEOUT_S))
            if isinstance(uid, str):
                raise McpStartError(launch.name, uid)
            argv = sandbox_user.wrap(uid, argv)
        else:  # unconfined: at least our own environment stays unreadable to it
            harden_process()
        return StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=root)

    def _left(self, cap: float) -> float:
        if self.deadline is None:
            return cap
        return max(min(cap, self.deadline - time.monotonic()), 1.0)


async def _unlink_links(confinement: Confinement) -> None:
    """As after each confined command at the user level: no hard link into the workspace
    survives for our file tools and checks, which run as root, to follow."""
    await asyncio.to_thread(sandbox_user.unlink_hard_links, confinement.workspace.resolve())


def _text(result: CallToolResult) -> str:
    parts = []
    for block in result.content:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(str(getattr(block, "text", "")))
        else:
            mime = getattr(block, "mimeType", "") or kind
            parts.append(f"[{kind} content: {mime}]")
    if not parts and result.structuredContent is not None:
        parts.append(json.dumps(result.structuredContent, ensure_ascii=False))
    return "\n".join(parts) or "(no output)"


def _loopback_client(stack: contextlib.AsyncExitStack, timeout: float) -> httpx.AsyncClient:
    """The HTTP client of a loopback server, closed with its session. It reads no proxy from
    the host's environment (the request would leave the machine, and a proxy's address may
    hold a credential) and follows no redirect of its own accord (the SDK's transport follows
    one only within the server's origin); a streamed answer may take as long as a call may."""
    client = httpx.AsyncClient(
        timeout=httpx.Timeout(timeout, read=START_TIMEOUT_S * 10), follow_redirects=False,
        trust_env=False,
    )  # fmt: skip
    stack.push_async_callback(client.aclose)
    return client
