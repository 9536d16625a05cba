"""Faults injected by the fake server reach the real SDKs; every call ends classified."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from evolve_action.execute.providers.faults import RetryingProvider, RetryPolicy
from evolve_action.execute.providers.limiter import AdaptiveLimiter
from evolve_action.execute.providers.registry import build_provider
from evolve_action.execute.scheduler import Job, run_jobs
from evolve_action.model.outcomes import ErrorKind
from evolve_action.model.provider import (
    ChatMessage,
    ChatRequest,
    ChatResponse,
    ProviderError,
    TextPart,
)
from tests.fakes.llm_server import Disconnect, FakeLLM, Fault, Malformed, Stall, text

MODELS = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-5.4"}
PROVIDERS = ["anthropic", "openai"]


class FakeTime:
    """A clock that only moves when slept on: retries are instant and their waits recorded."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


Build = Callable[..., RetryingProvider]


@pytest.fixture
def time_() -> FakeTime:
    return FakeTime()


@pytest.fixture
async def build(fake_llm: FakeLLM, time_: FakeTime) -> AsyncIterator[Build]:
    made: list[RetryingProvider] = []

    def make(provider: str, *, max_retries: int = 3, **options: Any) -> RetryingProvider:
        url = fake_llm.anthropic_base_url if provider == "anthropic" else fake_llm.openai_base_url
        policy_options = {k: options.pop(k) for k in ("deadline_s", "rng") if k in options}
        policy = RetryPolicy(
            max_retries=max_retries, sleep=time_.sleep, clock=time_.clock, **policy_options
        )
        made.append(
            build_provider(
                provider, environ={}, api_key="k", base_url=url, policy=policy, **options
            )
        )
        return made[-1]

    yield make
    for provider in made:
        await provider.aclose()


def request(provider: str, prompt: str = "hi") -> ChatRequest:
    return ChatRequest(
        model=MODELS[provider], system="", messages=(ChatMessage("user", (TextPart(prompt),)),)
    )


def ask(p: RetryingProvider, provider: str, i: int) -> Job[ChatResponse]:
    return Job(provider, lambda: p.complete(request(provider, f"q{i}")))


async def attempt(provider: RetryingProvider, req: ChatRequest) -> ChatResponse | ProviderError:
    try:
        return await provider.complete(req)
    except ProviderError as exc:
        return exc


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_thirty_percent_faults__every_call_completes(
    fake_llm: FakeLLM, build: Build, time_: FakeTime, provider: str
) -> None:
    # Requests 2, 5, 8, 12, 15, 18, ... fail: 30% of the first 40, by a fixed schedule.
    kinds = [Fault(429, retry_after=0.01), Fault(529), Fault(500)]
    schedule = [n for n in range(1, 41) if n % 10 in (2, 5, 8)]
    for i, n in enumerate(schedule):
        fake_llm.faults[n] = kinds[i % 3]
    fake_llm.script = lambda r: text(f"answer {r.index}")
    p = build(provider)

    results = [await attempt(p, request(provider, f"q{i}")) for i in range(28)]

    assert all(isinstance(r, ChatResponse) for r in results)
    assert len(fake_llm.requests) == 40  # 28 answers + 12 retried faults
    assert len(time_.sleeps) == 12
    assert time_.sleeps[0] == 0.01  # the 429's Retry-After, through the injected sleep


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_concurrent_faults__each_call_answers_or_raises_classified(
    fake_llm: FakeLLM, build: Build, provider: str
) -> None:
    fake_llm.fail_requests(range(1, 61, 3), Fault(429, retry_after=0.01))
    fake_llm.fail_requests(range(2, 61, 7), Fault(500))
    p = build(provider, max_retries=1)

    outcomes = await run_jobs(
        [ask(p, provider, i) for i in range(20)],
        max_concurrency=8,
    )

    for o in outcomes:
        assert o.ok or (
            isinstance(o.error, ProviderError)
            and o.error.kind in {ErrorKind.QUOTA, ErrorKind.SERVER}
        ), o.error


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_retry_after_headers_are_honoured(
    fake_llm: FakeLLM, build: Build, time_: FakeTime, provider: str
) -> None:
    fake_llm.enqueue(Fault(429, retry_after=7), Fault(529, retry_after_ms=1500), Fault(503))
    p = build(provider, rng=random.Random(42))

    response = await p.complete(request(provider))

    assert response.text == "ok"
    assert time_.sleeps[:2] == [7.0, 1.5]
    # No hint: exponential backoff (0.5 s × 2^2) with seeded jitter in [0.75, 1].
    expected = 2.0 * (0.75 + 0.25 * random.Random(42).random())
    assert time_.sleeps[2] == pytest.approx(expected)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("fault", "kind", "requests"),
    [
        (Fault(401), ErrorKind.AUTH, 1),
        (Fault(403), ErrorKind.AUTH, 1),
        (Fault(400, message="max_tokens too large"), ErrorKind.BAD_REQUEST, 1),
        (Fault(404, message="model: nope"), ErrorKind.BAD_REQUEST, 1),
        (Fault(429, code="insufficient_quota"), ErrorKind.QUOTA, 1),
        (Fault(429, retry_after=0.01), ErrorKind.QUOTA, 3),
        (Fault(529), ErrorKind.SERVER, 3),
        (Fault(500), ErrorKind.SERVER, 3),
        (Malformed(), ErrorKind.SERVER, 3),
        (Malformed('{"id": "valid JSON, but no content"}'), ErrorKind.SERVER, 3),
        (Disconnect(), ErrorKind.SERVER, 3),
    ],
)
async def test_persistent_fault__classified_after_retries(
    fake_llm: FakeLLM, build: Build, provider: str, fault: Any, kind: ErrorKind, requests: int
) -> None:
    fake_llm.script = lambda _: fault
    p = build(provider, max_retries=2)

    with pytest.raises(ProviderError) as caught:
        await p.complete(request(provider))

    assert caught.value.kind is kind
    assert caught.value.provider == provider
    assert len(fake_llm.requests) == requests
    if requests > 1:
        assert "gave up after 3 attempts" in caught.value.message


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_stall_past_the_request_timeout__timeout_then_retry(
    fake_llm: FakeLLM, build: Build, provider: str
) -> None:
    fake_llm.enqueue(Stall(30))
    p = build(provider, timeout_s=0.3)

    response = await p.complete(request(provider))

    assert response.text == "ok" and len(fake_llm.requests) == 2
    fake_llm.enqueue(Stall(30))
    with pytest.raises(ProviderError) as caught:
        await build(provider, timeout_s=0.3, max_retries=0).complete(request(provider))
    assert caught.value.kind is ErrorKind.TIMEOUT


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_malformed_answer_is_retried(fake_llm: FakeLLM, build: Build, provider: str) -> None:
    fake_llm.enqueue(Malformed("not json at all"))
    assert (await build(provider).complete(request(provider))).text == "ok"
    assert len(fake_llm.requests) == 2


async def test_retry_after_past_the_deadline__gives_up_without_waiting(
    fake_llm: FakeLLM, build: Build, time_: FakeTime
) -> None:
    fake_llm.enqueue(Fault(429, retry_after=30))
    with pytest.raises(ProviderError) as caught:
        await build("openai", deadline_s=10).complete(request("openai"))
    assert caught.value.kind is ErrorKind.QUOTA
    assert "within the 10 s call deadline" in caught.value.message
    assert time_.sleeps == []


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_429s_lower_the_providers_concurrency(
    fake_llm: FakeLLM, build: Build, time_: FakeTime, provider: str
) -> None:
    limiter = AdaptiveLimiter(8, clock=time_.clock, cooldown_s=0.005)
    fake_llm.fail_requests(range(1, 13), Fault(429, retry_after=0.01))
    p = build(provider, limiter=limiter, max_retries=6)

    outcomes = await run_jobs(
        [ask(p, provider, i) for i in range(16)],
        max_concurrency=16,
        limiters={provider: limiter},
    )

    assert all(o.ok for o in outcomes)
    assert limiter.overloads == 12
    assert limiter.lowest < 8
    assert limiter.limit >= limiter.lowest  # successes let it creep back up


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_retry_after_of_an_hour__gives_up_at_once(
    fake_llm: FakeLLM, build: Build, time_: FakeTime, provider: str
) -> None:
    fake_llm.enqueue(Fault(429, retry_after=3600, message="daily token quota reached"))
    with pytest.raises(ProviderError) as caught:
        await build(provider).complete(request(provider))
    assert caught.value.kind is ErrorKind.QUOTA and time_.sleeps == []
    assert caught.value.message.endswith(
        "(gave up after 1 attempt, and the provider asks to wait 3600 s)"
    )
