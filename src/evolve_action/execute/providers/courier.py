"""The courier: a second process that sends the job's provider calls, so that the job's own
process never imports the provider's SDK.

A short job spends most of its start importing: our modules, then the provider's SDK, one
after the other on one core, since imports hold the GIL. The runner has a second core, and a
call needs the SDK only to be sent. So the program spawns the courier as soon as it knows it
is a run, before importing anything of its own (`courier_spawn.spawn`, from
`commands/cli.py`), and serves calls through it once it has (`adopt`; `start` does both).
The courier is a fresh interpreter that imports what the SDKs build on, on the other core,
while this process imports ours, reads the eval files and plans; once the inputs say which
providers the job calls, it imports their SDKs and adapters, first needed first (`prepare`).
Every call on a carried wire is then handed to it (`send`), the first one as soon as it is
built; this process never imports those SDKs (`transport.hold`), so it is smaller by them,
and the SDK's work on each call (building the request, reading the answer) is done on the
other core while this one grades.

It carries only the wires whose adapter reads the server's JSON (`provider_table.CARRIED_WIRES`)
and only with two cores or more: on one core its import would take that core from ours.
`EVOLVE_COURIER=0` turns it off. What it sends is what this process would have sent: the
adapter's own `_send`, on a client built from the same key, base URL and timeout; its errors
come back classified (`faults.wire_error`) into the same retry loop, and a call given up here
(a stop, a deadline) is cancelled there too. A call it could not send, or whose answer it
could not give because it died, raises `NotCarried`: the adapter then sends the call itself,
importing the SDK here (`transport` asks `carries`, so once the courier has gone nothing
waits for it). The one case that can send a call twice is the
courier dying between sending it and answering. Only our code runs in it, and it gets no more
than the job has.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from evolve_action.execute.providers.courier_spawn import SWITCH as SWITCH
from evolve_action.execute.providers.courier_spawn import Child, spawn, whole_lines
from evolve_action.model import provider_table

# asyncio, `transport` and `faults` (about 25 ms of imports) are imported where they are used.
if TYPE_CHECKING:
    import asyncio

_GRACE_S = 60.0  # beyond the call's own timeout, before a silent courier counts as gone

Waiter = tuple["asyncio.AbstractEventLoop", "asyncio.Future[dict[str, Any]]"]


class NotCarried(Exception):
    """The courier did not send this call, or cannot answer it: send it yourself."""


@dataclass
class _Courier:
    process: Child
    lock: threading.Lock = field(default_factory=threading.Lock)
    waiting: dict[int, Waiter] = field(default_factory=dict)
    next_id: int = 0
    closed: bool = False
    # The answers are read by the event loop that sends the calls (`_listen`), not by a
    # thread: each hop from a thread to the loop cost a wake-up, and the GIL, on every call.
    loops: set[asyncio.AbstractEventLoop] = field(default_factory=set)
    tail: bytearray = field(default_factory=bytearray)  # an answer whose end has not come


_courier: _Courier | None = None


def start(environ: Mapping[str, str]) -> bool:
    """Start the courier, if it can help here (`courier_spawn.spawn`); whether it was."""
    if _courier is not None:
        return False
    child = spawn(environ)
    return child is not None and adopt(child)


def adopt(child: Child) -> bool:
    """Serve calls through `child`, a courier process spawned by `courier_spawn.spawn` (the
    program spawns it before importing this module); False, with the child let go, if this
    process has a courier already."""
    global _courier
    if _courier is not None:
        stop(_Courier(child))
        return False
    _courier = _Courier(child)
    from evolve_action.execute.providers import transport

    transport.hold(carries)
    atexit.register(shutdown)
    return True


def prepare(provider_ids: Iterable[str], *, tls: bool = True) -> None:
    """Name the providers the job will call, first needed first: the courier imports their
    SDKs in that order (it has imported what they all build on meanwhile), and loads the CA
    bundle beside them if some client may speak TLS (`transport.speaks_tls`)."""
    courier = _courier
    modules = provider_table.carried_modules(provider_ids)
    if courier is None or courier.closed or not modules:
        return
    line = json.dumps({"prepare": modules, "tls": tls}).encode() + b"\n"
    with courier.lock:
        _write(courier.process.stdin, line)


def carries(provider_id: str) -> bool:
    """Whether a call to this provider may be handed to the courier now."""
    courier = _courier
    return courier is not None and not courier.closed and provider_table.carried(provider_id)


async def send(adapter: str, options: Mapping[str, Any], body: Mapping[str, Any]) -> Any:
    """The answer's JSON for `body`, sent by the courier on adapter class `adapter` built
    with `options`; a classified `CallError` if the call failed; `NotCarried` if the
    courier did not send it or cannot say what came of it."""
    import asyncio

    from evolve_action.execute.providers import transport
    from evolve_action.execute.providers.faults import error_from_wire

    courier = _courier
    if courier is None or courier.closed:
        raise NotCarried("no courier")
    loop = asyncio.get_running_loop()
    _listen(courier, loop)
    future: asyncio.Future[dict[str, Any]] = loop.create_future()
    with courier.lock:
        call_id = courier.next_id = courier.next_id + 1
        courier.waiting[call_id] = (loop, future)
        call = {"id": call_id, "adapter": adapter, "options": dict(options), "body": body}
        try:
            line = json.dumps(call).encode() + b"\n"
        except (TypeError, ValueError):  # not plain JSON: the SDK's own encoder may take it
            line = b""
        written = bool(line) and _write(courier.process.stdin, line)
    if not written:
        _forget(courier, call_id)
        raise NotCarried("not plain JSON, or the courier process is gone")
    transport.request_left()
    timeout = float(options.get("timeout_s") or 600.0) + _GRACE_S
    try:
        reply = await asyncio.wait_for(future, timeout)
    except TimeoutError:
        stop(courier)
        raise NotCarried("the courier gave no answer") from None
    except asyncio.CancelledError:  # given up here: not worth finishing there either
        with courier.lock:
            _write(courier.process.stdin, json.dumps({"cancel": call_id}).encode() + b"\n")
        raise
    finally:
        _forget(courier, call_id)
    if "answer" in reply:
        return reply["answer"]
    if "error" in reply:
        raise error_from_wire(reply["error"])
    raise NotCarried(str(reply.get("unsent", "not sent")))


def stop(courier: _Courier | None = None) -> None:
    """No more calls go to the courier: it leaves (what it was sending is dropped), and
    this process imports the SDKs it needs itself."""
    courier = courier or _courier
    if courier is not None:
        courier.closed = True
        with contextlib.suppress(OSError, ValueError):
            if courier.process.stdin is not None:
                courier.process.stdin.close()


def shutdown() -> None:
    """`stop` and forget the courier (at exit): its standard input closes, and it leaves at
    once on that (`courier_process._read`), so nothing of ours outlives the job and the
    exit does not wait for it."""
    global _courier
    courier, _courier = _courier, None
    stop(courier)
    if courier is not None:
        _unlisten(courier)
        courier.process.poll()


def _listen(courier: _Courier, loop: asyncio.AbstractEventLoop) -> None:
    """Have `loop` read the courier's answers as they come, if it does not yet (a job has one
    loop; each test its own, so a loop that has closed is forgotten)."""
    if loop in courier.loops:
        return
    courier.loops = {known for known in courier.loops if not known.is_closed()} | {loop}
    stdout = courier.process.stdout
    os.set_blocking(stdout.fileno(), False)
    loop.add_reader(stdout.fileno(), _readable, courier, loop)


def _readable(courier: _Courier, here: asyncio.AbstractEventLoop) -> None:
    """The answers that have come, each to its call's future; at the end of the courier's
    output (it is gone), what it did not answer is sent again here."""
    stdout = courier.process.stdout
    with courier.lock:
        try:
            chunk = os.read(stdout.fileno(), 1 << 16)
        except BlockingIOError:  # another loop took it
            return
        except OSError:
            chunk = b""
        found = [
            (courier.waiting.pop(call_id, None), reply)
            for call_id, reply in _replies(whole_lines(courier.tail, chunk))
        ]
        if not chunk:
            courier.closed = True
            left, courier.waiting = courier.waiting, {}
            found += [(waiter, {"unsent": "the courier process ended"}) for waiter in left.values()]
    for waiter, reply in found:
        if waiter is not None:
            _resolve(waiter, reply, here)
    if not chunk:
        _gone(courier)


def _replies(lines: list[bytes]) -> list[tuple[Any, dict[str, Any]]]:
    replies = []
    for line in lines:
        try:
            reply = json.loads(line)
            replies.append((reply["id"], reply))
        except (ValueError, KeyError, TypeError):
            continue
    return replies


def _gone(courier: _Courier) -> None:
    """The courier has closed its output: no loop reads it any more; it is reaped, not left a
    zombie until we exit."""
    _unlisten(courier)
    courier.process.wait()


def _unlisten(courier: _Courier) -> None:
    stdout = courier.process.stdout
    if stdout.closed:
        return
    for loop in courier.loops:
        if not loop.is_closed():
            with contextlib.suppress(RuntimeError, ValueError):
                loop.remove_reader(stdout.fileno())
    courier.loops = set()
    stdout.close()


def _resolve(waiter: Waiter, reply: dict[str, Any], here: asyncio.AbstractEventLoop) -> None:
    """`reply` to its call's future: at once if it waits on `here`, the loop that read it."""
    loop, future = waiter
    if loop is here:
        _settle(future, reply)
        return
    with contextlib.suppress(RuntimeError):  # that loop has closed: nobody waits
        loop.call_soon_threadsafe(_settle, future, reply)


def _settle(future: asyncio.Future[dict[str, Any]], reply: dict[str, Any]) -> None:
    if not future.done():
        future.set_result(reply)


def _forget(courier: _Courier, call_id: int) -> None:
    with courier.lock:
        courier.waiting.pop(call_id, None)


def _write(stream: IO[bytes] | None, data: bytes) -> bool:
    try:
        assert stream is not None
        stream.write(data)
        stream.flush()
    except (OSError, ValueError):
        return False
    return True
