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
imports; once the SDKs the job named are in, the event loop reads it itself (`_Inbox`).
End of input means the job needs no more calls: we leave at once, whatever is in flight
(nobody would read its answer) and however far the imports got (a job whose first call goes
elsewhere lets us go within milliseconds). Only our code runs here, never a PR's.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import json
import os
import select
import sys
import threading
from typing import Any

from evolve_action.execute.providers.courier_spawn import whole_lines
from evolve_action.execute.providers.faults import CallError, classify, wire_error
from evolve_action.model.outcomes import ErrorKind
from evolve_action.util import lazy

_STDIN = 0
_CHUNK = 1 << 16

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
    """Standard input as lines: read by a thread while the imports run (the SDK's too, once
    the job has named it), so the job's writes never wait for them; then by the event loop
    itself (`_serve`), so that no thread stands between the pipe and the loop: each hop from
    a thread to the loop cost a wake-up, and the GIL, on every call."""

    def __init__(self) -> None:
        self._lines: list[bytes] = []
        self._tail = bytearray()
        self._fed = threading.Condition()

    def feed(self, chunk: bytes) -> bool:
        """Keep the whole lines of `chunk`; False at the end of input."""
        if not chunk:
            return False
        with self._fed:
            self._lines.extend(whole_lines(self._tail, chunk))
            self._fed.notify()
        return True

    def first(self) -> bytes:
        """The first line, once it has come (it stays for `take`)."""
        with self._fed:
            self._fed.wait_for(lambda: self._lines)
            return self._lines[0]

    def drop_first(self) -> None:
        with self._fed:
            del self._lines[0]

    def take(self) -> list[bytes]:
        with self._fed:
            lines, self._lines = self._lines, []
        return lines


def main(modules: list[str]) -> None:
    inbox = _Inbox()
    wake_read, wake = os.pipe()
    reader = threading.Thread(
        target=_read_early, args=(inbox, wake_read), name="courier-stdin", daemon=True
    )
    reader.start()
    threading.Thread(target=_describe_platform, name="courier-platform", daemon=True).start()
    from evolve_action.model import provider_table
    from evolve_action.util import deferred_packages

    deferred_packages.defer(provider_table.sdk_type_hubs())
    _import([*COMMON, *modules])
    first = _message(inbox.first())  # the job names its SDKs before its first call
    if _is_prepare(first):
        inbox.drop_first()
        _prepare(first)
    os.write(wake, b"\0")  # the event loop reads from here on
    reader.join()
    os.close(wake)
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


def _read_early(inbox: _Inbox, wake: int) -> None:
    while True:
        ready = select.select([_STDIN, wake], [], [])[0]
        if _STDIN in ready:
            if not inbox.feed(os.read(_STDIN, _CHUNK)):
                _leave()
        elif wake in ready:
            os.close(wake)
            return


def _leave() -> None:
    os._exit(0)  # the job wants no more calls: not even the rest of our imports


async def _serve(inbox: _Inbox) -> None:
    loop = asyncio.get_running_loop()
    out, _ = await loop.connect_write_pipe(asyncio.Protocol, sys.stdout.buffer)
    server = _Server(out)

    def readable() -> None:
        try:
            more = inbox.feed(os.read(_STDIN, _CHUNK))
        except BlockingIOError:
            return
        if not more:
            _leave()
        server.handle(inbox.take())

    os.set_blocking(_STDIN, False)
    loop.add_reader(_STDIN, readable)
    server.handle(inbox.take())
    await loop.create_future()  # until the end of input (`_leave`)


def _is_prepare(message: dict[str, Any]) -> bool:
    return isinstance(message.get("prepare"), list)


def _prepare(message: dict[str, Any]) -> None:
    """The SDKs the job needs, first needed first, and the CA bundle beside them if a client
    may speak TLS."""
    if message.get("tls", True):
        threading.Thread(target=_load_ca_bundle, name="courier-tls", daemon=True).start()
    _import([str(name) for name in message["prepare"]])


class _Server:
    """The calls in flight and the adapters built so far. Answers go out through a transport
    that never blocks the loop: were the loop to wait for the job to read a long answer
    while the job waits for us to read a long call, each pipe full, neither would go on."""

    def __init__(self, out: asyncio.WriteTransport) -> None:
        self._out = out
        self._adapters: dict[str, Any] = {}
        self._running: dict[object, asyncio.Task[None]] = {}

    def handle(self, lines: list[bytes]) -> None:
        for line in lines:
            message = _message(line)
            if _is_prepare(message):
                _prepare(message)
            elif "cancel" in message:  # the job gave the call up: so do we
                task = self._running.get(message["cancel"])
                if task is not None:
                    task.cancel()
            else:
                self._running[message.get("id")] = asyncio.create_task(self._carry(message))

    async def _carry(self, call: dict[str, Any]) -> None:
        try:
            reply = await _reply(call, self._adapters)
        finally:
            self._running.pop(call.get("id"), None)
        try:
            text = json.dumps(reply)
        except (TypeError, ValueError) as exc:  # never for parsed JSON; said, not left unanswered
            error = CallError(ErrorKind.INTERNAL, f"unwritable answer: {exc}", provider="courier")
            text = json.dumps({"id": reply.get("id"), "error": wire_error(error)})
        self._out.write(text.encode() + b"\n")


def _message(line: bytes) -> dict[str, Any]:
    """One line, parsed once; a line that is not a JSON object becomes a call nobody can
    send, so the job hears why rather than waiting for an answer."""
    try:
        message = json.loads(line)
    except ValueError as exc:
        return {"id": None, "malformed": str(exc)}
    return message if isinstance(message, dict) else {"id": None, "malformed": "not an object"}


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
