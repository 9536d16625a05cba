"""Model ids → providers: resolving `models` tokens and building configured providers.

Keys and base URLs come from explicit values (action inputs) first, then the SDKs' own
environment variables, read from the `environ` mapping the caller parsed at the edge; the
SDK clients are always given explicit values, so nothing here depends on `os.environ`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from evolve_action.execute.providers import catalog
from evolve_action.execute.providers.faults import RetryingProvider, RetryPolicy
from evolve_action.execute.providers.limiter import AdaptiveLimiter
from evolve_action.model.evals import split_model
from evolve_action.model.outcomes import ErrorKind
from evolve_action.model.provider import Provider, ProviderError


@dataclass(frozen=True, slots=True)
class ProviderKind:
    id: str
    key_env: str
    base_url_env: str
    key_input: str  # the action input that carries the key, named in error messages
    factory: Callable[..., Provider]
    # OpenAI-compatible self-hosted servers (Ollama, vLLM) usually want no key at all.
    key_optional_with_base_url: bool = False
    # A one-call answer is best constrained by a JSON schema on the answer text (Chat
    # Completions' structured output) rather than by forcing a tool call (`Provider`).
    answers_with_schema: bool = False


# The adapters (and their SDKs, about 1 s of imports each) load only for a provider in use.
def _anthropic(**options: Any) -> Provider:
    from evolve_action.execute.providers.anthropic import AnthropicProvider

    return AnthropicProvider(**options)


def _openai(**options: Any) -> Provider:
    from evolve_action.execute.providers.openai import OpenAIProvider

    return OpenAIProvider(**options)


PROVIDERS: dict[str, ProviderKind] = {
    "anthropic": ProviderKind(
        "anthropic", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "anthropic-api-key",
        _anthropic,
    ),
    "openai": ProviderKind(
        "openai", "OPENAI_API_KEY", "OPENAI_BASE_URL", "openai-api-key", _openai,
        key_optional_with_base_url=True, answers_with_schema=True,
    ),
}  # fmt: skip

# Sent to a self-hosted OpenAI-compatible server that needs no key; the SDK insists on one.
NO_KEY = "unused"


def resolve_model(token: str) -> str:
    """A `models` token → a provider-qualified id.

    A bare provider id means its default model; `provider/model` passes through even when
    the model is not in the catalog (it runs, unpriced); a bare model id the catalog knows
    gets its provider. Anything else is a `ValueError` naming what is accepted.
    """
    token = token.strip()
    provider, bare = split_model(token)
    if provider:
        if provider not in PROVIDERS:
            raise ValueError(f"unknown provider {provider!r} in {token!r}; known: {_known()}")
        if not bare:
            raise ValueError(f"{token!r} names no model; write {provider} or {provider}/<model>")
        return token
    if token in catalog.DEFAULT_MODELS:
        return f"{token}/{catalog.DEFAULT_MODELS[token]}"
    matches = [m.qualified_id for m in catalog.MODELS if m.bare_id == token]
    if matches:
        return matches[0]
    raise ValueError(
        f"unknown model {token!r}: write <provider>/<model> (providers: {_known()}) "
        "or a provider id for its default model"
    )


def _known() -> str:
    return ", ".join(sorted(PROVIDERS))


@dataclass(frozen=True, slots=True)
class Credentials:
    api_key: str
    base_url: str | None


def credentials(
    provider_id: str,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    environ: Mapping[str, str],
) -> Credentials:
    """The key and base URL for a provider: explicit values, else the SDK's env variables.

    Raises `ProviderError(AUTH)` when there is no key; callers report it per model.
    """
    kind = _kind(provider_id)
    key = api_key or environ.get(kind.key_env) or None
    url = base_url or environ.get(kind.base_url_env) or None
    if key is None:
        if kind.key_optional_with_base_url and url:
            return Credentials(NO_KEY, url)
        raise ProviderError(
            ErrorKind.AUTH,
            f"no API key for {kind.id}: set the {kind.key_input} input or {kind.key_env}",
            provider=kind.id,
        )
    return Credentials(key, url)


def _kind(provider_id: str) -> ProviderKind:
    try:
        return PROVIDERS[provider_id]
    except KeyError:
        raise ProviderError(
            ErrorKind.BAD_REQUEST, f"unknown provider {provider_id!r}; known: {_known()}"
        ) from None


def build_provider(
    provider_id: str,
    *,
    environ: Mapping[str, str],
    api_key: str | None = None,
    base_url: str | None = None,
    max_retries: int = 4,
    timeout_s: float = 600.0,
    policy: RetryPolicy | None = None,
    limiter: AdaptiveLimiter | None = None,
    sdk_max_retries: int = 0,
) -> RetryingProvider:
    """A ready provider: the SDK adapter wrapped in our retry loop and the provider's limiter.

    `max_retries` is our retry count (the SDK's own is `sdk_max_retries`, 0 by default so
    that every 429 reaches the limiter); `policy` overrides it entirely (tests inject a
    seeded RNG and a fake sleep there). `timeout_s` bounds each HTTP request.
    """
    kind = _kind(provider_id)
    creds = credentials(provider_id, api_key=api_key, base_url=base_url, environ=environ)
    inner = kind.factory(
        api_key=creds.api_key,
        base_url=creds.base_url,
        timeout_s=timeout_s,
        sdk_max_retries=sdk_max_retries,
        answers_with_schema=kind.answers_with_schema,
    )
    retry = policy if policy is not None else RetryPolicy(max_retries=max_retries)
    return RetryingProvider(inner, policy=retry, limiter=limiter)
