"""A loopback MCP server over streamable HTTP, built with the `mcp` SDK's server side and
served by uvicorn in a thread: what a case declares as `{url: http://127.0.0.1:<port>/mcp}`.
Its one tool, `forecast`, answers from a fixed text and records each call's arguments."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass
class HttpServer:
    url: str
    calls: list[dict[str, Any]] = field(default_factory=list)


@contextmanager
def http_mcp_server(answer: str = "Cloudy, 14 C") -> Iterator[HttpServer]:
    import uvicorn
    from mcp.server.fastmcp import FastMCP

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    served = HttpServer(f"http://127.0.0.1:{port}/mcp")
    app = FastMCP("weather-http", host="127.0.0.1", port=port)

    @app.tool(description="The forecast for a city")
    def forecast(city: str) -> str:
        served.calls.append({"city": city})
        return f"{answer} in {city}"

    config = uvicorn.Config(app.streamable_http_app(), log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30  # a start-up bound, not an assertion on speed
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the loopback MCP server did not start")
            time.sleep(0.01)
        yield served
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


@dataclass
class Recorder:
    """A loopback HTTP server that records each request's path and answers every one with
    `status` (and `location`, for a redirect): a redirector, or a proxy that must stay idle."""

    url: str
    paths: list[str] = field(default_factory=list)


@contextmanager
def recorder(status: int = 502, location: str = "") -> Iterator[Recorder]:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            seen.paths.append(self.path)
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST = do_DELETE = do_CONNECT = _answer

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    seen = Recorder(f"http://127.0.0.1:{httpd.server_address[1]}/mcp")
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=30)
