"""The model table and provider registry: tokens, defaults, prices, keys from inputs or env."""

from __future__ import annotations

import pytest

from evolve_action.execute.providers import catalog
from evolve_action.execute.providers.anthropic import AnthropicProvider
from evolve_action.execute.providers.faults import classify_status, retry_after_seconds
from evolve_action.execute.providers.openai import OpenAIProvider
from evolve_action.execute.providers.registry import (
    NO_KEY,
    build_provider,
    credentials,
    resolve_model,
)
from evolve_action.model.outcomes import ErrorKind, Usage
from evolve_action.model.provider import ProviderError


@pytest.mark.parametrize(
    ("token", "qualified"),
    [
        ("anthropic", "anthropic/claude-sonnet-4-6"),
        ("openai", "openai/gpt-5.4"),
        (" openai ", "openai/gpt-5.4"),
        ("anthropic/claude-opus-5", "anthropic/claude-opus-5"),
        ("openai/my-finetune", "openai/my-finetune"),  # unknown models pass through
        ("claude-haiku-4-5", "anthropic/claude-haiku-4-5"),
        ("gpt-5.4-mini", "openai/gpt-5.4-mini"),
    ],
)
def test_resolve_model(token: str, qualified: str) -> None:
    assert resolve_model(token) == qualified


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("google/gemini-3-flash", "unknown provider 'google'"),
        ("anthropic/", "names no model"),
        ("llama-70b", "unknown model 'llama-70b'"),
    ],
)
def test_resolve_model__errors_say_what_is_accepted(token: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        resolve_model(token)


def test_every_default_model_is_in_the_catalog_and_priced() -> None:
    for provider, bare in catalog.DEFAULT_MODELS.items():
        info = catalog.lookup(f"{provider}/{bare}")
        assert info is not None and info.priced
    assert catalog.display_name("anthropic/claude-sonnet-4-6") == "Claude Sonnet 4.6"
    assert catalog.display_name("openai/unknown") == "openai/unknown"


def test_cost__anthropic_cache_multipliers() -> None:
    usage = Usage(
        input_tokens=1_000_000,
        output_tokens=100_000,
        cache_read_tokens=2_000_000,
        cache_write_tokens=400_000,
    )
    # Sonnet 4.6: $3 in, $15 out; reads 0.1×, 5-minute writes 1.25×.
    expected = 3.0 + 1.5 + 0.6 + 1.5
    assert catalog.cost_usd("anthropic/claude-sonnet-4-6", usage) == pytest.approx(expected)
    assert catalog.cost_usd("openai/gpt-5.6-sol", usage) is None  # listed but unpriced
    assert catalog.cost_usd("openai/my-finetune", usage) is None


def test_credentials__explicit_input_beats_environ() -> None:
    environ = {"ANTHROPIC_API_KEY": "env", "ANTHROPIC_BASE_URL": "http://env"}
    assert credentials("anthropic", environ=environ).api_key == "env"
    chosen = credentials("anthropic", api_key="input", base_url="http://in", environ=environ)
    assert (chosen.api_key, chosen.base_url) == ("input", "http://in")
    assert credentials("anthropic", api_key="", environ=environ).api_key == "env"


def test_credentials__missing_key_names_the_input_and_variable() -> None:
    with pytest.raises(ProviderError) as caught:
        credentials("openai", environ={"ANTHROPIC_API_KEY": "x"})
    assert caught.value.kind is ErrorKind.AUTH and caught.value.provider == "openai"
    assert caught.value.message == (
        "no API key for openai: set the openai-api-key input or OPENAI_API_KEY"
    )


def test_credentials__self_hosted_openai_compatible_server_needs_no_key() -> None:
    chosen = credentials("openai", environ={"OPENAI_BASE_URL": "http://localhost:11434/v1"})
    assert (chosen.api_key, chosen.base_url) == (NO_KEY, "http://localhost:11434/v1")
    with pytest.raises(ProviderError):  # Anthropic has no keyless self-hosted servers
        credentials("anthropic", environ={"ANTHROPIC_BASE_URL": "http://localhost:1"})


async def test_build_provider__by_provider_id() -> None:
    anthropic = build_provider("anthropic", api_key="k", environ={}, timeout_s=12)
    openai = build_provider("openai", api_key="k", environ={}, max_retries=7)
    assert isinstance(anthropic.inner, AnthropicProvider) and anthropic.id == "anthropic"
    assert isinstance(openai.inner, OpenAIProvider) and openai.policy.max_retries == 7
    assert anthropic.inner.client.max_retries == 0  # our loop retries, the SDK does not
    assert anthropic.inner.client.timeout == 12
    await anthropic.aclose()
    await openai.aclose()
    with pytest.raises(ProviderError, match="unknown provider 'xai'"):
        build_provider("xai", api_key="k", environ={})


@pytest.mark.parametrize(
    ("status", "code", "kind", "retryable", "overload"),
    [
        (401, "", ErrorKind.AUTH, False, False),
        (402, "", ErrorKind.QUOTA, False, False),
        (429, "rate_limit_error", ErrorKind.QUOTA, True, True),
        (429, "insufficient_quota", ErrorKind.QUOTA, False, False),
        (408, "", ErrorKind.TIMEOUT, True, False),
        (422, "", ErrorKind.BAD_REQUEST, False, False),
        (500, "api_error", ErrorKind.SERVER, True, False),
        (529, "overloaded_error", ErrorKind.SERVER, True, True),
    ],
)
def test_classify_status(
    status: int, code: str, kind: ErrorKind, retryable: bool, overload: bool
) -> None:
    error = classify_status(status, code, "why", {}, provider="p")
    assert (error.kind, error.retryable, error.overload) == (kind, retryable, overload)
    assert error.message == f"HTTP {status}{' ' + code if code else ''}: why"


def test_retry_after_seconds() -> None:
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_seconds({"retry-after": "2"}) == 2.0
    assert retry_after_seconds({"retry-after": "0"}) is None
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None
    assert retry_after_seconds({}) is None
