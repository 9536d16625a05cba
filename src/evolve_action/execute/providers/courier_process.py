"""The courier process: sends the job's provider calls, so that the job never imports the SDK.

Started by `courier.start` (`python -m evolve_action.execute.providers.courier_process`) as
the job's own process starts, it imports what every SDK builds on (`COMMON`) on the machine's
other core, then the SDK and adapter modules the job names once it knows them, first needed
first, loading the CA bundle beside them if the job says a client may speak TLS
(`{"prepare": [...], "tls": true}`). Then it reads one call per line on standard input and
writes one answer per line on standard output, in the order answers come (`{"cancel": id}`
cancels a call the job gave up). A call names the adapter class (`module:Class`), the keyword
arguments to build it with (key, base URL, timeout) and the request body; it is sent by that
adapter's own `_send` on that adapter's own SDK client, so the request on the wire is the
one the job would have sent. The answer is the JSON the server sent, or the call's error
classified as the job would have (`faults.classify`), for the job's retry loop; a call that
could not be sent at all (its adapter failed to build) says so, and the job sends it itself.

Standard input is read from the start, in a thread, so the job's writes never wait for our
imports. End of input means the job needs no more calls: we leave at once, whatever is in
flight (nobody would read its answer) and however far the imports got (a job whose first
call goes elsewhere lets us go within milliseconds). Only our code runs here, never a PR's.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import json
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from evolve_action.execute.providers.faults import CallError, classify, wire_error
from evolve_action.model.outcomes import ErrorKind
from evolve_action.util import lazy

# What every SDK builds on, imported before the job says which SDKs it needs: their types'
# pydantic, the adapters' base, and the HTTP client and its transport (which a client would
# otherwise import as it is built, on the first call's path).
COMMON = (
    "pydantic",
    "anyio._backends._asyncio",
    "evolve_action.execute.providers.sdk",
    "httpx2",
    "httpcore2",
)


class _Inbox:
    """The job's lines: kept here by the reader thread until the event loop runs, then handed
    to the loop as they come (`attach`), with no thread between the pipe and the loop, so a
    burst of calls (eight runs answered at once) is taken in one wake-up."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._early: list[bytes] = []
        self._deliver: Callable[[bytes], object] | None = None

    def put(self, line: bytes) -> None:
        with self._lock:
            deliver = self._deliver
            if deliver is None:
                self._early.append(line)
                return
        deliver(line)

    def attach(self, loop: asyncio.AbstractEventLoop) -> asyncio.Queue[bytes]:
        lines: asyncio.Queue[bytes] = asyncio.Queue()
        with self._lock:
            for line in self._early:
                lines.put_nowait(line)
            self._early = []
            self._deliver = lambda line: loop.call_soon_threadsafe(lines.put_nowait, line)
        return lines


def main(modules: list[str]) -> None:
    inbox = _Inbox()
    threading.Thread(target=_read, args=(inbox,), name="courier-stdin", daemon=True).start()
    threading.Thread(target=_describe_platform, name="courier-platform", daemon=True).start()
    from evolve_action.model import provider_table
    from evolve_action.util import deferred_packages

    deferred_packages.defer(provider_table.sdk_type_hubs())
    _import([*COMMON, *modules])
    asyncio.run(_serve(inbox))


def _describe_platform() -> None:
    """The platform's description, which the OpenAI SDK puts in its first request's headers
    (`platform.platform()`, cached): it runs `uname -p` in a child process (5-10 ms), here
    beside the imports rather than on the first call's path."""
    with contextlib.suppress(Exception):
        import platform

        platform.platform()


def _load_ca_bundle() -> None:
    """Every TLS client's SSL context: OpenSSL reads the CA bundle (about a tenth of a second
    on the runner), mostly without the GIL, beside the SDK's import. Only once the job has
    said some client may speak TLS: a job whose servers are all plain HTTP never needs it,
    and building it anyway took the GIL from the imports for 0.05 s. A client built before
    it is done waits for it (`transport.ssl_context` holds a lock); one that fails is built
    again, and fails, where the call needs it."""
    from evolve_action.execute.providers import transport

    with contextlib.suppress(Exception):
        transport.ssl_context()


def _import(modules: list[str]) -> None:
    gc.disable()  # imports only allocate what lives to the end (`util/startup.py`)
    try:
        for name in modules:
            try:
                importlib.import_module(name)
            except ImportError:  # the call that needs it fails, and the job sends it itself
                continue
    finally:
        gc.freeze()
        gc.enable()


def _read(inbox: _Inbox) -> None:
    for line in sys.stdin.buffer:
        inbox.put(line)
    os._exit(0)  # the job wants no more calls: not even the rest of our imports


async def _serve(inbox: _Inbox) -> None:
    lines = inbox.attach(asyncio.get_running_loop())
    adapters: dict[str, Any] = {}
    running: dict[object, asyncio.Task[None]] = {}
    while True:
        message = _message(await lines.get())
        if isinstance(message.get("prepare"), list):  # the SDKs it needs, first needed first
            if message.get("tls", True):
                threading.Thread(target=_load_ca_bundle, name="courier-tls", daemon=True).start()
            _import([str(name) for name in message["prepare"]])
        elif "cancel" in message:  # the job gave the call up: so do we
            task = running.get(message["cancel"])
            if task is not None:
                task.cancel()
        else:
            call_id = message.get("id")
            running[call_id] = asyncio.create_task(_carry(message, adapters, running))


def _message(line: bytes) -> dict[str, Any]:
    """One line, parsed once; a line that is not a JSON object becomes a call nobody can
    send, so the job hears why rather than waiting for an answer."""
    try:
        message = json.loads(line)
    except ValueError as exc:
        return {"id": None, "malformed": str(exc)}
    return message if isinstance(message, dict) else {"id": None, "malformed": "not an object"}


async def _carry(
    call: dict[str, Any], adapters: dict[str, Any], running: dict[object, Any]
) -> None:
    try:
        reply = await _reply(call, adapters)
    finally:
        running.pop(call.get("id"), None)
    try:
        text = json.dumps(reply)
    except (TypeError, ValueError) as exc:  # never for parsed JSON; said, not left unanswered
        error = CallError(ErrorKind.INTERNAL, f"unwritable answer: {exc}", provider="courier")
        text = json.dumps({"id": reply.get("id"), "error": wire_error(error)})
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


async def _reply(call: dict[str, Any], adapters: dict[str, Any]) -> dict[str, Any]:
    try:
        if "malformed" in call:
            raise ValueError(call["malformed"])
        key = json.dumps([call["adapter"], call["options"]], sort_keys=True)
        adapter = adapters.get(key)
        if adapter is None:
            adapter = adapters[key] = lazy.attribute(call["adapter"])(**call["options"])
    except Exception as exc:  # nothing was sent: the job sends this call itself
        return {"id": call.get("id"), "unsent": f"{type(exc).__name__}: {exc}"[:500]}
    try:
        answer = await adapter._send(adapter.client, call["body"])
    except Exception as exc:  # classified here, as the job's own call would have been
        return {"id": call["id"], "error": wire_error(classify(exc, provider=adapter.id))}
    return {"id": call["id"], "answer": answer}


if __name__ == "__main__":
    main(sys.argv[1:])
