"""The host's side of the bridge that lets a confined agent CLI reach a loopback HTTP MCP
server the case declares, by the URL the case gives.

Under bubblewrap the run has a network namespace of its own, whose 127.0.0.1 is not the
host's, so the server is not there. As for the credential proxy, the workspace (which the
confinement shares) carries the traffic: here each declared loopback URL gets a Unix socket
in the workspace whose connections are forwarded to the server's host and port; inside, the
relay (`execute/harness/relay.py`, `--forward`) listens on that same host and port and
forwards to the socket. Only URLs the case declares, and only loopback ones (the loader
refuses any other), are bridged. Where the run shares the host's loopback (the user level),
the relay finds the port taken by the server itself and leaves it be.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from evolve_action.execute.harness.proxy_http import bindable
from evolve_action.execute.harness.relay import splice
from evolve_action.model.mcp import McpLaunch, loopback_problem


def _serve(client: socket.socket, host: str, port: int) -> None:
    try:
        upstream = socket.create_connection((host, port), timeout=10)
    except OSError:
        client.close()
        return
    upstream.settimeout(None)
    splice(client, upstream)


def _accept(listener: socket.socket, host: str, port: int) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return  # closed with the run
        threading.Thread(target=_serve, args=(client, host, port), daemon=True).start()


def endpoints(launches: Sequence[McpLaunch]) -> list[tuple[str, int]]:
    """The loopback (host, port) pairs the declared HTTP servers are at, each once."""
    found: list[tuple[str, int]] = []
    for launch in launches:
        if not launch.url or loopback_problem(launch.url) is not None:
            continue
        parts = urlsplit(launch.url)
        host = parts.hostname or "127.0.0.1"
        host = "127.0.0.1" if host == "localhost" else host
        port = parts.port or (443 if parts.scheme == "https" else 80)
        if (host, port) not in found:
            found.append((host, port))
    return found


@contextlib.contextmanager
def bridged(launches: Sequence[McpLaunch], workspace: Path, socket_dir: str) -> Iterator[list[str]]:
    """Within: one forwarding socket per declared loopback endpoint, under `socket_dir` (a
    workspace-relative directory); yields the relay's `--forward HOST PORT SOCKET` arguments."""
    listeners: list[socket.socket] = []
    args: list[str] = []
    try:
        for n, (host, port) in enumerate(endpoints(launches)):
            relative = f"{socket_dir}/evolve-mcp-{n}.sock"
            path = workspace / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.unlink(missing_ok=True)
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listeners.append(listener)
            with bindable(path) as name:
                listener.bind(name)
            path.chmod(0o666)  # a confinement that runs the CLI as another user must connect
            listener.listen(64)
            threading.Thread(target=_accept, args=(listener, host, port), daemon=True).start()
            args += ["--forward", host, str(port), relative]
        yield args
    finally:
        for listener in listeners:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
