"""The credential proxy's HTTP side: one handler class for its TCP and Unix listeners.

Requests are read whole (a CLI's request is about 100 KB); answers from the provider are
passed on chunk by chunk as they arrive (`transfer-encoding: chunked`), so a CLI sees its
stream of server-sent events as the provider sends it. Routing, keys and counting are the
proxy's (`proxy.py`); this module only speaks HTTP/1.1.
"""

from __future__ import annotations

import contextlib
import os
import socket
import socketserver
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Protocol, TypeVar

from evolve_action.execute.harness.cassette import Recorded
from evolve_action.execute.harness.forward import Answer
from evolve_action.execute.harness.wire import error_body


class _Session(Protocol):
    def leave(self) -> None: ...


class Streamed(Protocol):
    """An upstream answer to stream to the client, and the session to release after it."""

    @property
    def answer(self) -> Answer: ...

    @property
    def session(self) -> _Session: ...


S = TypeVar("S", bound=Streamed)


class Proxy(Protocol[S]):
    """What the handler asks of the proxy (`proxy.CredentialProxy`): a route, then a receipt."""

    def handle(
        self, method: str, path: str, headers: Mapping[str, str], body: bytes
    ) -> Recorded | S: ...

    def finished(self, sent: S, content_type: str, data: bytes) -> None: ...


_CHUNK = 1 << 16
_MAX_BODY = 64 << 20  # a CLI request is ~100 KB; anything near this is not one


def refusal(provider: str, status: int, message: str) -> Recorded:
    """An error answer made up by the proxy, in the vendor's shape."""
    return Recorded(status, "application/json", error_body(provider, status, message))


@contextlib.contextmanager
def bindable(path: Path) -> Iterator[str]:
    """A name `bind()` accepts for `path`: Unix socket names are limited to 107 bytes and deep
    temporary directories exceed that, so a long one is reached through /proc/self/fd."""
    if len(os.fsencode(path)) < 100:
        yield str(path)
        return
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield f"/proc/self/fd/{fd}/{path.name}"
    finally:
        os.close(fd)


class UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    block_on_close = False


class _Handler(BaseHTTPRequestHandler):
    """One request to the proxy; `handler_for` binds the proxy it asks."""

    protocol_version = "HTTP/1.1"
    proxy: Proxy[Any]

    def setup(self) -> None:
        super().setup()
        if self.connection.family == socket.AF_INET:
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def address_string(self) -> str:
        return "local"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _body(self) -> bytes | None:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while (size := int(self.rfile.readline().strip() or b"0", 16)) > 0:
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            self.rfile.readline()
            return b"".join(parts)
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length <= _MAX_BODY else None

    def do_POST(self) -> None:
        body = self._body()
        headers = {k.lower(): v for k, v in self.headers.items()}
        if body is None:
            self._whole(refusal("", 413, "evolve proxy: request body too large"))
            return
        result = self.proxy.handle(self.command, self.path, headers, body)
        if isinstance(result, Recorded):
            self._whole(result)
        else:
            self._stream(result)

    do_GET = do_POST

    def _whole(self, answer: Recorded) -> None:
        head = [f"HTTP/1.1 {answer.status} {self.responses.get(answer.status, ('',))[0]}"]
        head += [f"content-type: {answer.content_type}", f"content-length: {len(answer.body)}"]
        self._write(("\r\n".join(head) + "\r\n\r\n").encode() + answer.body)

    def _stream(self, sent: Streamed) -> None:
        answer = sent.answer
        content_type = next(
            (v for k, v in answer.headers if k.lower() == "content-type"), "application/json"
        )
        if answer.response is None:  # a complete failure, after retries
            try:
                self._whole(Recorded(answer.status, content_type, answer.body))
            finally:
                sent.session.leave()
            return
        head = [f"HTTP/1.1 {answer.status} {answer.response.reason}"]
        head += [f"{k}: {v}" for k, v in answer.headers] + ["transfer-encoding: chunked"]
        received = bytearray()
        try:
            self._write(("\r\n".join(head) + "\r\n\r\n").encode())
            while chunk := answer.response.read1(_CHUNK):
                received += chunk
                self._write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            # Counted and recorded before the client sees the end of the answer.
            self.proxy.finished(sent, content_type, bytes(received))
            self._write(b"0\r\n\r\n")
        except (OSError, ValueError):
            self.close_connection = True  # the client went away, or the upstream did
        finally:
            answer.close()
            sent.session.leave()

    def _write(self, data: bytes) -> None:
        self.wfile.write(data)
        self.wfile.flush()


def handler_for(proxy: Proxy[S]) -> type[BaseHTTPRequestHandler]:
    """A handler class that asks `proxy` (`http.server` makes one handler per request)."""
    return type("Handler", (_Handler,), {"proxy": proxy})
