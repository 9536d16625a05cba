"""The launcher that runs inside the confinement: a loopback port relayed to the proxy's socket.

An agent CLI must reach the credential proxy over HTTP, but inside bubblewrap it has its own
network namespace (no network unless the user allows it), where the host's 127.0.0.1 does
not exist. The proxy therefore also listens on a Unix socket placed in the run's workspace,
which the confinement shares. This launcher, started by the confinement in the workspace,
listens on 127.0.0.1 (port 0: whatever namespace it is in, it never collides), relays every
connection to that socket, and runs the CLI as its child with the port filled in:

    python -I -m evolve_action.execute.harness.relay --socket .tmp/evolve-proxy.sock \\
        --setenv ANTHROPIC_BASE_URL http://127.0.0.1:@PORT@/anthropic -- claude -p ...

`--forward HOST PORT SOCKET` (repeatable) also listens on HOST:PORT and relays to SOCKET:
a loopback HTTP MCP server the case declares, reached by its own URL through the host's side
of the bridge (`execute/mcp/bridge.py`). Where that port is taken (the run shares the host's
loopback, and the server itself holds it), it is left be.

`@PORT@` in any argument or `--setenv` value becomes the port. The child inherits stdin,
stdout and stderr, so the CLI's event stream is this process's output; the exit code is the
child's. Standard library only, and quick to import: it starts once per run.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

PORT_MARK = "@PORT@"
_CHUNK = 1 << 16


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(_CHUNK):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        # Half-close so the other direction can still finish (an answer after the request).
        for sock, how in ((dst, socket.SHUT_WR), (src, socket.SHUT_RD)):
            with contextlib.suppress(OSError):
                sock.shutdown(how)


def splice(client: socket.socket, upstream: socket.socket) -> None:
    """Bytes both ways until each side is done, then both closed (the relay's and the MCP
    bridge's one way of joining two sockets; this module imports nothing of ours, so the
    bridge can import it)."""
    back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
    back.start()
    _pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _serve_one(client: socket.socket, path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError as exc:
        print(f"evolve relay: cannot reach the proxy at {path}: {exc}", file=sys.stderr)
        client.close()
        upstream.close()
        return
    splice(client, upstream)


def _accept(listener: socket.socket, path: str) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=_serve_one, args=(client, path), daemon=True).start()


def _forward(host: str, port: str, socket_path: str) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.bind((host, int(port)))
    except OSError:
        listener.close()  # taken: this loopback is the host's, where the server is itself
        return
    listener.listen(64)
    path = str(Path(socket_path).absolute())
    threading.Thread(target=_accept, args=(listener, path), daemon=True).start()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="evolve-relay")
    parser.add_argument("--socket", required=True, help="the proxy's Unix socket")
    parser.add_argument("--setenv", nargs=2, action="append", default=[], metavar=("NAME", "V"))
    parser.add_argument(
        "--forward", nargs=3, action="append", default=[], metavar=("HOST", "PORT", "SOCKET")
    )
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command to run after --")
    # The socket path may be relative to the workspace; fix it before the child moves about.
    path = str(Path(args.socket).absolute())
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    port = str(listener.getsockname()[1])
    threading.Thread(target=_accept, args=(listener, path), daemon=True).start()
    for host, mcp_port, mcp_socket in args.forward:
        _forward(host, mcp_port, mcp_socket)
    env = dict(os.environ)
    for name, value in args.setenv:
        env[name] = value.replace(PORT_MARK, port)
    argv_out = [part.replace(PORT_MARK, port) for part in command]
    try:
        child = subprocess.Popen(argv_out, env=env)
    except OSError as exc:
        print(f"evolve relay: cannot start {argv_out[0]}: {exc.strerror or exc}", file=sys.stderr)
        return 127

    def forward(signum: int, _frame: object) -> None:
        child.send_signal(signum)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, forward)
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
