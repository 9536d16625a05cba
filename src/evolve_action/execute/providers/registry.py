"""Model ids → providers: resolving and checking `models` tokens, building configured
providers. What each provider is (its variables, SDK, adapter, prices id) is its row in
`model/provider_table.py`; this module only reads the rows.

Keys and base URLs come from explicit values (action inputs) first, then the SDKs' own
environment variables, read from the `environ` mapping the caller parsed at the edge; the
SDK clients are always given explicit values, so nothing here depends on `os.environ`.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from dataclasses import dataclass

from evolve_action.execute.providers import catalog
from evolve_action.execute.providers.faults import RetryingProvider, RetryPolicy
from evolve_action.execute.providers.limiter import AdaptiveLimiter
from evolve_action.model.evals import split_model
from evolve_action.model.outcomes import ErrorKind
from evolve_action.model.provider import ProviderError, ProviderFactory
from evolve_action.model.provider_table import PROVIDERS, ProviderRow, known
from evolve_action.util import lazy


def _adapter(row: ProviderRow) -> ProviderFactory:
    """The row's SDK adapter class, imported now: the SDKs (about 1 s of imports each) load
    only for a provider in use."""
    factory: ProviderFactory = lazy.attribute(row.adapter)
    return factory


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
            raise ValueError(f"unknown provider {provider!r} in {token!r}; known: {known()}")
        if not bare:
            raise ValueError(f"{token!r} names no model; write {provider} or {provider}/<model>")
        return token
    if token in PROVIDERS:
        return f"{token}/{PROVIDERS[token].default_model}"
    matches = catalog.providers_of(token)
    if matches:
        return f"{matches[0]}/{token}"
    raise ValueError(
        f"unknown model {token!r}: write <provider>/<model> (providers: {known()}) "
        "or a provider id for its default model"
    )


def check_model(
    model: str,
    *,
    environ: Mapping[str, str],
    priced: Container[str] = (),
    replay: bool = False,
) -> str | None:
    """Whether a provider-qualified id names a model anyone knows, before anything runs.

    None: the price table (or `catalog.EXTRA`) knows it. A warning (returned) when it is
    unknown but may still be right: `.evolve.yaml` prices it, the provider's base URL points
    at a server that may serve it, or a replay answers from what was recorded. Anything else
    raises `ValueError` with the nearest known ids: a typo would otherwise run, unpriced, and
    be projected as costing nothing.
    """
    if catalog.lookup(model) is not None:
        return None
    provider, _ = split_model(model)
    row = _kind(provider)
    if row.unpriced:
        return f"{model} runs unpriced: {row.unpriced}"
    source = catalog.source()
    unknown = f"{model!r} is not a model {source.name} {source.version} knows"
    if model in priced:
        return f"{unknown}; it runs at the price .evolve.yaml gives it"
    if environ.get(row.base_url_env):
        return f"{unknown}; it runs unpriced, on the server {row.base_url_env} names"
    if replay:
        return f"{unknown}; it is replayed as recorded"
    near = catalog.close_ids(model)
    hint = ""
    if near:
        others = f" (or {', '.join(near[1:])})" if near[1:] else ""
        hint = f"; did you mean {near[0]}{others}?"
    raise ValueError(
        f"unknown model {model!r}: no {provider} model of that id is in {source.name}"
        f" {source.version}{hint} To run a model it does not list, price it in .evolve.yaml"
        f" (providers.{provider}.models) or set {row.base_url_env} to the server that serves it."
    )


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
    url = _base_url(kind, base_url, environ)
    if key is None:
        if kind.key_optional_with_base_url and url:
            return Credentials(NO_KEY, url)
        raise ProviderError(
            ErrorKind.AUTH,
            f"no API key for {kind.id}: set the {kind.key_input} input or {kind.key_env}",
            provider=kind.id,
        )
    return Credentials(key, url)


def client_base_url(provider_id: str, environ: Mapping[str, str]) -> str | None:
    """The base URL `build_provider` gives this provider's SDK client (None: the SDK's own)."""
    kind = _kind(provider_id)
    return kind.sdk_base_url(_base_url(kind, None, environ))


def _base_url(kind: ProviderRow, base_url: str | None, environ: Mapping[str, str]) -> str | None:
    return base_url or environ.get(kind.base_url_env) or None


def _kind(provider_id: str) -> ProviderRow:
    try:
        return PROVIDERS[provider_id]
    except KeyError:
        raise ProviderError(
            ErrorKind.BAD_REQUEST, f"unknown provider {provider_id!r}; known: {known()}"
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
    inner = _adapter(kind)(
        provider_id=kind.id,
        api_key=creds.api_key,
        base_url=kind.sdk_base_url(creds.base_url),
        timeout_s=timeout_s,
        sdk_max_retries=sdk_max_retries,
        answers_with_schema=kind.answers_with_schema,
    )
    retry = policy if policy is not None else RetryPolicy(max_retries=max_retries)
    return RetryingProvider(inner, policy=retry, limiter=limiter)
