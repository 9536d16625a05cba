"""What watch reports besides time: the snapshot each model said it was, the CLI, the price.

The snapshot is the `model` field of a provider's answer: an alias such as
`claude-sonnet-4-6` is served by a dated snapshot the provider may swap without notice, and
the answer names the one that served it. The provider adapters keep only what grading needs
(`model.provider.ChatResponse`), so watch asks once per model before its runs, a one-token
request through the provider's SDK (the same key and base URL the runs use), and reads the
field. A probe that fails leaves the snapshot unknown (""), which is never counted as a
change: an outage must not look like a new model.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from evolve_action import __version__
from evolve_action.model.evals import split_model
from evolve_action.model.outcomes import Usage
from evolve_action.pipeline.pricing import Prices
from evolve_action.settings.inputs import Harness, Settings

log = logging.getLogger(__name__)

PROBE_TIMEOUT_S = 60.0


def reported_snapshots(
    models: Sequence[str], settings: Settings, environ: Mapping[str, str]
) -> dict[str, str]:
    """Each model's snapshot as its provider reports it; "" where the probe failed."""
    return {model: _probe(model, settings, environ) for model in models}


def _probe(model: str, settings: Settings, environ: Mapping[str, str]) -> str:
    provider, bare = split_model(model)
    try:
        if provider == "anthropic":
            return _anthropic(bare, settings.anthropic_api_key, environ)
        if provider == "openai":
            return _openai(bare, settings.openai_api_key, environ)
    except Exception as exc:  # any failure: unknown, never a change
        log.warning("could not ask %s which snapshot serves it: %s", model, exc)
    return ""


def _anthropic(bare: str, key: str, environ: Mapping[str, str]) -> str:
    import anthropic

    client = anthropic.Anthropic(
        api_key=key or environ.get("ANTHROPIC_API_KEY") or None,
        base_url=environ.get("ANTHROPIC_BASE_URL") or None,
        timeout=PROBE_TIMEOUT_S,
        max_retries=2,
    )
    with client:
        answer: Any = client.messages.create(
            model=bare, max_tokens=1, messages=[{"role": "user", "content": "ping"}]
        )
    return str(answer.model or "")


def _openai(bare: str, key: str, environ: Mapping[str, str]) -> str:
    import openai

    client = openai.OpenAI(
        api_key=key or environ.get("OPENAI_API_KEY") or None,
        base_url=environ.get("OPENAI_BASE_URL") or None,
        timeout=PROBE_TIMEOUT_S,
        max_retries=2,
    )
    with client:
        answer: Any = client.chat.completions.create(
            model=bare, max_completion_tokens=16, messages=[{"role": "user", "content": "ping"}]
        )
    return str(answer.model or "")


def cli_version(settings: Settings, environ: Mapping[str, str]) -> str:
    """The tool's version, and under `harness: cli` each agent CLI's (the one on PATH, else
    the pinned one the job installs)."""
    words = [f"evolve-action {__version__}"]
    if settings.harness is Harness.CLI:
        from evolve_action.execute.harness.install import clis, on_path, pinned_version

        for spec in clis().values():
            found = on_path(spec, environ)
            words.append(f"{spec.name} {found.version if found else pinned_version(spec)}")
    return ", ".join(words)


def price_words(models: Sequence[str], prices: Prices) -> dict[str, str]:
    """Each model's price per million tokens in and out, as the report would charge it."""
    out = {}
    for model in models:
        inp = prices.cost(model, Usage(1_000_000, 0, 0, 0))
        outp = prices.cost(model, Usage(0, 1_000_000, 0, 0))
        out[model] = "unknown" if inp is None or outp is None else f"${inp:g} in, ${outp:g} out"
    return out


def changes(before: Mapping[str, str], after: Mapping[str, str], what: str) -> list[str]:
    """ "model X: snapshot A → B" for each model whose known value moved."""
    out = []
    for model, now in sorted(after.items()):
        then = before.get(model, "")
        if then and now and then != now:
            out.append(f"{model}: {what} {then} → {now}")
    return out
