"""A provider on a wire that already has an adapter is one row of `provider_table.PROVIDERS`: a
throwaway row (DeepSeek, on the OpenAI wire) is resolved, keyed, built on the real SDK
against the loopback fake, priced from genai-prices under its own id, and checked. Gemini's
row is the real case of it: the `openai` SDK against Gemini's OpenAI-compatible path, its key
input made from the row."""

from __future__ import annotations

from dataclasses import replace

import pytest

from evolve_action.execute.providers.registry import build_provider, check_model, resolve_model
from evolve_action.execute.providers.setup import choose_judge, choose_models
from evolve_action.model import provider_table
from evolve_action.model.provider import ChatMessage, ChatRequest, TextPart
from tests.fakes.llm_server import FakeLLM, text

ROW = replace(
    provider_table.PROVIDERS["openai"],
    id="deepseek",
    key_input="deepseek-api-key",
    key_env="DEEPSEEK_API_KEY",
    base_url_env="DEEPSEEK_BASE_URL",
    public_api="https://api.deepseek.com/v1",
    prices_id="deepseek",
    default_model="deepseek-chat",
    judge_rank=None,
    quota_codes=frozenset(),
    key_optional_with_base_url=False,
)


@pytest.fixture
def row(monkeypatch: pytest.MonkeyPatch) -> provider_table.ProviderRow:
    monkeypatch.setitem(provider_table.PROVIDERS, ROW.id, ROW)
    return ROW


async def test_a_row_on_an_existing_wire_runs_and_is_priced(
    row: provider_table.ProviderRow, fake_llm: FakeLLM
) -> None:
    fake_llm.script = lambda request: text("hello")
    assert resolve_model("deepseek") == "deepseek/deepseek-chat"
    assert check_model("deepseek/deepseek-chat", environ={}) is None
    environ = {"DEEPSEEK_API_KEY": "k", "DEEPSEEK_BASE_URL": fake_llm.openai_base_url}
    assert choose_models([], keys={}, environ=environ) == ["deepseek/deepseek-chat"]
    # Never the default judge (no judge rank): the first ranked provider stays the judge.
    assert choose_judge("", keys={}, environ=environ).startswith("anthropic/")
    provider = build_provider("deepseek", environ=environ)
    ask = ChatRequest("deepseek-chat", "", (ChatMessage("user", (TextPart("hi"),)),))
    answer = await provider.complete(ask)
    await provider.aclose()
    assert provider.id == "deepseek" and answer.text == "hello"
    assert fake_llm.requests[0].body["model"] == "deepseek-chat"
    assert answer.usage.cost_usd is not None and answer.usage.cost_usd > 0  # DeepSeek's rates


def test_a_row_is_in_the_key_map_and_the_credentials_check(row: provider_table.ProviderRow) -> None:
    from evolve_action.settings.inputs import Settings

    keyed = Settings(api_keys={"deepseek": "secret"})
    assert provider_table.keys_of(keyed)["deepseek"] == "secret"
    assert provider_table.has_credentials({}, {"DEEPSEEK_API_KEY": "k"})
    with pytest.raises(ValueError, match="did you mean deepseek/deepseek-chat"):
        check_model("deepseek/deepseek-chta", environ={})


async def test_gemini_runs_on_the_openai_sdk_at_its_openai_compatible_path(
    fake_llm: FakeLLM,
) -> None:
    fake_llm.script = lambda request: text("hello from gemini")
    row = provider_table.PROVIDERS["gemini"]
    assert resolve_model("gemini") == f"gemini/{row.default_model}"
    assert check_model("gemini/gemini-2.5-flash", environ={}) is None
    # The variable names the origin, as for the CLI; the SDK's API is below it.
    environ = {"GEMINI_API_KEY": "g-key", "GOOGLE_GEMINI_BASE_URL": fake_llm.gemini_base_url}
    assert choose_models([], keys={}, environ=environ) == [f"gemini/{row.default_model}"]
    provider = build_provider("gemini", environ=environ)
    ask = ChatRequest("gemini-2.5-flash", "", (ChatMessage("user", (TextPart("hi"),)),))
    answer = await provider.complete(ask)
    await provider.aclose()
    (request,) = fake_llm.requests
    assert request.path == "/v1beta/openai/chat/completions"
    assert request.headers["authorization"] == "Bearer g-key"
    assert provider.id == "gemini" and answer.text == "hello from gemini"
    assert answer.usage.cost_usd is not None and answer.usage.cost_usd > 0  # Google's rates
    # Without a base URL the SDK goes to Google's endpoint, never to OpenAI's default.
    assert row.sdk_base_url(None) == "https://generativelanguage.googleapis.com/v1beta/openai"


def test_gemini_key_input_comes_from_the_row() -> None:
    from evolve_action.settings.inputs import BY_NAME, from_values

    spec = BY_NAME["gemini-api-key"]
    assert spec.secret and "GEMINI_API_KEY" in spec.description
    keys = provider_table.keys_of(from_values({"gemini-api-key": "g"}))
    assert keys == {"anthropic": "", "openai": "", "gemini": "g", "copilot": ""}
    assert "secret-value" not in repr(from_values({"gemini-api-key": "secret-value"}))
