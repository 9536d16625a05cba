"""The job's stop request (`pipeline.stopping.Stop`): real signals sent to this process, in
and out of an event loop, and the waits that give up on a stalled call when one comes."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from pathlib import Path

import pytest

from evolve_action.model.evals import Case, Format, Origin, Skill, Suite
from evolve_action.model.outcomes import ErrorKind, Side
from evolve_action.model.provider import ProviderError
from evolve_action.pipeline.runner import RunEnvironment, UnavailableProvider, run_and_grade
from evolve_action.pipeline.stopping import Stop
from evolve_action.plan.planning import RunSpec

# Signal handlers can only be set from the main thread; elsewhere a real signal would end
# the test process.
pytestmark = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(),
    reason="signal handlers can only be installed in the main thread",
)


def test_before_a_job_claims_it_a_signal_ends_the_command_with_the_shells_status() -> None:
    with pytest.raises(SystemExit) as ended, Stop().installed():
        os.kill(os.getpid(), signal.SIGTERM)
    assert ended.value.code == 143


def test_a_signal_inside_installed_is_recorded_not_fatal_and_the_handler_restored() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with Stop().installed() as stop:
        stop.claim()
        os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGINT)
    assert (stop.signal, stop.count, stop.requested) == ("SIGTERM", 2, True)  # the first wins
    assert signal.getsignal(signal.SIGTERM) is before


def test_in_the_loop_the_loops_handler_records_and_the_grace_then_cuts() -> None:
    stop = Stop(grace_s=0.0)

    async def job() -> None:
        async with stop.watching():
            os.kill(os.getpid(), signal.SIGINT)
            await asyncio.wait_for(stop.cut(), timeout=30)  # the grace (0 s) is over

    with stop.installed():
        stop.claim()
        asyncio.run(job())
        assert signal.getsignal(signal.SIGINT) == stop._handler  # ours again, not the default
    assert stop.signal == "SIGINT"


def test_a_second_signal_cuts_at_once_whatever_the_grace() -> None:
    stop = Stop(grace_s=3600.0)

    async def job() -> bool:
        async with stop.watching():
            stop.note(signal.SIGINT)
            await asyncio.sleep(0)
            first = asyncio.ensure_future(stop.cut())
            await asyncio.sleep(0.01)
            still_waiting = not first.done()
            stop.note(signal.SIGTERM)
            await asyncio.wait_for(first, timeout=30)
            return still_waiting

    assert asyncio.run(job()) is True


def test_a_stop_before_the_loop_starts_the_grace_when_it_starts() -> None:
    stop = Stop(grace_s=0.0)
    stop.note(signal.SIGTERM)

    async def job() -> None:
        async with stop.watching():
            await asyncio.wait_for(stop.cut(), timeout=30)

    asyncio.run(job())


def test_wait_returns_the_value_or_raises_what_the_call_raised() -> None:
    stop = Stop()
    waited = stop.wait(lambda: 42)
    assert (waited.done, waited.value) == (True, 42)
    with pytest.raises(ValueError, match="broken"):
        stop.wait(lambda: (_ for _ in ()).throw(ValueError("broken")))


def test_wait_gives_up_on_a_stalled_call_after_a_signal_or_its_limit() -> None:
    stop = Stop()
    hang = threading.Event()

    def stalls_then_signalled() -> int:
        stop.note(signal.SIGTERM)  # the signal comes while the call hangs
        hang.wait(30)
        return 1

    assert stop.wait(stalls_then_signalled).done is False
    assert stop.wait(lambda: hang.wait(30), limit=0.1).done is False
    hang.set()


def test_wait_keeps_a_call_that_ends_soon_after_the_signal() -> None:
    stop = Stop()

    def ends_just_after() -> str:
        stop.note(signal.SIGINT)
        threading.Event().wait(0.1)
        return "posted"

    assert stop.wait(ends_just_after).value == "posted"


def test_a_run_cut_while_its_workspace_is_built_leaves_no_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cut comes while the thread is still building the workspace: once built, it goes."""
    from evolve_action.execute import workspace

    repo = tmp_path / "repo"
    skill = repo / "skills" / "demo"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: demo\ndescription: Demo.\n---\nBody\n")
    (repo / "evals" / "demo").mkdir(parents=True)
    rel = "evals/demo/evals.json"
    (repo / rel).write_text("{}")
    suite = Suite(Format.EVOLVE, repo / rel, rel, Skill("demo", skill), ())
    case = Case("1", "do it", Origin(rel, 1))
    spec = RunSpec(suite, case, "anthropic/model", Side.HEAD, 1)
    failing = UnavailableProvider(ProviderError(ErrorKind.AUTH, "no key", provider="anthropic"))
    runs = tmp_path / "runs"
    monkeypatch.setattr(workspace, "runs_dir", lambda: runs)  # where this test can watch
    env = RunEnvironment(providers={"anthropic": failing})

    async def job() -> None:
        run = asyncio.ensure_future(run_and_grade(spec, env))
        while not runs.exists() or not any(runs.iterdir()):  # the thread has begun building
            await asyncio.sleep(0.001)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run

    asyncio.run(job())  # returns once the thread is done, and its workspace gone
    assert list(runs.iterdir()) == []
