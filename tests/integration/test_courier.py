"""The courier process (`execute/providers/courier.py`): a real child process with the real
OpenAI SDK sends the calls to the loopback fake, and the job's process reads the answer as if
it had sent the call itself, never importing the SDK; errors arrive classified the same way;
a call given up here is cancelled there; when it is gone the call is sent here instead.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from evolve_action.execute.providers import courier, courier_process, courier_spawn, transport
from evolve_action.execute.providers.anthropic import AnthropicProvider
from evolve_action.execute.providers.faults import CallError
from evolve_action.execute.providers.openai import OpenAIProvider
from evolve_action.execute.providers.setup import preload_sdks
from evolve_action.model.outcomes import ErrorKind
from evolve_action.model.provider import ChatMessage, ChatRequest, TextPart
from evolve_action.settings.inputs import from_values
from tests.fakes.llm_script import Answer, Request
from tests.fakes.llm_server import FakeLLM, Fault, Stall, text

KEYS = {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}
ASK = ChatRequest("gpt-5.4", "Be brief.", (ChatMessage("user", (TextPart("hi"),)),))


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[courier._Courier]:
    # As at a job's start: this process has not imported the SDK (another test may have).
    monkeypatch.delitem(transport._imported, "openai", raising=False)
    if courier_spawn.cores() < 2:
        pytest.skip("the courier starts only with two cores or more; this machine has one")
    assert courier.start({})
    assert courier._courier is not None
    try:
        yield courier._courier
    finally:
        courier.shutdown()


def _adapter(llm: FakeLLM) -> OpenAIProvider:
    return OpenAIProvider(api_key="test-key", base_url=llm.openai_base_url, timeout_s=30.0)


async def test_the_courier_sends_the_call_and_the_answer_reads_as_ours(
    started: courier._Courier, fake_llm: FakeLLM
) -> None:
    fake_llm.enqueue(text("carried"))
    adapter = _adapter(fake_llm)
    answer = await adapter.complete(ASK)
    assert answer.text == "carried"
    assert answer.usage.calls == 1 and answer.usage.output_tokens > 0
    assert adapter._client is None  # no client was built here: the courier sent it
    [request] = fake_llm.requests
    assert request.body["model"] == "gpt-5.4"
    assert request.headers["authorization"] == "Bearer test-key"
    assert request.body["messages"][0] == {"role": "system", "content": "Be brief."}


async def test_concurrent_calls_each_get_their_own_answer(
    started: courier._Courier, fake_llm: FakeLLM
) -> None:
    def echo(request: Request) -> Answer:
        said = request.messages[-1]["content"]
        # Answered in another order than asked: call 0's answer comes last.
        return Stall(0.3, then=text("echo 0")) if said == "0" else text(f"echo {said}")

    fake_llm.script = echo
    adapter = _adapter(fake_llm)
    asks = [
        ChatRequest("gpt-5.4", "", (ChatMessage("user", (TextPart(str(i)),)),)) for i in range(6)
    ]
    answers = await asyncio.gather(*(adapter.complete(ask) for ask in asks))
    assert [a.text for a in answers] == [f"echo {i}" for i in range(6)]
    assert adapter._client is None and len(fake_llm.requests) == 6


async def test_a_body_that_is_not_plain_json_is_sent_here(
    started: courier._Courier, fake_llm: FakeLLM
) -> None:
    with pytest.raises(courier.NotCarried):
        await courier.send(f"{OpenAIProvider.__module__}:OpenAIProvider", {}, {"x": {1, 2}})
    assert courier.carries("openai") and fake_llm.requests == []


async def test_a_carried_error_is_classified_as_our_own_would_be(
    started: courier._Courier, fake_llm: FakeLLM
) -> None:
    fake_llm.enqueue(Fault(429, retry_after=2))
    with pytest.raises(CallError) as caught:
        await _adapter(fake_llm).complete(ASK)
    error = caught.value
    assert (error.kind, error.retryable, error.overload) == (ErrorKind.QUOTA, True, True)
    assert error.retry_after_s == 2.0 and error.status == 429 and error.provider == "openai"
    assert len(fake_llm.requests) == 1  # classified there, not sent again here


async def test_when_the_courier_is_gone_the_call_is_sent_here(
    started: courier._Courier, fake_llm: FakeLLM
) -> None:
    started.process.kill()
    started.process.wait()
    fake_llm.enqueue(text("sent here"))
    adapter = _adapter(fake_llm)
    answer = await adapter.complete(ASK)
    await adapter.aclose()
    assert answer.text == "sent here"
    assert adapter._client is not None
    assert len(fake_llm.requests) == 1
    assert not courier.carries("openai")


async def test_a_call_the_courier_cannot_build_is_sent_here(
    started: courier._Courier, fake_llm: FakeLLM
) -> None:
    with pytest.raises(courier.NotCarried):
        await courier.send("evolve_action.nowhere:Nothing", {}, {"model": "m"})
    assert fake_llm.requests == []
    fake_llm.enqueue(text("still works"))
    adapter = _adapter(fake_llm)
    assert (await adapter.complete(ASK)).text == "still works"
    await adapter.aclose()


async def test_every_call_is_carried_and_the_sdk_never_imported_here(
    started: courier._Courier, fake_llm: FakeLLM
) -> None:
    assert transport._carried_elsewhere("openai")
    adapter = _adapter(fake_llm)
    for _ in range(3):
        await adapter.complete(ASK)
    assert adapter._client is None and len(fake_llm.requests) == 3
    assert "openai" not in transport._imported


async def test_a_call_given_up_here_is_cancelled_there(
    started: courier._Courier, fake_llm: FakeLLM
) -> None:
    fake_llm.enqueue(Stall(30, then=text("too late")))
    task = asyncio.ensure_future(_adapter(fake_llm).complete(ASK))
    while not fake_llm.requests:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    fake_llm.enqueue(text("next"))
    assert (await _adapter(fake_llm).complete(ASK)).text == "next"
    assert not started.waiting  # nothing left waiting here
    assert started.process.poll() is None  # and the courier carries on


def test_it_carries_the_wires_whose_adapters_read_json(started: courier._Courier) -> None:
    assert courier.carries("openai") and courier.carries("anthropic")
    assert not courier.carries("nobody")


async def test_an_anthropic_call_is_carried_once_prepared(
    started: courier._Courier, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(transport._imported, "anthropic", raising=False)
    courier.prepare(["anthropic", "openai"])
    fake_llm.enqueue(text("from claude"))
    adapter = AnthropicProvider(api_key="test-key", base_url=fake_llm.anthropic_base_url)
    answer = await adapter.complete(ASK)
    assert answer.text == "from claude" and answer.usage.input_tokens > 0
    assert adapter._client is None and "anthropic" not in transport._imported
    [request] = fake_llm.requests
    assert request.api == "anthropic" and request.headers["authorization"] == "Bearer test-key"


@pytest.mark.parametrize("tls", [True, False])
async def test_a_plain_http_call_is_carried_with_or_without_the_ca_bundle(
    started: courier._Courier, fake_llm: FakeLLM, tls: bool
) -> None:
    """Told no client speaks TLS, the courier never loads the bundle: the plain-HTTP call
    goes out all the same (and with it, nothing changes)."""
    courier.prepare(["openai"], tls=tls)
    fake_llm.enqueue(text("clear"))
    assert (await _adapter(fake_llm).complete(ASK)).text == "clear"


def test_it_is_not_started_when_switched_off_or_twice(started: courier._Courier) -> None:
    assert not courier.start({})  # one per process
    courier.shutdown()
    assert not transport._carried_elsewhere("openai")
    assert not courier.start({courier.SWITCH: "0"})
    assert courier._courier is None and not transport._carried_elsewhere("openai")


@pytest.mark.parametrize(
    ("values", "environ", "kept"),
    [
        ({"models": "openai/gpt-5.4", "judge-model": "anthropic/claude-sonnet-4-6"}, KEYS, True),
        ({"models": "anthropic", "judge-model": "anthropic"}, KEYS, True),
        ({"models": "anthropic", "harness": "cli", "judge-model": "openai/gpt-5.4"}, KEYS, True),
        ({"models": "openai/gpt-5.4", "judge-model": "openai/gpt-5.4"}, {}, False),  # no key
    ],
)
def test_the_job_lets_it_go_unless_it_carries_some_of_our_calls(
    started: courier._Courier, values: dict[str, str], environ: dict[str, str], kept: bool
) -> None:
    preload_sdks(from_values(values), environ, replay=False)
    assert courier.carries("openai") is kept
    if kept:  # carried, no SDK is imported here
        assert "openai" not in transport._imported


def test_a_replay_lets_it_go(started: courier._Courier) -> None:
    preload_sdks(from_values({"models": "openai/gpt-5.4"}), KEYS, replay=True)
    assert not courier.carries("openai") and not transport._carried_elsewhere("openai")


@pytest.mark.parametrize("line", [b"[1]\n", b"{not json\n", b'{"id": 7}\n'])
async def test_a_line_that_is_not_a_whole_call_is_answered_unsent(line: bytes) -> None:
    reply = await courier_process._reply(courier_process._message(line), {})
    assert set(reply) == {"id", "unsent"} and reply["id"] in (None, 7)


async def test_a_call_written_in_pieces_is_read_whole(
    started: courier._Courier, fake_llm: FakeLLM
) -> None:
    """The event loop reads standard input in whatever pieces the pipe gives: a line cut
    anywhere is put together before it is read as a call."""
    fake_llm.enqueue(text("whole"))
    loop = asyncio.get_running_loop()
    future: asyncio.Future[dict[str, object]] = loop.create_future()
    with started.lock:
        started.waiting[999] = (loop, future)
    courier._listen(started, loop)  # as `send` has this loop read the answers
    options = {"api_key": "test-key", "base_url": fake_llm.openai_base_url, "timeout_s": 30.0}
    call = {
        "id": 999,
        "adapter": f"{OpenAIProvider.__module__}:OpenAIProvider",
        "options": options,
        "body": _adapter(fake_llm)._body(ASK),
    }
    line = json.dumps(call).encode() + b"\n"
    for piece in (line[:7], line[7:-3], line[-3:]):
        assert courier._write(started.process.stdin, piece)
        await asyncio.sleep(0.05)
    reply = await asyncio.wait_for(future, 30)
    assert reply["answer"]["choices"][0]["message"]["content"] == "whole"  # type: ignore[index]


def test_the_inbox_gives_whole_lines_in_order_whatever_the_pieces() -> None:
    inbox = courier_process._Inbox()
    assert inbox.feed(b'{"a": 1}\n{"b"') and inbox.take() == [b'{"a": 1}']
    assert inbox.feed(b": 2}\n") and inbox.feed(b"{}\n{}\n")
    assert inbox.first() == b'{"b": 2}'
    inbox.drop_first()
    assert inbox.take() == [b"{}", b"{}"] and inbox.take() == []
    assert not inbox.feed(b"")  # the end of input


async def test_a_call_in_flight_when_the_courier_dies_is_sent_here(
    started: courier._Courier, fake_llm: FakeLLM
) -> None:
    """The loop that reads the answers sees the courier's output end: the call it never
    answered is sent here, and the courier is reaped."""
    fake_llm.enqueue(Stall(30, then=text("never")))
    fake_llm.enqueue(text("sent here"))
    adapter = _adapter(fake_llm)
    task = asyncio.ensure_future(adapter.complete(ASK))
    while not fake_llm.requests:
        await asyncio.sleep(0.01)
    started.process.kill()
    answer = await asyncio.wait_for(task, 30)
    await adapter.aclose()
    assert answer.text == "sent here" and adapter._client is not None
    assert len(fake_llm.requests) == 2 and not courier.carries("openai")
    assert started.process.returncode is not None and started.process.stdout.closed


def test_whole_lines_keeps_a_long_line_until_its_end_comes() -> None:
    tail = bytearray()
    assert courier_spawn.whole_lines(tail, b'{"id": 1') == [] and tail == b'{"id": 1'
    assert courier_spawn.whole_lines(tail, b"}\n{") == [b'{"id": 1}'] and tail == b"{"
    assert courier_spawn.whole_lines(tail, b"}\n\n{}\n") == [b"{}", b"", b"{}"] and tail == b""


async def test_long_calls_and_long_answers_at_once_wait_on_nothing(
    started: courier._Courier, fake_llm: FakeLLM
) -> None:
    """A long answer comes while a call longer than a pipe holds is being written: the
    courier's loop writes answers without blocking, so it goes on reading the call, and the
    job's loop, done writing, takes the answer (with both pipes full and both loops waiting
    to write, neither would go on)."""

    def answer(request: Request) -> Answer:
        said = str(request.messages[-1]["content"])
        return Stall(0.1, then=text("y" * 300_000)) if said == "first" else text("second")

    fake_llm.script = answer
    adapter = _adapter(fake_llm)
    first = asyncio.ensure_future(adapter.complete(_ask("first")))
    while not fake_llm.requests:
        await asyncio.sleep(0.005)
    second = asyncio.ensure_future(adapter.complete(_ask("x" * 8_000_000)))
    answers = await asyncio.wait_for(asyncio.gather(first, second), 60)
    assert [len(a.text) for a in answers] == [300_000, len("second")]
    assert adapter._client is None and len(fake_llm.requests) == 2


def _ask(said: str) -> ChatRequest:
    return ChatRequest("gpt-5.4", "", (ChatMessage("user", (TextPart(said),)),))
