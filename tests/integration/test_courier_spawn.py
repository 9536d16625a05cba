"""The courier's process as the program spawns it (`execute/providers/courier_spawn.py`): a
real child on two pipes that holds none of this process's other descriptors, that ends when
its input closes, and that the program starts before importing anything it can leave for
later. Where it cannot help (one core, switched off, no `posix_spawn`) none is started.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from evolve_action.execute.providers import courier_spawn
from evolve_action.execute.providers.courier_spawn import Child, spawn

TWO_CORES = courier_spawn.cores() >= 2
needs_two_cores = pytest.mark.skipif(
    not TWO_CORES, reason="the courier starts only with two cores or more; this machine has one"
)
needs_proc = pytest.mark.skipif(
    not os.path.isdir("/proc/self/fd"), reason="no /proc here to list a process's descriptors"
)


@pytest.fixture
def child() -> Iterator[Child]:
    started = spawn({})
    assert started is not None
    try:
        yield started
    finally:
        started.kill()
        started.stdin.close()
        started.stdout.close()
        started.wait()


def _targets(pid: int) -> dict[int, str]:
    folder = f"/proc/{pid}/fd"
    found = {}
    for name in os.listdir(folder):
        try:
            found[int(name)] = os.readlink(f"{folder}/{name}")
        except OSError:  # closed while we looked
            continue
    return found


@needs_two_cores
@needs_proc
def test_the_child_has_two_pipes_and_none_of_our_other_descriptors() -> None:
    kept_read, kept_write = os.pipe()
    os.set_inheritable(kept_write, True)  # as a descriptor our own parent left us open
    try:
        started = spawn({})
        assert started is not None
        try:
            theirs = _targets(started.pid)
            assert theirs[0].startswith("pipe:") and theirs[1].startswith("pipe:")
            assert theirs[2] == os.devnull
            assert os.readlink(f"/proc/self/fd/{kept_write}") not in theirs.values()
            assert _targets(os.getpid())[started.stdin.fileno()] == theirs[0]
        finally:
            started.stdin.close()
            assert started.wait() == 0  # it leaves when its input ends
            started.stdout.close()
    finally:
        os.close(kept_read)
        os.close(kept_write)


@needs_two_cores
def test_poll_wait_and_kill_are_those_of_a_child_process(child: Child) -> None:
    assert child.poll() is None
    child.kill()
    assert child.wait() == -9 and child.poll() == -9
    child.kill()  # once it has gone, harmless


@needs_two_cores
def test_an_ended_child_is_reaped_once_whoever_waits(child: Child) -> None:
    child.stdin.close()
    deadline = time.monotonic() + 30
    while child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert child.returncode == 0 and child.wait() == 0


def test_none_is_started_where_it_cannot_help(monkeypatch: pytest.MonkeyPatch) -> None:
    assert spawn({courier_spawn.SWITCH: "0"}) is None
    assert spawn({courier_spawn.SWITCH: " 0 "}) is None
    monkeypatch.setattr(courier_spawn, "cores", lambda: 1)
    assert spawn({}) is None


def test_none_is_started_without_posix_spawn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "posix_spawn")
    assert spawn({}) is None


@needs_two_cores
def test_a_child_that_cannot_start_is_none_and_leaks_no_descriptor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    before = set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    assert spawn({}) is None
    if before is not None:
        assert set(os.listdir("/proc/self/fd")) <= before


# Run as the program is run: at the moment the courier is spawned, the program has imported
# none of what it leaves for later (argparse, json, dataclasses, subprocess, our pipeline).
_PROBE = """
import sys
seen = []
def hook(event, args):
    if event == "os.posix_spawn" and not seen:
        seen.append(sorted(m for m in LATER if m in sys.modules))
        print("spawned with", seen[0], flush=True)
LATER = {"argparse", "json", "dataclasses", "subprocess", "asyncio",
         "evolve_action.execute.providers.courier", "evolve_action.pipeline"}
sys.addaudithook(hook)
sys.argv = ["evolve-action", "run", "--help"]
from evolve_action.commands.cli import main
try:
    main()
except SystemExit:
    pass
"""


@needs_two_cores
def test_the_program_spawns_it_before_importing_what_it_can_leave_for_later() -> None:
    env = {k: v for k, v in os.environ.items() if k != courier_spawn.SWITCH}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=120
    )
    assert "spawned with []" in done.stdout, done.stdout + done.stderr
