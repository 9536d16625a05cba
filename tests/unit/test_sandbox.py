"""The confined command runner: scrubbed environment, cwd rule, capture, timeouts, bwrap."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.execute.sandbox import confine as sandbox
from evolve_action.execute.sandbox import python as sandbox_python
from evolve_action.execute.sandbox.confine import (
    BwrapStatus,
    Choice,
    Confinement,
    Level,
    SandboxMode,
    UserStatus,
    choose,
    is_secret_name,
    probe_bwrap,
    scrubbed_env,
)
from evolve_action.grade.checks import CommandRunner
from tests.conftest import reachable_place
from tests.levels import MODES, needs_bwrap, needs_user

BWRAP = probe_bwrap().works


@pytest.fixture
def ws() -> Iterator[Path]:
    """A workspace whose parents a sandbox user may search (pytest's own tmp_path sits in a
    directory only its owner may enter)."""
    with reachable_place("evolve-test-ws-") as parent:
        root = parent / "ws"
        root.mkdir()
        yield root


@pytest.fixture
def host_dir() -> Iterator[Path]:
    """A host directory outside /tmp: the sandbox's private /tmp would hide one below it
    anyway, which would make a masking or read-only test pass for the wrong reason."""
    try:
        path = Path(tempfile.mkdtemp(prefix="evolve-test-", dir="/var/tmp"))
    except OSError:
        pytest.skip("/var/tmp is not writable here")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    planted = {
        "ANTHROPIC_API_KEY": "sk-ant-PLANTED1",
        "OPENAI_API_KEY": "sk-PLANTED2",
        "GITHUB_TOKEN": "ghp_PLANTED3",
        "INPUT_GITHUB-TOKEN": "ghp_PLANTED4",
        "ACTIONS_RUNTIME_TOKEN": "PLANTED5",
        "MY_SERVICE_PASSWORD": "PLANTED6",
    }
    for name, value in planted.items():
        monkeypatch.setenv(name, value)
    return list(planted.values())


# -- environment --------------------------------------------------------------------------


def test_scrubbed_env_is_an_allowlist_with_home_and_tmp_in_the_workspace(
    ws: Path, secrets: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.setenv("SOME_RANDOM_VAR", "x")
    env = scrubbed_env(ws)
    assert not any(secret in value for secret in secrets for value in env.values())
    assert "SOME_RANDOM_VAR" not in env
    assert env["LANG"] == "en_US.UTF-8"
    assert env["PATH"]
    assert env["HOME"] == f"{ws}/.home" and (ws / ".home").is_dir()
    assert env["TMPDIR"] == f"{ws}/.tmp" and (ws / ".tmp").is_dir()
    assert env["GIT_CONFIG_GLOBAL"] == "/dev/null"


def test_scrubbed_env_adds_extra_and_uses_the_sandbox_name(ws: Path) -> None:
    env = scrubbed_env(ws, {"EVOLVE_OUTPUT": "out.json"}, seen_as="/workspace")
    assert env["EVOLVE_OUTPUT"] == "out.json"
    assert env["HOME"] == "/workspace/.home"
    assert (ws / ".home").is_dir()  # created in the real workspace all the same


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "GITHUB_TOKEN", "INPUT_X", "DB_PASSWORD"])
def test_scrubbed_env_refuses_secret_looking_extra(ws: Path, name: str) -> None:
    with pytest.raises(ValueError, match="looks like a credential"):
        scrubbed_env(ws, {name: "v"})


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("ANTHROPIC_API_KEY", True),
        ("GH_TOKEN", True),
        ("ACTIONS_ID_TOKEN_REQUEST_URL", True),
        ("AWS_ACCESS_KEY_ID", True),
        ("npm_config__authToken", True),
        ("PATH", False),
        ("GIT_AUTHOR_NAME", False),
        ("EVOLVE_OUTPUT", False),
    ],
)
def test_is_secret_name(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


# -- running ------------------------------------------------------------------------------


def test_run_satisfies_the_command_runner_protocol(ws: Path) -> None:
    runner: CommandRunner = Confinement(ws).run
    assert callable(runner)


@pytest.mark.parametrize("mode", MODES)
async def test_string_runs_through_sh_with_stdin_and_exit_code(ws: Path, mode: SandboxMode) -> None:
    conf = Confinement(ws, mode=mode)
    done = await conf.run("read x; echo got $x; echo oops >&2; exit 3", timeout_s=20, stdin="hi\n")
    assert (done.exit_code, done.stdout, done.stderr) == (3, "got hi\n", "oops\n")
    assert not done.timed_out and not done.truncated and not done.error


@pytest.mark.parametrize("mode", MODES)
async def test_argv_cwd_and_masked_workspace_path(ws: Path, mode: SandboxMode) -> None:
    (ws / "sub").mkdir()
    conf = Confinement(ws, mode=mode)
    done = await conf.run(["/bin/sh", "-c", "pwd; echo $HOME"], cwd=Path("sub"), timeout_s=20)
    assert done.stdout == "/workspace/sub\n/workspace/.home\n"
    assert str(ws) not in done.stdout


async def test_cwd_outside_or_missing_is_an_error_not_an_exception(ws: Path) -> None:
    conf = Confinement(ws, mode=SandboxMode.NONE)
    outside = await conf.run("true", cwd=Path("../"), timeout_s=5)
    assert outside.exit_code == -1 and "outside the workspace" in outside.error
    missing = await conf.run("true", cwd=Path("nope"), timeout_s=5)
    assert "does not exist" in missing.error
    (ws / "loop").symlink_to(ws / "loop")
    looped = await conf.run("true", cwd=Path("loop"), timeout_s=5)
    assert "cannot be resolved" in looped.error
    mapped = await conf.run("pwd", cwd=Path("/workspace"), timeout_s=5)
    assert mapped.stdout == "/workspace\n"


async def test_unstartable_command_and_secret_extra_env_are_errors(ws: Path) -> None:
    conf = Confinement(ws, mode=SandboxMode.NONE)
    missing = await conf.run(["/nonexistent/tool"], timeout_s=5)
    assert missing.exit_code == -1 and "could not start" in missing.error
    secret = await conf.run("true", timeout_s=5, extra_env={"GITHUB_TOKEN": "x"})
    assert "looks like a credential" in secret.error
    empty = await conf.run([], timeout_s=5)
    assert "empty command" in empty.error


@pytest.mark.parametrize("mode", MODES)
async def test_timeout_kills_the_whole_group(ws: Path, mode: SandboxMode) -> None:
    conf = Confinement(ws, mode=mode, kill_grace_s=0.5)
    started = time.monotonic()
    done = await conf.run("sleep 300 & echo $! > child.pid; echo started; wait", timeout_s=1)
    assert time.monotonic() - started < 15
    assert done.timed_out and done.exit_code == -1
    assert done.stdout == "started\n"
    if mode is not SandboxMode.BWRAP:  # the pid is only meaningful outside a pid namespace
        assert not _alive(int((ws / "child.pid").read_text()))


@pytest.mark.parametrize(
    "mode", [SandboxMode.NONE, pytest.param(SandboxMode.USER, marks=needs_user)]
)
async def test_background_jobs_end_with_their_command(ws: Path, mode: SandboxMode) -> None:
    conf = Confinement(ws, mode=mode)
    started = time.monotonic()
    done = await conf.run("sleep 300 & echo $! > child.pid; echo done", timeout_s=30)
    assert time.monotonic() - started < 10
    assert done.exit_code == 0 and done.stdout == "done\n" and not done.timed_out
    await asyncio.sleep(0.1)
    assert not _alive(int((ws / "child.pid").read_text()))


@pytest.mark.parametrize("mode", MODES)
async def test_output_is_capped_with_a_note(ws: Path, mode: SandboxMode) -> None:
    conf = Confinement(ws, mode=mode, output_cap=1000)
    done = await conf.run("head -c 50000 /dev/zero | tr '\\0' a; echo err >&2", timeout_s=20)
    assert done.truncated and done.exit_code == 0
    assert done.stdout.startswith("a" * 1000)
    assert "[output truncated after 1000 bytes; 50000 bytes were produced]" in done.stdout
    assert done.stderr == "err\n"


async def test_invalid_utf8_is_replaced(ws: Path) -> None:
    done = await Confinement(ws, mode=SandboxMode.NONE).run("printf 'a\\377b'", timeout_s=5)
    assert done.stdout == "a\ufffdb"


async def test_cancellation_kills_the_command(ws: Path) -> None:
    conf = Confinement(ws, mode=SandboxMode.NONE)
    task = asyncio.ensure_future(conf.run("echo $$ > sh.pid; sleep 300", timeout_s=60))
    for _ in range(200):
        if (ws / "sh.pid").exists() and (ws / "sh.pid").read_text().strip():
            break
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.2)
    assert not _alive(int((ws / "sh.pid").read_text()))


async def test_cancellation_while_the_process_starts_leaves_nothing_and_never_hangs(
    ws: Path,
) -> None:
    """A cancellation can land between asyncio's fork and its pipes being connected; the
    child's background job then holds the pipes. Cancelled at each step of the start, the run
    ends at once and no process of it survives."""
    from evolve_action.execute.sandbox.exec import spawn

    script = f"sleep 300 & echo $! >> {ws}/bg.pids; sleep 300"
    for steps in range(8):
        task = asyncio.ensure_future(
            spawn(["/bin/sh", "-c", script], cwd=ws, env={"PATH": "/usr/bin:/bin"},
                  timeout_s=60, stdin=None, output_cap=1024)
        )  # fmt: skip
        for _ in range(steps):
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 10)
    await asyncio.sleep(0.2)
    pids = (ws / "bg.pids").read_text().split() if (ws / "bg.pids").exists() else []
    assert not [pid for pid in pids if _alive(int(pid))]


# -- modes --------------------------------------------------------------------------------


def _broken_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "probe_bwrap", lambda: BwrapStatus(False, "bwrap is missing"))


def _no_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "probe_user", lambda: UserStatus(False, "the process is not root"))


def _user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "probe_user", lambda: UserStatus(True))


def test_auto_takes_the_strongest_level_that_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "probe_bwrap", lambda: BwrapStatus(True))
    _user(monkeypatch)
    assert choose() == Choice(Level.BWRAP)
    assert choose(SandboxMode.USER) == Choice(Level.USER, "")
    _broken_bwrap(monkeypatch)
    assert choose() == Choice(Level.USER, "bwrap is missing")
    _no_user(monkeypatch)
    assert choose() == Choice(Level.NONE, "bwrap is missing; the process is not root")
    assert choose(SandboxMode.NONE).level is Level.NONE  # type: ignore[union-attr]
    required = choose(SandboxMode.USER)
    assert isinstance(required, str) and "the process is not root" in required


TWO_ASKING = """
import threading
from evolve_action.execute.sandbox import confine as sandbox
other = threading.Thread(target=sandbox.job_level)
other.start()
asked = sandbox.job_level()  # most likely while the other thread is still probing
other.join()
print(sandbox.probe_bwrap.cache_info().misses, sandbox.probe_user.cache_info().misses <= 1)
print(asked == sandbox.job_level())
"""


def test_threads_asking_at_once_start_bubblewrap_once() -> None:
    """The SDK thread probes while the first request waits; a run asking meanwhile waits
    for that answer rather than starting a second bubblewrap."""
    done = subprocess.run(
        [sys.executable, "-c", TWO_ASKING], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split() == ["1", "True", "True"]


def test_levels_are_stated_in_words() -> None:
    assert [level.words for level in Level] == [
        "namespaces (bubblewrap)",
        "unprivileged user, no namespaces: the network is not isolated",
        "none",
    ]


def test_unconfined_refusal_only_when_nothing_confines(monkeypatch: pytest.MonkeyPatch) -> None:
    _broken_bwrap(monkeypatch)
    _user(monkeypatch)
    assert sandbox.unconfined_refusal(False) is None
    _no_user(monkeypatch)
    refusal = sandbox.unconfined_refusal(False)
    assert refusal is not None
    assert "bwrap is missing; the process is not root" in refusal
    assert "allow-unconfined: true" in refusal
    assert sandbox.unconfined_refusal(True) is None


async def test_required_sandbox_refuses_to_run_unconfined(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _broken_bwrap(monkeypatch)
    done = await Confinement(ws, mode=SandboxMode.BWRAP).run("touch ran", timeout_s=5)
    assert "sandbox is required" in done.error and "bwrap is missing" in done.error
    assert not (ws / "ran").exists()


async def test_auto_without_bwrap_or_user_runs_directly_and_warns_once(
    ws: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _broken_bwrap(monkeypatch)
    _no_user(monkeypatch)
    sandbox._warn_unsandboxed.cache_clear()
    conf = Confinement(ws)
    with caplog.at_level(logging.WARNING, logger="evolve_action.execute.sandbox.confine"):
        first = await conf.run("echo one", timeout_s=5)
        second = await conf.run("echo two", timeout_s=5)
    assert (first.stdout, second.stdout) == ("one\n", "two\n")
    warnings = [r for r in caplog.records if "WITHOUT confinement" in r.getMessage()]
    assert len(warnings) == 1 and "bwrap is missing" in warnings[0].getMessage()
    assert conf.note() == "sandbox off: bwrap is missing; the process is not root"
    assert not conf.sandboxed
    sandbox._warn_unsandboxed.cache_clear()


def test_explicit_none_mode_has_no_note(ws: Path) -> None:
    assert Confinement(ws, mode=SandboxMode.NONE).note() == ""


@needs_bwrap
async def test_bwrap_root_is_read_only_and_tmp_private(ws: Path, host_dir: Path) -> None:
    marker = host_dir / "host-visible"
    conf = Confinement(ws, mode=SandboxMode.BWRAP)
    done = await conf.run(
        f"echo x > {marker}; echo y > /tmp/t && ls /tmp; echo z > /workspace/in.txt",
        timeout_s=20,
    )
    assert not marker.exists() and "Read-only file system" in done.stderr
    assert done.stdout == "t\n"
    assert (ws / "in.txt").read_text() == "z\n"


@needs_bwrap
async def test_bwrap_hides_masked_paths(ws: Path, host_dir: Path) -> None:
    secret_dir = host_dir / "creds"
    secret_dir.mkdir()
    (secret_dir / "token").write_text("PLANTED")
    secret_file = host_dir / "netrc"
    secret_file.write_text("machine x password PLANTED")
    command = f"cat {secret_dir}/token {secret_file}"
    visible = await Confinement(ws, mode=SandboxMode.BWRAP, hidden=()).run(command, timeout_s=20)
    assert visible.stdout.count("PLANTED") == 2  # readable unless masked
    conf = Confinement(ws, mode=SandboxMode.BWRAP, hidden=(secret_dir, secret_file))
    done = await conf.run(command, timeout_s=20)
    assert "PLANTED" not in done.stdout + done.stderr


@needs_bwrap
async def test_bwrap_network_only_when_allowed(ws: Path) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    # The interpreter itself, not the venv's link to it: a clone under /tmp has its venv
    # there, which the sandbox's private /tmp hides. -I -S: the stdlib is all it needs.
    python = os.path.realpath(sys.executable)
    connect = f"import socket; socket.create_connection(('127.0.0.1', {port}), 5)"
    probe = f'{python} -I -S -c "{connect}"'
    try:
        closed = await Confinement(ws, mode=SandboxMode.BWRAP).run(probe, timeout_s=20)
        opened = await Confinement(ws, mode=SandboxMode.BWRAP, network=True).run(
            probe, timeout_s=20
        )
    finally:
        server.close()
    assert closed.exit_code != 0
    assert opened.exit_code == 0, opened.stderr


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes (its parent, the shell, is gone too).
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


# -- our own /proc/<pid>/environ ----------------------------------------------------------

_PEEK = """
import asyncio, os, subprocess, sys
from pathlib import Path
from evolve_action.execute.sandbox.confine import Confinement, SandboxMode

peek = f"cat /proc/{os.getpid()}/environ"
before = subprocess.run(["/bin/sh", "-c", peek], capture_output=True, text=True).stdout
after = asyncio.run(
    Confinement(Path(sys.argv[1]), mode=SandboxMode.NONE).run(peek, timeout_s=10)
).stdout
print("before:" + ("LEAK" if "PLANTED_SECRET" in before else "SAFE"))
print("after:" + ("LEAK" if "PLANTED_SECRET" in after else "SAFE"))
"""
# Docker's default capabilities: no CAP_SYS_PTRACE, the same set for every process.
_DOCKER_CAPS = (
    "-all,+chown,+dac_override,+fsetid,+fowner,+mknod,+net_raw,+setgid,+setuid,+setfcap,"
    "+setpcap,+net_bind_service,+sys_chroot,+kill,+audit_write"
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux only")
def test_unsandboxed_commands_cannot_read_our_environment(ws: Path) -> None:
    prefix: list[str] = []
    if os.geteuid() == 0:  # root with every capability reads anything; act like a container
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("setpriv is needed to drop capabilities as root")
        prefix = [setpriv, "--inh-caps=-all", f"--bounding-set={_DOCKER_CAPS}"]
    env = {**os.environ, "PLANTED_SECRET_TOKEN": "PLANTED_SECRET"}
    done = subprocess.run(
        [*prefix, sys.executable, "-c", _PEEK, str(ws)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.stdout.split() == ["before:LEAK", "after:SAFE"], done.stderr


def test_the_pool_users_are_named_once(tmp_path: Path) -> None:
    from evolve_action.execute.sandbox.drop import SANDBOX_GID
    from evolve_action.execute.sandbox.user import POOL_FIRST, POOL_SIZE, add_pool_users

    (tmp_path / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
    (tmp_path / "group").write_text("root:x:0:\n")
    assert add_pool_users(tmp_path) == POOL_SIZE
    assert add_pool_users(tmp_path) == 0
    passwd = (tmp_path / "passwd").read_text().splitlines()
    assert (
        passwd[1]
        == f"evolve-000:x:{POOL_FIRST}:{POOL_FIRST}:evolve sandbox:/nonexistent:/usr/sbin/nologin"
    )
    assert len(passwd) == POOL_SIZE + 1
    groups = (tmp_path / "group").read_text().splitlines()
    assert groups[1:3] == [f"evolve-sandbox:x:{SANDBOX_GID}:", f"evolve-000:x:{POOL_FIRST}:"]
    assert len(groups) == POOL_SIZE + 2


def test_default_hidden_names_daemon_sockets_and_the_runners_checkout(host_dir: Path) -> None:
    from evolve_action.execute.sandbox.confine import default_hidden

    checkout = host_dir / "checkout"
    checkout.mkdir()
    sock = host_dir / "docker.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    try:
        environ = {"HOME": str(host_dir), "GITHUB_WORKSPACE": str(checkout)}
        hidden = default_hidden({**environ, "DOCKER_HOST": f"unix://{sock}"})
        unset = default_hidden(environ)
    finally:
        server.close()
    assert checkout in hidden and sock in hidden
    assert sock not in unset


@needs_bwrap
async def test_bwrap_hides_sockets_and_runner_mounts_read_only(ws: Path, host_dir: Path) -> None:
    github = host_dir / "github"
    (github / "workspace").mkdir(parents=True)
    (github / "workspace" / "README.md").write_text("checkout")
    (github / "file_commands").mkdir()
    sock = host_dir / "docker.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    server.listen()
    hidden = (github, github / "workspace", sock)
    connect = f"import socket; socket.socket(socket.AF_UNIX).connect({str(sock)!r})"
    python = os.path.realpath(sys.executable)
    command = (
        f"ls -A {github} {github}/workspace; echo x > {github}/workspace/PWNED.txt; "
        f'echo x > {github}/file_commands/env; {python} -I -S -c "{connect}" && echo connected'
    )
    try:
        done = await Confinement(ws, mode=SandboxMode.BWRAP, hidden=hidden).run(
            command, timeout_s=20
        )
    finally:
        server.close()
    assert "README.md" not in done.stdout and "connected" not in done.stdout
    assert "PWNED.txt: Read-only file system" in done.stderr
    assert "file_commands/env: Directory nonexistent" in done.stderr
    assert not (github / "workspace" / "PWNED.txt").exists()
    assert not (github / "file_commands" / "env").exists()


@needs_bwrap
async def test_the_relay_interpreter_is_one_bubblewrap_shows(
    monkeypatch: pytest.MonkeyPatch, ws: Path
) -> None:
    """A clone under /tmp has its venv's python there, which bubblewrap's own /tmp hides:
    the real interpreter behind the link is used instead, and it starts in the sandbox."""
    from evolve_action.execute.sandbox.confine import Level

    with tempfile.TemporaryDirectory(prefix="evolve-venv-", dir="/tmp") as venv:
        link = Path(venv) / "python"
        real = os.path.realpath(sys.executable)
        link.symlink_to(real)
        monkeypatch.setattr(sys, "executable", str(link))
        sandbox_python.python_for_commands.cache_clear()
        try:
            assert sandbox.job_level().level is Level.BWRAP
            python = sandbox_python.python_for_commands()
        finally:
            sandbox_python.python_for_commands.cache_clear()
    assert python == real
    conf = Confinement(ws, mode=SandboxMode.BWRAP)
    done = await conf.run([python, "-I", "-S", "-c", "print('relay ok')"], timeout_s=20)
    assert (done.exit_code, done.stdout) == (0, "relay ok\n"), done.stderr
