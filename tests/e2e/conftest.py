"""Fixtures the end-to-end tests share (plain helpers are in `local_run.py`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evolve_action.model.outcomes import RunResult
from evolve_action.plan.planning import RunSpec
from evolve_action.publish.results.stream import RunFileStream
from tests.e2e.local_run import GREETER_TURNS, serving
from tests.fakes.llm_server import FakeLLM
from tests.fakes.scripts import agent_and_judge


@pytest.fixture
def greeter_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    """The fake on Anthropic's URL: the agent greets Ada (`GREETER_TURNS`), the judge passes."""
    with serving(agent_and_judge(GREETER_TURNS), monkeypatch) as server:
        yield server


@pytest.fixture(scope="session")
def demo_printout(tmp_path_factory: pytest.TempPathFactory) -> str:
    """What `evolve-action demo` prints, made once per session (the comment tests share it)."""
    from scripts.comment_doc import demo_output

    return demo_output(tmp_path_factory.mktemp("demo") / "demo")


@pytest.fixture(autouse=True)
def runs_are_not_changed_once_ended(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every run handed to the results stream as it ended is, at the end of the test, still
    what it was then: the final writer keeps the files the stream wrote for that very object
    (`Streamed.files_of`), so a change made to a run in place after it ended would be lost.
    Checked in every end-to-end flow, each of which ends runs its own way."""
    seen: list[tuple[RunResult, str]] = []
    add = RunFileStream.add

    def watched(self: RunFileStream, spec: RunSpec, run: RunResult) -> None:
        seen.append((run, repr(run)))
        add(self, spec, run)

    monkeypatch.setattr(RunFileStream, "add", watched)
    yield
    changed = [run for run, then in seen if repr(run) != then]
    assert not changed, f"runs changed after they ended: {changed[:2]}"
