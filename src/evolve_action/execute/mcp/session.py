"""One MCP client session, held by a task of its own.

The `mcp` SDK's transports run inside anyio task groups, and a task group that fails (the
server exits, its pipe breaks) cancels the task it was entered in. Entered in the agent loop's
task, a server dying mid-run would cancel the run at whatever it awaits, a provider request
say. So each session is opened, held and closed by a task of its own; the agent loop only
sends requests through it, and a dead server shows as a request that fails with "connection
closed", which the model sees as a tool error.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, TextIO

from evolve_action.execute.mcp.resolve import McpStartError

if TYPE_CHECKING:
    from mcp import ClientSession

# Opens the transport and the session on `stack` (the server's stderr goes to the file) and
# initializes it; raises whatever the SDK raises.
Opener = Callable[[contextlib.AsyncExitStack, TextIO], Awaitable["ClientSession"]]
_STDERR_SHOWN = 2000


@dataclass(frozen=True)
class Held:
    session: ClientSession
    close: Callable[[], Awaitable[None]]


async def hold(server: str, opener: Opener) -> Held:
    """The server's session, initialized; `McpStartError` (with its stderr) when it does not
    start. Call `close()` once done with it."""
    ready: asyncio.Future[ClientSession] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()
    task = asyncio.create_task(_keep(server, opener, ready, stop))
    try:
        session = await asyncio.shield(ready)
    except BaseException:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        raise

    async def close() -> None:
        stop.set()
        try:
            await asyncio.shield(asyncio.gather(task, return_exceptions=True))
        except asyncio.CancelledError:
            task.cancel()
            raise

    return Held(session, close)


async def _keep(
    server: str, opener: Opener, ready: asyncio.Future[ClientSession], stop: asyncio.Event
) -> None:
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        try:
            async with contextlib.AsyncExitStack() as stack:
                session = await opener(stack, log)
                ready.set_result(session)
                await stop.wait()
        except McpStartError as exc:
            _fail(ready, exc)
        except asyncio.CancelledError:
            _fail(ready, McpStartError(server, "its start was cancelled"))
            raise
        except BaseException as exc:  # the transport's failure, wrapped in exception groups
            _fail(ready, McpStartError(server, why(exc, log)))
        _fail(ready, McpStartError(server, why(None, log)))


def _fail(ready: asyncio.Future[ClientSession], exc: McpStartError) -> None:
    if not ready.done():
        ready.set_exception(exc)


def why(exc: BaseException | None, log: IO[str]) -> str:
    """Why a server did not start: what failed, and the end of its stderr."""
    log.seek(0)
    said = log.read()[-_STDERR_SHOWN:].strip()
    message = "it exited before answering `initialize`"
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        message = "it did not answer `initialize` in time"
    elif exc is not None and not isinstance(exc, BaseExceptionGroup | asyncio.CancelledError):
        text = str(exc) or type(exc).__name__
        if "closed" not in text.lower() and "broken" not in type(exc).__name__.lower():
            message = text
    return f"it did not start: {message}" + (f"; its stderr: {said}" if said else "")
