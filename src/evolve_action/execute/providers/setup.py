"""Which models run, which judge grades, and the providers they need, from the settings.

Models default to the default model of every provider that has a key; the judge defaults to
the default model of the first provider with a key in the table's judge order
(`provider_table.judge_order`), else of the first in that order. A provider that cannot
be built (no key) is not an exception: its runs end as `error` with the reason, per model.
Record and replay wrap every provider here, so the rest of the pipeline cannot tell.

Two environment variables tune the transport for tests and slow self-hosted servers
(documented for users in docs/environment.md):
`EVOLVE_REQUEST_TIMEOUT_S` bounds each HTTP request (default 600) and
`EVOLVE_RETRY_BASE_DELAY_S` is the first retry backoff when the server gives no
`Retry-After` (default 0.5). Invalid or non-positive values are ignored.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evolve_action.execute.providers import courier, transport
from evolve_action.execute.providers.faults import positive_env, tuned_policy
from evolve_action.execute.providers.limiter import AdaptiveLimiter
from evolve_action.execute.providers.registry import (
    build_provider,
    check_model,
    client_base_url,
    credentials,
    resolve_model,
)
from evolve_action.execute.providers.replay import (
    Cassette,
    RecordingProvider,
    ReplayProvider,
    load_cassette,
    save_cassette,
)
from evolve_action.model import provider_table
from evolve_action.model.evals import split_model
from evolve_action.model.outcomes import ErrorKind
from evolve_action.model.provider import Provider, ProviderError
from evolve_action.model.provider_table import PROVIDERS
from evolve_action.settings.parsers import Harness
from evolve_action.util import startup

if TYPE_CHECKING:
    from evolve_action.settings.inputs import Settings


log = logging.getLogger(__name__)


class ModelChoiceError(ValueError):
    """A `models` or `judge-model` value names nothing we can run."""


def _has_key(provider_id: str, keys: Mapping[str, str], environ: Mapping[str, str]) -> bool:
    try:
        credentials(provider_id, api_key=keys.get(provider_id) or None, environ=environ)
    except ProviderError:
        return False
    return True


def choose_models(
    tokens: Iterable[str],
    *,
    keys: Mapping[str, str],
    environ: Mapping[str, str],
    replay: bool = False,
    priced: Container[str] = (),
    check: bool = True,
) -> list[str]:
    """Resolve the `models` input; empty means each provider with a key, at its default.

    Every id is checked against the price table first (`registry.check_model`): a typo is a
    `ModelChoiceError` with a did-you-mean, an unknown id that may still run a warning.
    """
    chosen = []
    tokens = list(tokens)
    if not tokens:
        defaults = [row.id for row in provider_table.defaults()]
        with_key = [p for p in defaults if replay or _has_key(p, keys, environ)]
        tokens = with_key or defaults[:1]
    for token in tokens:
        model = _resolved(token, "models", environ, priced, replay=replay, check=check)
        if model not in chosen:
            chosen.append(model)
    return chosen


def _resolved(
    token: str,
    name: str,
    environ: Mapping[str, str],
    priced: Container[str],
    *,
    replay: bool,
    check: bool,
) -> str:
    """A token of input `name` → a provider-qualified id, checked (`registry.check_model`)
    unless `check` is off; its warning, if any, logged."""
    warning = None
    try:
        model = resolve_model(token)
        if check:
            warning = check_model(model, environ=environ, priced=priced, replay=replay)
    except ValueError as exc:
        raise ModelChoiceError(f"input {name}: {exc}") from None
    if warning:
        log.warning("input %s: %s", name, warning)
    return model


def choose_judge(
    token: str,
    *,
    keys: Mapping[str, str],
    environ: Mapping[str, str],
    replay: bool = False,
    priced: Container[str] = (),
    check: bool = True,
) -> str:
    if not token:
        order = provider_table.judge_order()
        keyed = [p for p in order if replay or _has_key(p, keys, environ)]
        provider = (keyed or order)[0]
        return f"{provider}/{PROVIDERS[provider].default_model}"
    return _resolved(token, "judge-model", environ, priced, replay=replay, check=check)


def preload_sdks(
    settings: Settings,
    environ: Mapping[str, str],
    *,
    replay: bool,
    then: Sequence[transport.Later] = (),
) -> threading.Thread | None:
    """Start importing the SDKs this job will build clients for (`transport.preload`).

    Called at job start, before git and loading. Replay builds no SDK client, a provider
    without a key is never built, and models that do not resolve are left for
    `choose_models` to report where the job resolves them. What `then` names (modules to
    import, functions to call) is done in the same thread once the first request has left.
    The courier, if started, is let go when none of the job's own calls is one it carries.
    Returns the worker thread, if one was started.
    """
    models, judge = ([], []) if replay else _needed(settings, environ)
    # The agent CLIs call their models themselves (`harness: cli`); we call the judge.
    ours = judge if settings.harness is Harness.CLI else [*models, *judge]
    needed = list(dict.fromkeys([*models, *judge]))
    tls = any(_speaks_tls(p, environ) for p in needed)
    if any(provider_table.carried(p) for p in ours):
        courier.prepare(ours, tls=tls)
    else:
        courier.stop()  # none of our calls is one it carries
    return transport.preload(needed, then, tls=tls) if needed else None


def _speaks_tls(provider_id: str, environ: Mapping[str, str]) -> bool:
    """Whether this provider's client may speak TLS, by the base URL it will be built with:
    if none may, nobody loads the CA bundle."""
    return transport.speaks_tls(client_base_url(provider_id, environ), environ)


def _needed(settings: Settings, environ: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """The providers of the models and of the judge that this job builds clients for (the
    first request goes to a model; the judge speaks only after it)."""
    keys = provider_table.keys_of(settings)
    try:
        # Unchecked: the job checks the ids (and warns) once, where it resolves them.
        models = choose_models(settings.models, keys=keys, environ=environ, check=False)
        judge = choose_judge(settings.judge_model, keys=keys, environ=environ, check=False)
    except ModelChoiceError:
        return [], []
    keyed = [
        p for p in dict.fromkeys(split_model(m)[0] for m in models) if _has_key(p, keys, environ)
    ]
    judged = [p for p in [split_model(judge)[0]] if _has_key(p, keys, environ)]
    return keyed, judged


@dataclass
class Providers:
    """Built providers by id, the errors of those that could not be built, their limiters."""

    built: dict[str, Provider] = field(default_factory=dict)
    errors: dict[str, ProviderError] = field(default_factory=dict)
    limiters: dict[str, AdaptiveLimiter] = field(default_factory=dict)
    cassettes: dict[str, Cassette] = field(default_factory=dict)
    record_dir: Path | None = None

    async def aclose(self) -> None:
        """Close the SDK clients (their connection pools) before the event loop ends."""
        for provider in self.built.values():
            closer = getattr(provider, "aclose", None)
            if closer is not None:
                await closer()
            inner = getattr(provider, "inner", None)  # a recording wrapper
            closer = getattr(inner, "aclose", None)
            if closer is not None:
                await closer()

    def save_recordings(self) -> list[Path]:
        if self.record_dir is None:
            return []
        written = []
        for provider_id, cassette in self.cassettes.items():
            path = self.record_dir / f"{provider_id}.json"
            save_cassette(path, cassette)
            written.append(path)
        return written


def build_providers(
    models: Iterable[str],
    *,
    keys: Mapping[str, str],
    environ: Mapping[str, str],
    max_concurrency: int,
    record_dir: Path | None = None,
    replay_dir: Path | None = None,
) -> Providers:
    out = Providers(record_dir=record_dir)
    for provider_id in dict.fromkeys(split_model(m)[0] for m in models):
        limiter = AdaptiveLimiter(max_concurrency)
        out.limiters[provider_id] = limiter
        if replay_dir is not None:
            path = replay_dir / f"{provider_id}.json"
            cassette = load_cassette(path) if path.is_file() else Cassette({})
            out.built[provider_id] = ReplayProvider(provider_id, cassette)
            continue
        try:
            provider: Provider = build_provider(
                provider_id,
                environ=environ,
                api_key=keys.get(provider_id) or None,
                limiter=limiter,
                **_transport_options(environ),
            )
        except ProviderError as exc:
            out.errors[provider_id] = exc
            continue
        refused = preflight(provider_id, keys=keys, environ=environ)
        if refused is not None:
            out.errors[provider_id] = refused
            continue
        if record_dir is not None:
            cassette = Cassette({})
            out.cassettes[provider_id] = cassette
            provider = RecordingProvider(provider, cassette)
        out.built[provider_id] = provider
    if not transport.importing():  # else the preload thread says when start-up is over
        startup.started()
    return out


_PREFLIGHT_TIMEOUT_S = 30.0


def preflight(
    provider_id: str, *, keys: Mapping[str, str], environ: Mapping[str, str]
) -> ProviderError | None:
    """The provider's refusal of its key on a free request (its row's `preflight`), as the
    `auth` error every one of its runs becomes; None when it took the key, or could not say
    (the runs then meet whatever it is, as they would have)."""
    row = PROVIDERS[provider_id]
    if not row.preflight:
        return None
    # Here: `urllib.request` (and `email`, 20 modules) is not worth importing before the
    # providers are named (`preload_sdks`) for the few rows that preflight.
    import urllib.error
    import urllib.request

    creds = credentials(provider_id, api_key=keys.get(provider_id) or None, environ=environ)
    url = (creds.base_url or row.public_api).rstrip("/") + row.preflight
    ask = urllib.request.Request(url, headers={"authorization": f"Bearer {creds.api_key}"})
    try:
        with urllib.request.urlopen(ask, timeout=_PREFLIGHT_TIMEOUT_S):
            return None
    except urllib.error.HTTPError as exc:
        if exc.code not in (401, 403):
            return None
        return ProviderError(
            ErrorKind.AUTH,
            f"{row.label} refused the {row.key_input} token ({exc.code} on {row.preflight}):"
            f" {row.refusal_hint}; nothing was run or spent",
            provider=provider_id,
        )
    except (OSError, ValueError):
        return None


def _transport_options(environ: Mapping[str, str]) -> dict[str, Any]:
    """`timeout_s` and `policy` for `build_provider` from the tuning variables, if set."""
    options: dict[str, Any] = {}
    timeout = positive_env(environ, "EVOLVE_REQUEST_TIMEOUT_S")
    if timeout is not None:
        options["timeout_s"] = timeout
    policy = tuned_policy(environ)
    if policy is not None:
        options["policy"] = policy
    return options
