"""The bridge that carries a declared loopback HTTP MCP server into a bubblewrap run: the
host's side (a socket in the workspace per declared endpoint) and the relay's `--forward`
(the URL's own port inside, relayed to that socket), here without any confinement."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from evolve_action.execute.harness import relay
from evolve_action.execute.mcp.bridge import bridged, endpoints
from evolve_action.model.mcp import McpLaunch


@contextmanager
def echo_server() -> Iterator[int]:
    """A loopback TCP server that answers each connection with `echo:` and what it read."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)

    def serve() -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            with client:
                client.sendall(b"echo:" + client.recv(1024))

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()


def client(port: int, data: str) -> str:
    """A child's source: send `data` to the loopback `port`, print the answer."""
    return (
        f"import socket; s = socket.create_connection(('127.0.0.1', {port}));"
        f" s.sendall(b'{data}'); print(s.recv(64).decode())"
    )


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_only_declared_loopback_urls_are_endpoints_each_once() -> None:
    launches = [
        McpLaunch("a", url="http://127.0.0.1:8123/mcp"),
        McpLaunch("b", url="http://localhost:8123/other"),
        McpLaunch("c", url="https://example.com:8443/mcp"),
        McpLaunch("d", ("python3", "server.py")),
        McpLaunch("e", url="http://[::1]/mcp"),
    ]
    assert endpoints(launches) == [("127.0.0.1", 8123), ("::1", 80)]


def test_the_hosts_side_forwards_its_socket_to_the_declared_port(tmp_path: Path) -> None:
    with echo_server() as port:
        launch = McpLaunch("web", url=f"http://127.0.0.1:{port}/mcp")
        with bridged([launch], tmp_path, ".tmp") as args:
            assert args == ["--forward", "127.0.0.1", str(port), ".tmp/evolve-mcp-0.sock"]
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
                client.connect(str(tmp_path / ".tmp/evolve-mcp-0.sock"))
                client.sendall(b"ping")
                assert client.recv(1024) == b"echo:ping"
    with bridged([], tmp_path, ".tmp") as none:
        assert none == []


def test_the_relay_listens_on_the_urls_port_and_reaches_the_server_through_the_socket(
    tmp_path: Path,
) -> None:
    inside = free_port()  # as in a fresh namespace: the URL's port is free there
    child = client(inside, "hi")
    with echo_server() as port:
        launch = McpLaunch("web", url=f"http://127.0.0.1:{port}/mcp")
        with bridged([launch], tmp_path, ".tmp") as args:
            args[2] = str(inside)  # the relay's end, on the port the URL names inside
            argv = [sys.executable, "-I", "-S", relay.__file__, "--socket", "unused.sock"]
            done = subprocess.run(
                [*argv, *args, "--", sys.executable, "-c", child],
                cwd=tmp_path, capture_output=True, text=True, timeout=60,
            )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "echo:hi"


def test_a_port_already_taken_is_left_to_whoever_holds_it(tmp_path: Path) -> None:
    with echo_server() as port:  # the user level: the server itself holds the URL's port
        child = client(port, "x")
        argv = [sys.executable, "-I", "-S", relay.__file__, "--socket", "unused.sock"]
        forward = ["--forward", "127.0.0.1", str(port), "nowhere.sock"]
        done = subprocess.run(
            [*argv, *forward, "--", sys.executable, "-c", child],
            cwd=tmp_path, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "echo:x"
