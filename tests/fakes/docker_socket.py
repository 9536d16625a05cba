"""A fake of the Docker Engine API on a unix socket: what GitHub mounts into every container
action at /var/run/docker.sock, and what a hostile skill asks for the container's secrets.

    with DockerSocketFake(directory / "docker.sock", env=["INPUT_ANTHROPIC-API-KEY=…"]) as fake:
        ...  # bind-mount fake.path at /var/run/docker.sock
        fake.requests        # (method, path) of every request that got through, in order

Every GET answers with what the real engine would reveal: the container list
(`/containers/json`) and the container's `Config.Env` (`/containers/<id>/json`); both carry
`env`, so one request is enough for an attacker, and any request at all is a failure for us.
The socket is owned by root and group `gid` with mode 0660, as on GitHub's runners.
"""

from __future__ import annotations

import json
import os
import socketserver
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

DOCKER_GID = 118  # the docker group of GitHub's Ubuntu runners


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class DockerSocketFake:
    def __init__(self, path: Path, env: list[str], gid: int = DOCKER_GID) -> None:
        self.path = path
        self.env = env
        self.gid = gid
        self.requests: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        self._server: _Server | None = None

    def answer(self, method: str, path: str) -> dict[str, Any] | list[dict[str, Any]]:
        with self._lock:
            self.requests.append((method, path))
        container = {"Id": "c0ffee", "Names": ["/evolve"], "Config": {"Env": self.env}}
        if path.startswith("/containers/json"):
            return [{**container, "Env": self.env}]
        return container

    def __enter__(self) -> DockerSocketFake:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args: object) -> None:
                pass

            def do_GET(self) -> None:
                data = json.dumps(fake.answer("GET", self.path)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def address_string(self) -> str:  # unix sockets have no client address
                return "docker.sock"

        self.path.unlink(missing_ok=True)
        self._server = _Server(str(self.path), Handler)
        os.chown(self.path, 0, self.gid)
        self.path.chmod(0o660)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        self.path.unlink(missing_ok=True)
