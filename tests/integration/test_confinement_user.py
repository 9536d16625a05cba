"""The unprivileged-user level against what a hostile skill tried in GitHub's container
(issue 12): the Docker socket, the runner's file commands, the checkout, other runs, escaped
processes, and links that would lead our own (root) file tools outside the workspace.

These need root (to switch users); elsewhere they skip. The image test
(`scripts/image_check.py`) repeats the first three from the built image.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.execute.sandbox import user as sandbox_user
from evolve_action.execute.sandbox.confine import Confinement, SandboxMode, probe_user
from evolve_action.execute.sandbox.drop import SANDBOX_GID
from evolve_action.execute.sandbox.shared import runs_dir, world_writable
from evolve_action.execute.sandbox.user import POOL_FIRST, POOL_SIZE, exposures
from evolve_action.execute.tools.run import WorkspaceTools
from evolve_action.execute.workspace import prepare
from evolve_action.model.evals import Case, Fixture, Format, Origin, Skill, Suite
from tests.conftest import reachable_place

pytestmark = pytest.mark.skipif(
    not probe_user().works, reason=f"no unprivileged user: {probe_user().reason}"
)
RUNNER_UID = 1001  # the uid GitHub's runner user has; owner of everything it mounts


@pytest.fixture
def place() -> Iterator[Path]:
    """A directory a sandbox user may search but not write, where the product puts its runs
    (`runs_dir`): never in /tmp, which is closed to the sandbox users."""
    with reachable_place("evolve-user-test-") as path:
        yield path


def _workspace(place: Path, name: str = "ws") -> Path:
    root = place / name
    root.mkdir()
    return root


@pytest.fixture
def conf(place: Path) -> Iterator[Confinement]:
    confinement = Confinement(_workspace(place), mode=SandboxMode.USER, kill_grace_s=0.5)
    yield confinement
    confinement.release()


def _python() -> str:
    """An interpreter the user can start (a venv's, or pyenv's under /root, may be out of
    its reach); the stdlib is all the commands here need."""
    for candidate in (
        os.path.realpath(sys.executable),
        "/usr/bin/python3",
        "/usr/local/bin/python3",
    ):
        if Path(candidate).exists() and sandbox_user.allows(POOL_FIRST, Path(candidate), os.X_OK):
            return candidate
    pytest.skip("no Python interpreter here is reachable by other users")


async def test_commands_run_as_a_pool_user_with_only_the_sandbox_group_and_no_new_privileges(
    conf: Confinement,
) -> None:
    done = await conf.run(
        "id -u; id -G; grep NoNewPrivs /proc/self/status; ulimit -c; "
        "grep 'Max processes' /proc/self/limits | tr -s ' ' | cut -d' ' -f3; "
        "stat -c %u:%a .; echo $HOME",
        timeout_s=20,
    )
    uid, groups, nnp, core, nproc, owner, home = done.stdout.splitlines()
    assert conf.user is not None and int(uid) == conf.user
    assert POOL_FIRST <= conf.user < POOL_FIRST + POOL_SIZE
    assert groups.split() == [uid, str(SANDBOX_GID)]  # the one group, which grants nothing
    assert nnp.split() == ["NoNewPrivs:", "1"]
    assert (core, nproc) == ("0", "2048")
    assert owner == f"{uid}:700"  # the workspace is its own, closed to everyone else
    assert home == "/workspace/.home"  # masked in output like every workspace path


async def test_a_root_owned_socket_refuses_the_user(conf: Confinement, place: Path) -> None:
    """GitHub mounts the Docker socket as root:docker 0660; the user is in no group."""
    path = place / "docker.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen()
    path.chmod(0o660)
    connect = f"import socket; socket.socket(socket.AF_UNIX).connect({str(path)!r})"
    try:
        done = await conf.run([_python(), "-I", "-S", "-c", connect], timeout_s=20)
        server.setblocking(False)
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody got through
    finally:
        server.close()
    assert done.exit_code != 0 and "PermissionError" in done.stderr
    assert exposures(POOL_FIRST, {"DOCKER_HOST": f"unix://{path}"}) == []


def test_a_socket_open_to_every_user_is_an_exposure(place: Path) -> None:
    path = place / "docker.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    try:
        path.chmod(0o666)
        found = exposures(POOL_FIRST, {"DOCKER_HOST": f"unix://{path}"})
    finally:
        server.close()
    assert found == [f"the container daemon's socket {path} accepts connections from every user"]


def _runner_dirs(place: Path) -> tuple[Path, Path]:
    """A checkout and a file-commands directory as the runner mounts them (its uid, 0755)."""
    checkout, commands = place / "workspace", place / "file_commands"
    for directory in (checkout, commands):
        directory.mkdir()
    (checkout / "README.md").write_text("the PR's checkout\n")
    (commands / "set_env_1").write_text("")
    for path in (checkout, commands, checkout / "README.md", commands / "set_env_1"):
        os.chown(path, RUNNER_UID, RUNNER_UID)
    return checkout, commands


async def test_file_commands_and_checkout_are_not_writable(conf: Confinement, place: Path) -> None:
    checkout, commands = _runner_dirs(place)
    attack = (
        f"echo NODE_OPTIONS=--require=/tmp/pwn.js >> {commands}/set_env_1; "
        f"echo pwned > {checkout}/PWNED.txt; echo pwned >> {checkout}/README.md"
    )
    done = await conf.run(attack, timeout_s=20)
    assert done.stderr.count("Permission denied") == 3
    assert (commands / "set_env_1").read_text() == ""
    assert not (checkout / "PWNED.txt").exists()
    assert (checkout / "README.md").read_text() == "the PR's checkout\n"
    env = {"GITHUB_ENV": str(commands / "set_env_1"), "GITHUB_WORKSPACE": str(checkout)}
    assert exposures(POOL_FIRST, env) == []
    (commands / "set_env_1").chmod(0o666)
    assert exposures(POOL_FIRST, env) == [f"{commands / 'set_env_1'} is writable by every user"]


async def test_the_github_mounts_are_closed_to_the_user(
    conf: Confinement, place: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mounts = place / "github"
    mounts.mkdir(mode=0o755)
    _runner_dirs(mounts)
    monkeypatch.setattr(sandbox_user, "GITHUB_MOUNTS", mounts)
    before = await conf.run(f"cat {mounts}/workspace/README.md", timeout_s=20)
    sandbox_user.close_github_mounts()
    after = await conf.run(f"ls {mounts}/workspace; ls {mounts}", timeout_s=20)
    assert before.stdout == "the PR's checkout\n"  # readable by anyone until closed
    assert stat.S_IMODE(mounts.stat().st_mode) == 0o700
    assert after.stdout == "" and after.stderr.count("Permission denied") == 2
    assert (mounts / "workspace" / "README.md").stat().st_uid == RUNNER_UID  # untouched


async def test_each_run_has_its_own_user_and_cannot_reach_another(place: Path) -> None:
    one = Confinement(_workspace(place, "one"), mode=SandboxMode.USER)
    two = Confinement(_workspace(place, "two"), mode=SandboxMode.USER)
    try:
        await two.run("echo base-side > result.txt", timeout_s=20)
        attack = f"cat {two.workspace}/result.txt; echo worse > {two.workspace}/result.txt"
        done = await one.run(attack, timeout_s=20)
        assert one.user != two.user
    finally:
        one.release()
        two.release()
    assert done.stderr.count("Permission denied") == 2
    assert (two.workspace / "result.txt").read_text() == "base-side\n"


async def test_processes_that_left_the_group_die_with_the_command(conf: Confinement) -> None:
    done = await conf.run("setsid sleep 300 & echo $! > escaped.pid; echo started", timeout_s=20)
    assert done.stdout == "started\n"
    pid = int((conf.workspace / "escaped.pid").read_text())
    assert not _alive(pid)
    assert conf.user is not None
    assert _processes_of(conf.user) == []  # not even a zombie waiting for PID 1 to reap it


async def test_file_tools_do_not_follow_links_a_command_planted(conf: Confinement) -> None:
    tools = WorkspaceTools(conf.workspace, conf)
    plant = "ln -s /etc/passwd pw; ln -s / top; mkdir d; ln -s /etc d/etc; echo ok"
    assert (await _call(tools, "Bash", command=plant)).content == "ok"
    read = await _call(tools, "Read", file_path="pw")
    write = await _call(tools, "Write", file_path="top/tmp/evolve-escape", content="x")
    nested = await _call(tools, "Read", file_path="d/etc/hostname")
    grep = await _call(tools, "Grep", pattern="root", path=".")
    for result in (read, write, nested):
        assert result.is_error and "outside the workspace" in result.content
    assert not Path("/tmp/evolve-escape").exists()
    assert grep.content == "No matches found"


async def test_hard_links_into_the_workspace_are_removed_and_never_followed(
    conf: Confinement, place: Path
) -> None:
    """Where the kernel does not protect hard links, a command can link any file of its
    filesystem into the workspace. Made here by root, as such a command would."""
    secret = place / "private" / "id_rsa"
    secret.parent.mkdir(mode=0o700)
    secret.write_text("PRIVATE KEY\n")
    secret.chmod(0o600)
    await conf.run("true", timeout_s=20)  # hands the workspace over
    os.link(secret, conf.workspace / "key")
    tools = WorkspaceTools(conf.workspace, conf)
    read = await _call(tools, "Read", file_path="key")
    assert read.is_error and "hard links" in read.content
    done = await conf.run("ls", timeout_s=20)
    assert "removed hard links, which the sandbox does not allow: key" in done.stderr
    assert not (conf.workspace / "key").exists()
    assert secret.read_text() == "PRIVATE KEY\n"
    assert (secret.stat().st_uid, stat.S_IMODE(secret.stat().st_mode)) == (0, 0o600)


async def test_a_workspace_the_user_cannot_reach_is_an_error(tmp_path: Path) -> None:
    hidden = tmp_path / "ws"  # pytest's tmp_path: only its owner may enter its parents
    hidden.mkdir()
    confinement = Confinement(hidden, mode=SandboxMode.USER)
    try:
        done = await confinement.run("touch ran", timeout_s=20)
    finally:
        confinement.release()
    assert done.exit_code == -1 and "not reachable by the sandbox user" in done.error
    assert not (hidden / "ran").exists()


async def _call(tools: WorkspaceTools, name: str, **arguments: object):  # type: ignore[no-untyped-def]
    return await tools.call(name, json.dumps(arguments))


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


def _processes_of(uid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                found.append(int(entry.name))
        except OSError:
            continue
    return found


async def test_programs_are_found_on_path_past_directories_the_user_cannot_enter(
    conf: Confinement, place: Path
) -> None:
    """The user's PATH may start with directories only root may enter (/root/.pyenv/shims);
    the search goes on past them, and nothing the helper needs is loaded after the switch."""
    closed = place / "closed"
    closed.mkdir(mode=0o700)
    env = await conf.environment()
    env["PATH"] = f"{closed}:{env['PATH']}"
    done = await conf.launch(["sh", "-c", "echo found"], env=env, timeout_s=20)
    missing = await conf.launch(["no-such-program-here"], env=env, timeout_s=20)
    assert (done.exit_code, done.stdout) == (0, "found\n")
    assert missing.exit_code == -1 and "could not start 'no-such-program-here'" in missing.error


async def test_a_program_the_user_cannot_reach_is_an_error(conf: Confinement, place: Path) -> None:
    closed = place / "github"
    closed.mkdir(mode=0o700)
    tool = closed / "cli"
    tool.write_text("#!/bin/sh\necho ran\n")
    tool.chmod(0o755)
    done = await conf.launch([str(tool)], env=await conf.environment(), timeout_s=20)
    assert done.exit_code == -1 and "cannot be run by the sandbox user" in done.error


async def test_our_own_launchers_get_a_python_the_user_can_start(
    conf: Confinement, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI harness's relay runs as the sandbox user: its interpreter must be one that user
    can start, which ours (a venv or pyenv build under /root) may not be."""
    from evolve_action.execute.sandbox import confine as sandbox
    from evolve_action.execute.sandbox.confine import BwrapStatus
    from evolve_action.execute.sandbox.python import python_for_commands

    monkeypatch.setattr(sandbox, "probe_bwrap", lambda: BwrapStatus(False, "not here"))
    python_for_commands.cache_clear()
    try:
        python = python_for_commands()
    finally:
        python_for_commands.cache_clear()
    done = await conf.launch(
        [python, "-I", "-S", "-c", "import os; print(os.getuid())"],
        env=await conf.environment(),
        timeout_s=20,
    )
    assert done.exit_code == 0, done.stderr
    assert done.stdout.strip() == str(conf.user)


def _shared_places() -> list[Path]:
    """Every world-writable directory the product closes, and those that every Linux has."""
    usual = [Path(p) for p in ("/tmp", "/var/tmp", "/dev/shm") if Path(p).is_dir()]
    return list(dict.fromkeys([*usual, *world_writable()]))


async def test_no_shared_directory_takes_a_hostile_write(conf: Confinement) -> None:
    """/tmp, /var/tmp, /dev/shm and the rest are shared by every run of the job: closed."""
    places = _shared_places()
    canaries = [p / f"evolve-canary-{os.getpid()}-{n}.txt" for n, p in enumerate(places)]
    attack = "; ".join(
        f"echo pwned > {c}; mkdir {c}.d; ln -s /etc/passwd {c}.ln; ls {c.parent} >/dev/null"
        for c in canaries
    )
    done = await conf.run(attack, timeout_s=20)
    assert done.stderr.count("Permission denied") == 4 * len(places), done.stderr
    for canary in canaries:
        for made in (canary, Path(f"{canary}.d"), Path(f"{canary}.ln")):
            assert not made.exists() and not made.is_symlink(), made


async def test_a_file_one_run_writes_is_invisible_to_the_next(place: Path) -> None:
    first = Confinement(_workspace(place, "first"), mode=SandboxMode.USER)
    second = Confinement(_workspace(place, "second"), mode=SandboxMode.USER)
    stash = f"evolve-stash-{os.getpid()}"
    write = "; ".join(f"echo left-behind > {p}/{stash}" for p in _shared_places())
    write += "; echo mine > $TMPDIR/own.txt; echo $TMPDIR"
    try:
        left = await first.run(write, timeout_s=20)
        first.release()  # the first run is over; its user may go to the next run
        read = "; ".join(f"cat {p}/{stash}" for p in _shared_places())
        read += f"; cat {first.workspace}/.tmp/own.txt; ls {place}"
        seen = await second.run(read, timeout_s=20)
    finally:
        first.release()
        second.release()
    assert left.stdout.strip() == "/workspace/.tmp"  # its own temp directory, in its workspace
    assert (first.workspace / ".tmp" / "own.txt").read_text() == "mine\n"
    assert "left-behind" not in seen.stdout and "mine" not in seen.stdout
    assert seen.stdout == ""
    assert not any((p / stash).exists() for p in _shared_places())


async def test_a_prepared_workspace_still_works_with_the_shared_places_closed() -> None:
    """The product itself: a workspace where `prepare` puts it, its temp directory, git."""
    with reachable_place("evolve-repo-") as repo:
        (repo / "evals" / "demo").mkdir(parents=True)
        (repo / "evals" / "demo" / "input.txt").write_text("data\n")
        rel = "evals/demo/evals.json"
        suite = Suite(Format.EVOLVE, repo / rel, rel, Skill("demo", repo / "skills/demo"), ())
        origin = Origin(rel, 1)
        fixture = Fixture(repo / "evals/demo/input.txt", "input.txt", origin)
        with prepare(suite, Case("1", "task", origin, files=(fixture,)), with_skill=False) as ws:
            assert ws.run_dir.parent == runs_dir() != None  # noqa: E711
            confinement = Confinement(ws.root, mode=SandboxMode.USER)
            try:
                done = await confinement.run(
                    "cat input.txt; mktemp | sed 's/\\.[^.]*$//'; echo new > out.txt; "
                    "git status --porcelain out.txt",
                    timeout_s=20,
                )
            finally:
                confinement.release()
            assert done.exit_code == 0, done.stderr
            assert done.stdout == "data\n/workspace/.tmp/tmp\n?? out.txt\n"
            assert ws.changed_files() == ["out.txt"]
