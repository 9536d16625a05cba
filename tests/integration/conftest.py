"""Fixtures for integration tests: the loopback fake LLM server (tests/fakes/llm_server.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.cli_runs import serving
from tests.fakes.llm_server import FakeLLM


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    """A started fake of both LLM APIs; set `.script`, `.enqueue(...)` or `.faults` on it."""
    with FakeLLM() as server:
        yield server
    assert not server.script_errors, server.script_errors


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    """The fake the real CLIs talk to, with the real keys in our environment as in a job."""
    yield from serving(monkeypatch)
