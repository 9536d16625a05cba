"""The real SDK clients against the loopback fake: wire formats, usage, cost, structured output."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from evolve_action.execute.providers.faults import RetryingProvider, RetryPolicy
from evolve_action.execute.providers.registry import build_provider
from evolve_action.model.outcomes import ErrorKind
from evolve_action.model.provider import (
    ChatMessage,
    ChatRequest,
    ProviderError,
    TextPart,
    ToolResultPart,
    ToolSpec,
    ToolUsePart,
)
from evolve_action.model.provider_table import PROVIDERS
from tests.fakes.llm_server import Call, FakeLLM, Reply, call, text

SKILL = ToolSpec(
    "Skill",
    "Load a skill's instructions.",
    {"type": "object", "properties": {"skill": {"type": "string"}}, "required": ["skill"]},
)
WRITE = ToolSpec(
    "Write",
    "Write a file.",
    {
        "type": "object",
        "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["file_path", "content"],
    },
)
MODELS = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-5.4"}


async def _no_sleep(_: float) -> None:
    return None


Build = Callable[..., RetryingProvider]


@pytest.fixture
async def build(fake_llm: FakeLLM) -> AsyncIterator[Build]:
    made: list[RetryingProvider] = []

    def make(provider: str, **options: Any) -> RetryingProvider:
        url = fake_llm.anthropic_base_url if provider == "anthropic" else fake_llm.openai_base_url
        options.setdefault("api_key", "test-key")
        options.setdefault("base_url", url)
        options.setdefault("policy", RetryPolicy(max_retries=0, sleep=_no_sleep))
        made.append(build_provider(provider, environ=options.pop("environ", {}), **options))
        return made[-1]

    yield make
    for provider in made:
        await provider.aclose()


def conversation() -> tuple[ChatMessage, ...]:
    return (
        ChatMessage("user", (TextPart("Greet the team in hello.txt"),)),
        ChatMessage(
            "assistant",
            (TextPart("Loading the skill."), ToolUsePart("t1", "Skill", '{"skill":"greeter"}')),
        ),
        ChatMessage("user", (ToolResultPart("t1", "# Greeter\nSay hi."),)),
        ChatMessage("assistant", (ToolUsePart("t2", "Write", '{"file_path":"/etc/x"}'),)),
        ChatMessage("user", (ToolResultPart("t2", "outside the workspace", is_error=True),)),
    )


def request(provider: str, **fields: Any) -> ChatRequest:
    fields.setdefault("messages", conversation())
    fields.setdefault("tools", (SKILL, WRITE))
    return ChatRequest(model=MODELS[provider], system="You are a careful agent.", **fields)


async def test_anthropic__tool_use_conversation_on_the_wire(
    fake_llm: FakeLLM, build: Build
) -> None:
    fake_llm.enqueue(
        Reply(
            text="Writing it.", calls=(Call("Write", {"file_path": "hello.txt", "content": "hi"}),)
        )
    )

    response = await build("anthropic").complete(request("anthropic"))

    assert response.text == "Writing it."
    assert response.stop_reason == "tool_use"
    [use] = response.tool_uses
    assert (use.name, use.arguments) == ("Write", '{"file_path":"hello.txt","content":"hi"}')
    [sent] = fake_llm.requests
    assert sent.path == "/v1/messages" and sent.headers["authorization"] == "Bearer test-key"
    body = sent.body
    assert body["model"] == "claude-sonnet-4-6" and body["max_tokens"] == 4096
    assert body["system"] == [
        {"type": "text", "text": "You are a careful agent.", "cache_control": {"type": "ephemeral"}}
    ]
    assert [t["name"] for t in body["tools"]] == ["Skill", "Write"]
    assert body["tools"][0]["input_schema"]["required"] == ["skill"]
    msgs = body["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "user", "assistant", "user"]
    assert msgs[1]["content"][1] == {
        "type": "tool_use", "id": "t1", "name": "Skill", "input": {"skill": "greeter"}
    }  # fmt: skip
    assert msgs[2]["content"][0] == {
        "type": "tool_result", "tool_use_id": "t1", "content": "# Greeter\nSay hi."
    }  # fmt: skip
    last = msgs[4]["content"][0]
    assert last["is_error"] is True
    # The moving breakpoint: the conversation's tail is cached for the next turn.
    assert last["cache_control"] == {"type": "ephemeral"}
    assert "tool_choice" not in body
    assert (sent.system, sent.tool_names, sent.turn) == (
        "You are a careful agent.", ["Skill", "Write"], 2
    )  # fmt: skip
    assert sent.tool_results == ["# Greeter\nSay hi.", "outside the workspace"]


async def test_anthropic__usage_cache_fields_and_cost(fake_llm: FakeLLM, build: Build) -> None:
    fake_llm.script = lambda _: text("done")
    provider = build("anthropic")

    first = await provider.complete(request("anthropic"))
    second = await provider.complete(request("anthropic"))

    assert first.usage.cache_write_tokens > 0 and first.usage.cache_read_tokens == 0
    assert second.usage.cache_read_tokens == first.usage.cache_write_tokens
    assert second.usage.cache_write_tokens == 0
    u = second.usage
    expected = (u.input_tokens * 3 + u.cache_read_tokens * 0.3 + u.output_tokens * 15) / 1e6
    assert u.cost_usd == pytest.approx(expected, abs=1e-6)
    assert u.calls == 1 and second.stop_reason == "end_turn"


async def test_anthropic__forced_tool_sets_tool_choice(fake_llm: FakeLLM, build: Build) -> None:
    fake_llm.enqueue(call("grade", verdicts=[{"passed": True}]))

    response = await build("anthropic").complete(request("anthropic", force_tool="Skill"))

    assert fake_llm.requests[0].body["tool_choice"] == {"type": "tool", "name": "Skill"}
    assert response.tool_uses[0].arguments == '{"verdicts":[{"passed":true}]}'


async def test_anthropic__json_schema_goes_to_output_config(
    fake_llm: FakeLLM, build: Build
) -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    await build("anthropic").complete(request("anthropic", tools=(), response_schema=schema))
    body = fake_llm.requests[0].body
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": schema}}
    assert "tools" not in body


async def test_anthropic__wrong_key_is_an_auth_error(fake_llm: FakeLLM, build: Build) -> None:
    fake_llm.api_key = "the-right-key"
    with pytest.raises(ProviderError) as caught:
        await build("anthropic", api_key="a-wrong-key").complete(request("anthropic"))
    assert caught.value.kind is ErrorKind.AUTH
    assert "401" in caught.value.message and caught.value.provider == "anthropic"


async def test_anthropic__key_and_base_url_from_environ(fake_llm: FakeLLM, build: Build) -> None:
    environ = {"ANTHROPIC_API_KEY": "env-key", "ANTHROPIC_BASE_URL": fake_llm.anthropic_base_url}
    provider = build("anthropic", api_key=None, base_url=None, environ=environ)
    await provider.complete(request("anthropic"))
    assert fake_llm.requests[0].headers["authorization"] == "Bearer env-key"


async def test_openai__conversation_on_the_wire(fake_llm: FakeLLM, build: Build) -> None:
    await build("openai").complete(request("openai", temperature=0.0))

    [sent] = fake_llm.requests
    assert sent.path == "/v1/chat/completions"
    body = sent.body
    assert body["max_completion_tokens"] == 4096 and body["temperature"] == 0.0
    assert body["tools"][1] == {
        "type": "function",
        "function": {
            "name": "Write",
            "description": "Write a file.",
            "parameters": WRITE.input_schema,
        },
    }
    msgs = body["messages"]
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    assert msgs[2] == {
        "role": "assistant",
        "content": "Loading the skill.",
        "tool_calls": [
            {
                "id": "t1",
                "type": "function",
                "function": {"name": "Skill", "arguments": '{"skill":"greeter"}'},
            }
        ],
    }
    assert msgs[3] == {"role": "tool", "tool_call_id": "t1", "content": "# Greeter\nSay hi."}
    assert msgs[4]["content"] is None
    assert msgs[5]["content"] == "Error: outside the workspace"
    assert (sent.system, sent.tool_names, sent.turn) == (
        "You are a careful agent.", ["Skill", "Write"], 2
    )  # fmt: skip
    assert sent.tool_results == ["# Greeter\nSay hi.", "Error: outside the workspace"]


async def test_openai__tool_call_arguments_kept_verbatim(fake_llm: FakeLLM, build: Build) -> None:
    raw = '{ "skill" :  "greeter" }'
    fake_llm.enqueue(Reply(calls=(Call("Skill", raw=raw), Call("Skill", {"skill": "x"}))))

    response = await build("openai").complete(request("openai"))

    assert [u.arguments for u in response.tool_uses] == [raw, '{"skill": "x"}']
    assert response.stop_reason == "tool_use"
    assert response.tool_uses[0].id != response.tool_uses[1].id


async def test_openai__forced_function_and_json_schema(fake_llm: FakeLLM, build: Build) -> None:
    closed = {
        "type": "object",
        "properties": {"passed": {"type": "boolean"}},
        "required": ["passed"],
        "additionalProperties": False,
    }
    fake_llm.enqueue(text(json.dumps({"passed": True})))
    provider = build("openai")

    response = await provider.complete(
        request("openai", force_tool="Skill", response_schema=closed)
    )
    await provider.complete(request("openai", response_schema={"type": "object", "properties": {}}))

    first, second = (r.body for r in fake_llm.requests)
    assert first["tool_choice"] == {"type": "function", "function": {"name": "Skill"}}
    assert first["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "response", "schema": closed, "strict": True},
    }
    assert json.loads(response.text) == {"passed": True}
    # A schema strict mode would reject is still sent, just not as strict.
    assert second["response_format"]["json_schema"]["strict"] is False


async def test_openai__cached_prompt_tokens_split_from_fresh_input(
    fake_llm: FakeLLM, build: Build
) -> None:
    provider = build("openai")
    first = await provider.complete(request("openai"))
    second = await provider.complete(request("openai"))

    assert first.usage.cache_read_tokens == 0
    assert second.usage.cache_read_tokens > 0
    # prompt_tokens includes the cached part; our input_tokens is fresh input only.
    assert second.usage.input_tokens + second.usage.cache_read_tokens == first.usage.input_tokens
    u = second.usage
    # GPT-5.4 in genai-prices: $2.50 input, $0.25 cached, $15 output per million.
    expected = (u.input_tokens * 2.5 + u.cache_read_tokens * 0.25 + u.output_tokens * 15) / 1e6
    assert u.cost_usd == pytest.approx(expected, abs=1e-6)


async def test_openai__compatible_server_through_base_url_needs_no_key(
    fake_llm: FakeLLM, build: Build
) -> None:
    environ = {"OPENAI_BASE_URL": fake_llm.openai_base_url}
    provider = build("openai", api_key=None, base_url=None, environ=environ)

    response = await provider.complete(
        ChatRequest(model="qwen3:8b", system="", messages=conversation()[:1])
    )

    assert response.text == "ok"
    assert response.usage.cost_usd is None  # not in the catalog: unpriced, still runs
    assert fake_llm.requests[0].body["model"] == "qwen3:8b"
    assert fake_llm.requests[0].body["messages"][0]["role"] == "user"  # no empty system message


def test_registry__missing_key_is_a_per_model_auth_error() -> None:
    with pytest.raises(ProviderError) as caught:
        build_provider("anthropic", environ={})
    assert caught.value.kind is ErrorKind.AUTH
    assert str(caught.value) == (
        "anthropic: auth: no API key for anthropic: "
        "set the anthropic-api-key input or ANTHROPIC_API_KEY"
    )
    assert PROVIDERS["anthropic"].default_model == "claude-sonnet-4-6"


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_the_answer_names_the_model_that_served_it(
    fake_llm: FakeLLM, build: Build, provider: str
) -> None:
    fake_llm.script = lambda _: text("done")
    made = build(provider)

    asked = await made.complete(request(provider))
    fake_llm.served_model = "snapshot-2026-11-01"  # the same alias, served by a new snapshot
    swapped = await made.complete(request(provider))

    assert asked.model == MODELS[provider]  # the fake answers with the model asked for
    assert swapped.model == "snapshot-2026-11-01"
    assert [r.body["model"] for r in fake_llm.requests] == [MODELS[provider]] * 2
