"""Fixtures for integration tests: the loopback fake LLM server (tests/fakes/llm_server.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator

import pytest

from evolve_action.execute.providers.faults import RetryingProvider, RetryPolicy
from evolve_action.execute.providers.registry import build_provider
from tests.fakes.cli_runs import serving
from tests.fakes.llm_server import FakeLLM
from tests.levels import LEVELS

Build = Callable[[str], RetryingProvider]


@pytest.fixture(params=LEVELS)
def level(request: pytest.FixtureRequest) -> str:
    """Each confinement level this machine can give (tests/levels.py), for the tests asking."""
    return str(request.param)


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


@pytest.fixture
async def build(fake_llm: FakeLLM) -> AsyncIterator[Build]:
    """Real SDK providers against `fake_llm`, closed at the end. Retries stay on: a deadline
    must still end a run, not be retried as a timeout."""
    made: list[RetryingProvider] = []

    def make(provider: str) -> RetryingProvider:
        url = fake_llm.anthropic_base_url if provider == "anthropic" else fake_llm.openai_base_url
        policy = RetryPolicy(max_retries=2, base_delay_s=0.01)
        made.append(build_provider(provider, environ={}, api_key="k", base_url=url, policy=policy))
        return made[-1]

    yield make
    for p in made:
        await p.aclose()
