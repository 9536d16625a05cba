"""The loopback credential proxy, between a plain HTTP client and the fake LLM server.

What a CLI sends is played here with `http.client`, so each behaviour is checked on its own:
the dummy key swapped for the real one, answers streamed through, usage counted per run,
retries, the turn cap, record/replay, the Unix socket and the in-sandbox relay.
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.execute.harness.cassette import CliCassettes
from evolve_action.execute.harness.forward import Upstream
from evolve_action.execute.harness.proxy import CredentialProxy
from evolve_action.execute.providers.faults import RetryPolicy
from evolve_action.model.outcomes import ErrorKind
from tests.fakes.llm_server import FakeLLM, Fault, call, text

REAL = "sk-real-key-never-in-the-sandbox"


def post(
    url: str, path: str, body: dict[str, object], headers: dict[str, str]
) -> tuple[int, str, bytes]:
    host = url.removeprefix("http://")
    conn = http.client.HTTPConnection(host, timeout=30)
    conn.request("POST", path, json.dumps(body), {"content-type": "application/json", **headers})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, response.getheader("content-type") or "", data


def messages(model: str = "claude-sonnet-4-6", stream: bool = True) -> dict[str, object]:
    convo = [{"role": "user", "content": "hi"}]
    return {"model": model, "max_tokens": 100, "stream": stream, "messages": convo}


def no_wait() -> RetryPolicy:
    return RetryPolicy(max_retries=3, base_delay_s=0.001, max_delay_s=0.001)


@pytest.fixture
def upstream() -> Iterator[FakeLLM]:
    with FakeLLM(api_key=REAL) as server:
        yield server
    assert not server.script_errors


@pytest.fixture
def proxy(upstream: FakeLLM) -> Iterator[CredentialProxy]:
    upstreams = {
        "anthropic": Upstream("anthropic", upstream.anthropic_base_url, REAL),
        "openai": Upstream("openai", upstream.openai_base_url, REAL),
    }
    with CredentialProxy(upstreams, policy=no_wait) as running:
        yield running


def test_the_dummy_key_is_swapped_for_the_real_one_and_the_stream_passes(
    proxy: CredentialProxy, upstream: FakeLLM
) -> None:
    upstream.enqueue(text("streamed hello"))
    session = proxy.open("anthropic", "run-1")
    status, kind, body = post(
        proxy.url, "/anthropic/v1/messages?beta=true", messages(), {"x-api-key": session.token}
    )
    assert status == 200 and kind == "text/event-stream"
    assert b"event: message_start" in body and b"streamed hello" in body
    seen = upstream.requests[0]
    assert seen.headers["x-api-key"] == REAL
    assert session.token not in json.dumps(dict(seen.headers))
    assert seen.path == "/v1/messages"
    assert session.requests == 1 and session.usage.calls == 1
    assert session.usage.output_tokens > 0 and session.usage.cost_usd is not None
    assert proxy.total.calls == 1


def test_the_responses_api_is_counted_with_cached_input_split_off(
    proxy: CredentialProxy, upstream: FakeLLM
) -> None:
    upstream.enqueue(call("exec_command", cmd="ls"), text("done"))
    session = proxy.open("openai", "run-2")
    body = {"model": "gpt-5.4", "stream": True, "input": [{"role": "user", "content": "hi"}]}
    for _ in range(2):
        status, _, data = post(
            proxy.url, "/openai/responses", body, {"authorization": f"Bearer {session.token}"}
        )
        assert status == 200
    assert b"event: response.completed" in data
    assert upstream.requests[0].headers["authorization"] == f"Bearer {REAL}"
    assert session.requests == 2 and session.usage.calls == 2
    assert session.usage.cache_read_tokens > 0  # the second call reads the cached prefix


def test_an_unknown_or_closed_session_key_is_refused_without_reaching_the_provider(
    proxy: CredentialProxy, upstream: FakeLLM
) -> None:
    status, _, body = post(proxy.url, "/anthropic/v1/messages", messages(), {"x-api-key": REAL})
    assert status == 401 and b"unknown or expired session key" in body
    session = proxy.open("anthropic", "run-3")
    proxy.close(session)
    status, _, _ = post(
        proxy.url, "/anthropic/v1/messages", messages(), {"x-api-key": session.token}
    )
    assert status == 401
    other = proxy.open("openai", "run-4")  # a key of one provider is no key for the other
    status, _, _ = post(proxy.url, "/anthropic/v1/messages", messages(), {"x-api-key": other.token})
    assert status == 404  # answered by the proxy as a route it does not forward
    assert upstream.requests == []


def test_transient_failures_are_retried_here_and_the_cli_sees_one_answer(
    proxy: CredentialProxy, upstream: FakeLLM
) -> None:
    upstream.fail_requests([1, 2], Fault(529))
    session = proxy.open("anthropic", "run-5")
    status, _, _ = post(
        proxy.url, "/anthropic/v1/messages", messages(), {"x-api-key": session.token}
    )
    assert status == 200
    assert len(upstream.requests) == 3
    assert session.failure is None and session.requests == 1


def test_a_failure_for_good_is_passed_on_and_classified_for_the_run(
    proxy: CredentialProxy, upstream: FakeLLM
) -> None:
    upstream.fail_requests(range(1, 10), Fault(429, code="rate_limit_error"))
    session = proxy.open("anthropic", "run-6")
    status, _, _ = post(
        proxy.url, "/anthropic/v1/messages", messages(), {"x-api-key": session.token}
    )
    assert status == 429
    assert len(upstream.requests) == 4  # the first try and three retries
    assert session.failure is not None and session.failure.kind is ErrorKind.QUOTA
    assert "gave up after 4 attempts" in session.failure.message


def test_a_refused_key_upstream_is_an_auth_failure_not_retried(upstream: FakeLLM) -> None:
    wrong = {"anthropic": Upstream("anthropic", upstream.anthropic_base_url, "sk-revoked")}
    with CredentialProxy(wrong, policy=no_wait) as proxy:
        session = proxy.open("anthropic", "run-7")
        status, _, _ = post(
            proxy.url, "/anthropic/v1/messages", messages(), {"x-api-key": session.token}
        )
    assert status == 401 and len(upstream.requests) == 1
    assert session.failure is not None and session.failure.kind is ErrorKind.AUTH


def test_the_turn_cap_refuses_the_call_past_it(proxy: CredentialProxy, upstream: FakeLLM) -> None:
    session = proxy.open("openai", "run-8", max_requests=1)
    body = {"model": "gpt-5.4", "input": "hi"}
    headers = {"authorization": f"Bearer {session.token}"}
    assert post(proxy.url, "/openai/responses", body, headers)[0] == 200
    status, _, data = post(proxy.url, "/openai/responses", body, headers)
    assert status == 400 and b"turn cap of 1 reached" in data
    assert session.capped and len(upstream.requests) == 1


def test_record_then_replay_without_the_provider(
    proxy: CredentialProxy, upstream: FakeLLM, tmp_path: Path
) -> None:
    upstream.enqueue(call("Bash", command="ls"), text("second answer"))
    proxy.record = CliCassettes()
    session = proxy.open("anthropic", "the-run")
    first = [
        post(proxy.url, "/anthropic/v1/messages", messages(), {"x-api-key": session.token})[2]
        for _ in range(2)
    ]
    proxy.record.save(tmp_path)
    assert (tmp_path / "cli-anthropic.json").is_file()
    replay = CliCassettes.load(tmp_path, ["anthropic"])
    with CredentialProxy({}, replay=replay) as offline:
        again = offline.open("anthropic", "the-run")
        second = [
            post(offline.url, "/anthropic/v1/messages", messages(), {"x-api-key": again.token})[2]
            for _ in range(2)
        ]
        assert second == first and again.usage.calls == 2
        other = offline.open("anthropic", "a-changed-run")
        status, _, _ = post(
            offline.url, "/anthropic/v1/messages", messages(), {"x-api-key": other.token}
        )
        assert status == 400
        assert other.failure is not None and other.failure.kind is ErrorKind.REPLAY_MISS
    assert len(upstream.requests) == 2


def test_a_session_listens_on_a_unix_socket_even_at_a_long_path(
    proxy: CredentialProxy, upstream: FakeLLM, tmp_path: Path
) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60) / "evolve-proxy.sock"
    session = proxy.open("anthropic", "run-9")
    proxy.listen_unix(session, deep)
    assert deep.exists()
    script = (
        "import http.client, json, socket, sys\n"
        "class C(http.client.HTTPConnection):\n"
        "    def connect(self):\n"
        "        self.sock = socket.socket(socket.AF_UNIX)\n"
        "        self.sock.connect(sys.argv[1])\n"
        "c = C('local')\n"
        "c.request('POST', '/anthropic/v1/messages', json.dumps({'model': 'm', 'messages': []}),"
        " {'x-api-key': sys.argv[2]})\n"
        "print(c.getresponse().status)\n"
    )
    # A relative path from its directory: AF_UNIX names longer than 107 bytes fail to connect.
    done = subprocess.run(
        [sys.executable, "-c", script, deep.name, session.token],
        cwd=deep.parent,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert done.stdout.strip() == "200"
    proxy.close(session)
    assert not deep.exists()


def test_the_relay_gives_its_child_a_loopback_port_to_the_socket(
    proxy: CredentialProxy, upstream: FakeLLM, tmp_path: Path
) -> None:
    session = proxy.open("anthropic", "run-10")
    proxy.listen_unix(session, tmp_path / ".tmp" / "evolve-proxy.sock")
    child = (
        "import os, urllib.request\n"
        "req = urllib.request.Request(os.environ['BASE'] + '/v1/messages', method='POST',"
        " data=b'{\"model\": \"m\", \"messages\": []}', headers={'x-api-key': os.environ['KEY']})\n"
        "print(urllib.request.urlopen(req).status)\n"
    )
    argv = [sys.executable, "-I", "-m", "evolve_action.execute.harness.relay"]
    argv += ["--socket", ".tmp/evolve-proxy.sock"]
    argv += [
        "--setenv",
        "BASE",
        "http://127.0.0.1:@PORT@/anthropic",
        "--setenv",
        "KEY",
        session.token,
    ]
    done = subprocess.run(
        [*argv, "--", sys.executable, "-c", child],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "200"
    assert upstream.requests[0].headers["x-api-key"] == REAL


@pytest.mark.parametrize("stream", [True, False])
def test_the_model_that_served_a_cli_call_is_kept_for_the_run(
    proxy: CredentialProxy, upstream: FakeLLM, stream: bool
) -> None:
    upstream.script = lambda _: text("hello")
    upstream.served_model = "claude-sonnet-4-6-20261101"  # a new snapshot behind the alias
    claude = proxy.open("anthropic", "run-snap")
    status, _, _ = post(
        proxy.url, "/anthropic/v1/messages", messages(stream=stream), {"x-api-key": claude.token}
    )
    codex = proxy.open("openai", "run-snap-2")
    body = {"model": "gpt-5.4", "stream": stream, "input": [{"role": "user", "content": "hi"}]}
    post(proxy.url, "/openai/responses", body, {"authorization": f"Bearer {codex.token}"})
    assert status == 200
    assert claude.served == codex.served == "claude-sonnet-4-6-20261101"
