"""The model table and provider registry: tokens, defaults, prices, keys from inputs or env."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata

import pytest

from evolve_action.execute.providers import catalog
from evolve_action.execute.providers.anthropic import AnthropicProvider
from evolve_action.execute.providers.faults import classify_status, retry_after_seconds
from evolve_action.execute.providers.openai import OpenAIProvider
from evolve_action.execute.providers.registry import (
    NO_KEY,
    build_provider,
    check_model,
    credentials,
    resolve_model,
)
from evolve_action.execute.providers.setup import ModelChoiceError, choose_judge, choose_models
from evolve_action.model.outcomes import ErrorKind, Usage
from evolve_action.model.provider import ProviderError
from evolve_action.model.provider_table import PROVIDERS, keys_of
from evolve_action.settings.inputs import BY_NAME, from_values


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


def test_every_default_model_is_in_the_price_table_and_priced() -> None:
    for row in PROVIDERS.values():
        info = catalog.lookup(f"{row.id}/{row.default_model}")
        # A provider that does not bill by token says so (GitHub Copilot's premium requests).
        assert (info is not None and info.priced) or (info is None and row.unpriced), row.id
    assert catalog.display_name("anthropic/claude-sonnet-4-6") == "Claude Sonnet 4.6"
    assert catalog.display_name("openai/unknown") == "openai/unknown"


def test_cost__anthropic_cache_rates() -> None:
    usage = Usage(
        input_tokens=1_000_000,
        output_tokens=100_000,
        cache_read_tokens=2_000_000,
        cache_write_tokens=400_000,
        calls=10,
    )
    # Sonnet 4.6: $3 in, $15 out; reads $0.30, 5-minute writes $3.75.
    expected = 3.0 + 1.5 + 0.6 + 1.5
    assert catalog.cost_usd("anthropic/claude-sonnet-4-6", usage) == pytest.approx(expected)
    assert catalog.cost_usd("openai/gpt-5.3-codex-spark", usage) is None  # listed, unpriced
    assert catalog.cost_usd("openai/my-finetune", usage) is None


def test_cost__long_context_tier_prices_the_whole_call() -> None:
    # GPT-5.4 past 272k prompt tokens: every token of that call at the higher rate.
    short = catalog.cost_usd("openai/gpt-5.4", Usage(input_tokens=200_000, calls=1))
    long = catalog.cost_usd("openai/gpt-5.4", Usage(input_tokens=300_000, calls=1))
    rates = catalog.lookup("openai/gpt-5.4")
    assert rates is not None and rates.rates is not None and rates.rates.input.tiers
    assert short == pytest.approx(0.2 * 2.5)
    assert long == pytest.approx(0.3 * rates.rates.input.tiers[0][1])
    assert long > 0.3 * 2.5
    # Two calls of 150k each: neither reaches the tier.
    assert catalog.cost_usd("openai/gpt-5.4", Usage(input_tokens=300_000, calls=2)) == (
        pytest.approx(0.3 * 2.5)
    )


def test_prices__gpt_4_1_mini_is_priced_and_the_source_is_named() -> None:
    assert catalog.cost_usd("openai/gpt-4.1-mini", Usage(input_tokens=1_000_000)) == 0.4
    source = catalog.source()
    assert source.name == "genai-prices" and source.version == metadata.version("genai-prices")
    assert str(source).startswith(source.date) and source.date[:2] == "20"


def test_prices__the_hand_written_models_are_only_those_the_package_lacks() -> None:
    from genai_prices import data_snapshot

    snapshot = data_snapshot.get_snapshot()
    for model in catalog.EXTRA:
        with pytest.raises(LookupError):
            snapshot.find_provider_model(
                model.bare_id, None, PROVIDERS[model.provider].prices_id, None
            )


def test_prices__read_offline_never_updated() -> None:
    from genai_prices import data_snapshot

    catalog.lookup("anthropic/claude-haiku-4-5")
    assert not data_snapshot.get_snapshot().from_auto_update


@pytest.mark.parametrize(
    ("model", "near"),
    [
        ("anthropic/claude-sonet-4-6", "anthropic/claude-sonnet-4-6"),
        ("openai/gpt-5.4-mnii", "openai/gpt-5.4-mini"),
    ],
)
def test_check_model__a_typo_fails_with_did_you_mean(model: str, near: str) -> None:
    with pytest.raises(ValueError, match=f"did you mean {near}") as caught:
        check_model(model, environ={})
    assert ".evolve.yaml" in str(caught.value)


def test_check_model__unknown_but_maybe_served_is_a_warning() -> None:
    assert check_model("anthropic/claude-sonnet-4-6", environ={}) is None
    own = check_model("openai/my-finetune", environ={}, priced={"openai/my-finetune"})
    assert own is not None and "price .evolve.yaml gives it" in own
    served = check_model("openai/llama3", environ={"OPENAI_BASE_URL": "http://localhost:1"})
    assert served is not None and "OPENAI_BASE_URL" in served
    with pytest.raises(ValueError, match="unknown model 'openai/llama3'"):
        check_model("openai/llama3", environ={})


def test_table__the_key_map_and_the_judge_come_from_the_rows() -> None:
    settings = from_values({"anthropic-api-key": "a", "gemini-api-key": "g"})
    assert keys_of(settings) == {"anthropic": "a", "openai": "", "gemini": "g", "copilot": ""}
    # GitHub Copilot's key is the job's GitHub token (keyless in Actions), no input of its own.
    assert keys_of(from_values({"github-token": "ghs_x"}))["copilot"] == "ghs_x"
    for row in PROVIDERS.values():
        assert row.key_input in BY_NAME and BY_NAME[row.key_input].secret, row.key_input
    assert choose_judge("", keys={"openai": "k"}, environ={}) == "openai/gpt-5.4"
    assert choose_judge("", keys={"gemini": "k"}, environ={}) == "gemini/gemini-2.5-pro"
    assert choose_judge("", keys={"gemini": "k", "openai": "k"}, environ={}).startswith("openai/")
    assert choose_judge("", keys={}, environ={}) == "anthropic/claude-sonnet-4-6"
    assert choose_judge("", keys={"anthropic": "k", "openai": "k"}, environ={}).startswith(
        "anthropic/"
    )


def test_choose_models__a_misspelt_model_fails_before_any_call() -> None:
    with pytest.raises(ModelChoiceError, match="did you mean anthropic/claude-sonnet-4-6"):
        choose_models(["anthropic/claude-sonet-4-6"], keys={"anthropic": "k"}, environ={})


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


def test_prices__no_network_is_touched_to_price_a_call() -> None:
    """In a fresh process with every socket refused, the price table loads and prices."""
    code = (
        "import socket\n"
        "def refuse(*a, **k):\n"
        "    raise OSError('network used')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "from evolve_action.execute.providers import catalog\n"
        "from evolve_action.model.outcomes import Usage\n"
        "print(catalog.cost_usd('openai/gpt-4.1-mini', Usage(input_tokens=1_000_000)))\n"
        "print(catalog.source())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "0.4" and "genai-prices" in done.stdout
