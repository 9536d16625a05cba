"""Fixtures the end-to-end tests share (plain helpers are in `local_run.py`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

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
