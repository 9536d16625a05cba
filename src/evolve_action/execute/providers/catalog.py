"""The built-in model table: which models exist, their display names, defaults and prices.

Prices are USD per million tokens and are an *estimate*: neither API returns a price, so costs
are usage × this table (evolve does the same). Anthropic prices are evolve's registry's.
OpenAI's registry lists its models without figures; the OpenAI figures below are our own
estimate and the reason `PRICES_AS_OF` is shown next to any cost. A model missing here still
runs; it is unpriced (cost None).
"""

from __future__ import annotations

from dataclasses import dataclass

from evolve_action.model.outcomes import Usage

PRICES_AS_OF = "2026-11"


@dataclass(frozen=True, slots=True)
class ModelInfo:
    provider: str
    bare_id: str
    display: str
    input_per_mtok: float | None = None
    output_per_mtok: float | None = None
    # Multipliers on the input rate. Anthropic: 5-minute cache write 1.25×, read 0.1×.
    # OpenAI: cached input ~0.1×; writes are plain input before the GPT-5.6 family.
    cache_read_multiplier: float = 0.1
    cache_write_multiplier: float = 1.25

    @property
    def qualified_id(self) -> str:
        return f"{self.provider}/{self.bare_id}"

    @property
    def priced(self) -> bool:
        return self.input_per_mtok is not None and self.output_per_mtok is not None


def _anthropic(bare: str, display: str, inp: float, out: float) -> ModelInfo:
    return ModelInfo("anthropic", bare, display, inp, out, 0.1, 1.25)


def _openai(
    bare: str, display: str, inp: float | None = None, out: float | None = None, write: float = 1.0
) -> ModelInfo:
    return ModelInfo("openai", bare, display, inp, out, 0.1, write)


MODELS: tuple[ModelInfo, ...] = (
    _anthropic("claude-haiku-4-5", "Claude Haiku 4.5", 1.0, 5.0),
    _anthropic("claude-sonnet-4-6", "Claude Sonnet 4.6", 3.0, 15.0),
    _anthropic("claude-sonnet-5", "Claude Sonnet 5", 3.0, 15.0),
    _anthropic("claude-opus-4-8", "Claude Opus 4.8", 5.0, 25.0),
    _anthropic("claude-opus-5", "Claude Opus 5", 5.0, 25.0),
    _anthropic("claude-fable-5", "Claude Fable 5", 10.0, 50.0),
    _openai("gpt-5.4-mini", "GPT-5.4 mini", 0.25, 2.0),
    _openai("gpt-5.4", "GPT-5.4", 1.25, 10.0),
    _openai("gpt-5.5", "GPT-5.5", 2.5, 20.0),
    _openai("gpt-5.6-sol", "GPT-5.6 Sol", write=1.25),
    _openai("gpt-5.6-terra", "GPT-5.6 Terra", write=1.25),
    _openai("gpt-5.6-luna", "GPT-5.6 Luna", write=1.25),
    _openai("gpt-5.3-codex-spark", "GPT-5.3 Codex Spark"),
)

DEFAULT_MODELS: dict[str, str] = {
    "anthropic": "claude-sonnet-4-6",
    "openai": "gpt-5.4",
}

_BY_ID: dict[str, ModelInfo] = {m.qualified_id: m for m in MODELS}


def lookup(qualified_id: str) -> ModelInfo | None:
    return _BY_ID.get(qualified_id)


def models_of(provider: str) -> tuple[ModelInfo, ...]:
    return tuple(m for m in MODELS if m.provider == provider)


def display_name(qualified_id: str) -> str:
    info = lookup(qualified_id)
    return info.display if info else qualified_id


def cost_usd(qualified_id: str, usage: Usage) -> float | None:
    """What `usage` costs on this model, rounded to 6 decimals; None when unpriced."""
    info = lookup(qualified_id)
    if info is None or info.input_per_mtok is None or info.output_per_mtok is None:
        return None
    inp = info.input_per_mtok
    total = (
        usage.input_tokens * inp
        + usage.cache_read_tokens * inp * info.cache_read_multiplier
        + usage.cache_write_tokens * inp * info.cache_write_multiplier
        + usage.output_tokens * info.output_per_mtok
    )
    return round(total / 1_000_000, 6)
