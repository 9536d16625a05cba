"""The credential proxy's Gemini route, between a plain HTTP client and the fake Gemini API.

Gemini CLI sends `x-goog-api-key` and names the model and the method in the path
(`/v1beta/models/MODEL:streamGenerateContent?alt=sse`); the proxy swaps the key, counts the
call as a turn and reads its usage from `usageMetadata`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from evolve_action.execute.harness.forward import Upstream
from evolve_action.execute.harness.proxy import CredentialProxy
from evolve_action.execute.harness.wire import api_of, model_in_path, usage_of
from tests.fakes.llm_server import FakeLLM, call, text
from tests.integration.test_harness_proxy import REAL, no_wait, post

PATH = "/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
BODY = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}


@pytest.fixture
def upstream() -> Iterator[FakeLLM]:
    with FakeLLM(api_key=REAL) as server:
        yield server
    assert not server.script_errors


@pytest.fixture
def proxy(upstream: FakeLLM) -> Iterator[CredentialProxy]:
    upstreams = {"gemini": Upstream("gemini", upstream.gemini_base_url, REAL)}
    with CredentialProxy(upstreams, policy=no_wait) as running:
        yield running


def test_the_gemini_key_is_swapped_and_each_call_counted_from_its_usage_metadata(
    proxy: CredentialProxy, upstream: FakeLLM
) -> None:
    upstream.enqueue(call("run_shell_command", command="ls"), text("done"))
    session = proxy.open("gemini", "run-g")
    for _ in range(2):
        status, kind, data = post(proxy.url, PATH, BODY, {"x-goog-api-key": session.token})
        assert status == 200 and kind.startswith("text/event-stream"), data[:300]
    assert b"done" in data
    seen = upstream.requests[0]
    assert seen.headers["x-goog-api-key"] == REAL
    assert session.token not in json.dumps(dict(seen.headers))
    assert session.requests == 2 and session.usage.calls == 2
    assert session.usage.input_tokens > 0 and session.usage.output_tokens > 0


def test_a_wrong_key_for_the_gemini_route_is_refused_in_gemini_shape(
    proxy: CredentialProxy, upstream: FakeLLM
) -> None:
    status, _, data = post(proxy.url, PATH, BODY, {"x-goog-api-key": "not-a-session"})
    assert status == 401 and not upstream.requests
    assert json.loads(data)["error"]["message"].startswith("evolve proxy:")


def test_the_gemini_wire_facts() -> None:
    assert api_of("v1beta/models/gemini-2.5-flash:generateContent") == "gemini"
    assert api_of("v1beta/models/gemini-2.5-flash:countTokens") is None
    assert model_in_path("v1beta/models/gemini-3-flash-preview:streamGenerateContent?alt=sse") == (
        "gemini-3-flash-preview"
    )
    usage = {"promptTokenCount": 100, "candidatesTokenCount": 7, "cachedContentTokenCount": 60}
    whole = usage_of("gemini", "application/json", json.dumps({"usageMetadata": usage}).encode())
    assert whole is not None and (whole.input_tokens, whole.cache_read_tokens) == (40, 60)
    assert whole.output_tokens == 7
    assert usage_of("gemini", "text/event-stream", b'data: {"x": 1}\n\n') is None
