"""Copilot CLI, Gemini CLI and OpenCode inside our confinement, at each level this machine
gives (bubblewrap, and the unprivileged user as in GitHub's container), started through
the relay as `harness: cli` starts Claude Code and Codex.

Inside bubblewrap the CLI has a network namespace of its own: it reaches the model through
the relay's loopback port, which leads to a Unix socket in the workspace. Here that socket
leads straight to the fake LLM server (the credential proxy has no Gemini route yet, and
its key swap is tested on its own); the key variable is given to the relay, the fixed ones
to the confinement, whose filter refuses credential-looking names. Each CLI loads the skill,
runs a command that also prints its environment, and answers; the command's file is in the
workspace, and no real key is in anything the CLI or its command printed.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import stat
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from evolve_action.execute.harness import relay
from evolve_action.execute.harness.copilot import events as copilot_events
from evolve_action.execute.harness.copilot import launch as copilot_launch
from evolve_action.execute.harness.gemini import events as gemini_events
from evolve_action.execute.harness.gemini import launch as gemini_launch
from evolve_action.execute.harness.install import this_platform
from evolve_action.execute.harness.opencode import events as opencode_events
from evolve_action.execute.harness.opencode import launch as opencode_launch
from evolve_action.execute.sandbox.confine import DEFAULT_PATH, Confinement
from evolve_action.execute.sandbox.python import python_for_commands
from evolve_action.model.outcomes import CommandResult
from tests.conftest import reachable_place
from tests.fakes.cli_runs import (
    ENV_PROBE,
    PLACEHOLDER,
    PROMPT,
    REAL,
    SHELL,
    SKILL,
    require,
    require_tool,
    scripted,
    serving,
)
from tests.fakes.llm_server import Answer, Call, FakeLLM, Reply, call, text
from tests.levels import LEVELS, USER, at_level

SOCKET = ".tmp/agent-relay.sock"
BASE = f"http://127.0.0.1:{relay.PORT_MARK}"
# What a hostile skill would run: every environment this command can read.
PROC_PROBE = "for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\"; done 2>/dev/null"
COMMAND = f"{SHELL}; {PROC_PROBE}; {ENV_PROBE}"


@dataclass(frozen=True)
class Agent:
    argv: list[str]
    key_env: dict[str, str]  # through the relay (the port filled in)
    fixed_env: dict[str, str]  # through the confinement's filter
    skills_dir: str
    home_files: dict[str, str]
    turns: Sequence[Answer]
    tools: list[str]


def agent(name: str) -> Agent:
    make = "make out.txt"
    if name == "copilot":
        binary = require(*copilot_launch.native(*this_platform()))
        key = copilot_launch.endpoint("anthropic", BASE, PLACEHOLDER, model="claude-sonnet-4-6")
        turns = [call("skill", skill="greeter"), call("bash", command=COMMAND, description=make)]
        return Agent(
            copilot_launch.command(str(binary)), key, dict(copilot_launch.ENV),
            copilot_launch.SKILLS_DIR, copilot_launch.home_files(), turns, ["skill", "bash"],
        )  # fmt: skip
    if name == "gemini":
        script = require(*gemini_launch.entry())
        node = require_tool("node", "Gemini CLI is a Node.js program")
        activate = Reply(calls=(Call("activate_skill", {"name": "greeter"}),))
        shell = call("run_shell_command", command=COMMAND, description=make)
        return Agent(
            gemini_launch.command(node, str(script), model="gemini-2.5-flash"),
            gemini_launch.endpoint(BASE, PLACEHOLDER), dict(gemini_launch.ENV),
            gemini_launch.SKILLS_DIR, gemini_launch.home_files(), [activate, shell],
            ["activate_skill", "run_shell_command"],
        )  # fmt: skip
    binary = require(*opencode_launch.native(*this_platform()))
    require_tool("rg", "OpenCode's skill tool runs ripgrep")
    load = Reply(calls=(Call("skill", {"name": "greeter"}),))
    key = opencode_launch.endpoint("anthropic", BASE, PLACEHOLDER)
    key["npm_config_registry"] = f"{BASE}/npm/"  # the relay fills in the port
    return Agent(
        opencode_launch.command(str(binary), provider="anthropic", model="claude-sonnet-4-6"),
        key, dict(opencode_launch.ENV), opencode_launch.SKILLS_DIR, opencode_launch.home_files(),
        [load, call("bash", command=COMMAND, description=make)], ["skill", "bash"],
    )  # fmt: skip


PARSE = {
    "copilot": copilot_events.parse,
    "gemini": gemini_events.parse,
    "opencode": opencode_events.parse,
}


@contextlib.contextmanager
def socket_to(path: Path, port: int) -> Iterator[None]:
    """A Unix socket at `path` whose connections lead to 127.0.0.1:`port`."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    path.chmod(0o666)  # the sandbox user must connect
    server.listen(16)
    opened: list[socket.socket] = []

    def pump(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(1 << 16):
                dst.sendall(data)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    def serve() -> None:
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", port))
            opened.extend((client, upstream))
            threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=pump, args=(upstream, client), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            server.shutdown(socket.SHUT_RDWR)
        server.close()
        thread.join(timeout=5)
        for each in opened:
            each.close()


def workspace_for(root: Path, chosen: Agent) -> Path:
    workspace = root / "workspace"
    for relative, content in [
        (f"{chosen.skills_dir}/greeter/SKILL.md", SKILL),
        *((f".home/{p}", c) for p, c in chosen.home_files.items()),
        (".tmp/.keep", ""),
    ]:
        (workspace / relative).parent.mkdir(parents=True, exist_ok=True)
        (workspace / relative).write_text(content)
    for path in [workspace, *workspace.rglob("*")]:  # the sandbox user works in it
        path.chmod(0o777 if path.is_dir() else 0o666)
    return workspace


def closed_to_others(argv: Sequence[str]) -> str | None:
    """The first directory above a program of `argv` that other users cannot enter: the
    unprivileged user cannot start the CLI from there (a checkout under a private `mktemp -d`,
    say), which says nothing about the product, whose job installs the CLIs where it can."""
    for word in argv:
        path = Path(word)
        if not path.is_absolute() or not path.exists():
            continue
        for parent in path.parents:
            if not parent.stat().st_mode & stat.S_IXOTH:
                return str(parent)
    return None


def confined_run(chosen: Agent, workspace: Path, fake: FakeLLM) -> CommandResult:
    python = python_for_commands()
    if python is None:
        pytest.skip("no Python within the confinement's reach to start the relay")
    argv = [python, "-I", "-S", "-c", Path(relay.__file__).read_text(), "--socket", SOCKET]
    for name, value in chosen.key_env.items():
        argv += ["--setenv", name, value]
    path = ":".join(dict.fromkeys([str(Path(chosen.argv[0]).parent), DEFAULT_PATH]))
    confinement = Confinement(workspace, network=False)
    with socket_to(workspace / SOCKET, int(fake.url.rsplit(":", 1)[1])):
        done = asyncio.run(
            confinement.run(
                [*argv, "--", *chosen.argv],
                timeout_s=240,
                stdin=PROMPT,
                extra_env={**chosen.fixed_env, "PATH": path},
            )
        )
    assert not done.error, done.error
    return done


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", sorted(PARSE))
def test_each_agent_runs_confined_with_only_the_placeholder_key(
    name: str, level: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = agent(name)
    closed = closed_to_others(chosen.argv) if level == USER else None
    if closed is not None:
        pytest.skip(f"the unprivileged user cannot enter {closed}, where the CLI is installed")
    for fake in serving(monkeypatch):
        fake.script = scripted([*chosen.turns, text("All done.")])
        with reachable_place("agent-") as root, at_level(level):
            workspace = workspace_for(root, chosen)
            done = confined_run(chosen, workspace, fake)
            out = PARSE[name](done.stdout, exit_code=done.exit_code, stderr=done.stderr)
            made = (workspace / "out.txt").read_text() if (workspace / "out.txt").exists() else ""

        assert not out.error, (out.error, done.stderr[-2000:])
        assert [c.name for c in out.tool_calls] == chosen.tools
        assert not [c for c in out.tool_calls if c.is_error], out.tool_calls
        probe = out.tool_calls[1].result
        # It read the environments of the CLI and its helpers, not only its own: the
        # placeholder is all they hold (Copilot masks it in what its commands print).
        assert probe.count("PATH=") >= 3, probe
        assert (PLACEHOLDER in probe) != (name == "copilot" and "******" in probe)
        assert "made" in probe and "HOME=/" in probe and made == "made\n"
        assert out.final_text == "All done." and len(fake.requests) == 3
        secrets = list(REAL.values())
        assert not [s for s in secrets if s in probe or s in done.stdout or s in done.stderr]
        for request in fake.requests:
            sent = request.raw.decode("utf-8", "replace")
            assert not [s for s in secrets if s in sent]
            keys = {request.headers.get(h) for h in ("x-api-key", "x-goog-api-key")}
            assert PLACEHOLDER in keys, request.headers
