"""Every fact about one model provider, in one row: adding a provider is adding a row.

What reads a row: the key map (`keys_of`, from the settings' `<key-input>` fields), the
credentials (`registry.credentials`), the SDK adapter built for it (`adapter`, imported only
when the provider is used), the SDK preload (`execute/providers/transport.py`), the SDK
exceptions the retry loop classifies (`faults.py`), the CLI proxy's upstream when no base
URL is set (`public_api`), the prices (`prices_id`, the provider's id in the `genai-prices`
package), the default model of a `models` token naming only the provider, and the default
judge (`judge_rank`, lowest first, among the providers with a key). A provider speaking a
wire that already has an adapter (an OpenAI-compatible API, say) is a row and nothing else;
a new wire is a row plus its adapter module (`anthropic.py` + `anthropic_wire.py` are the
pattern).

It is plain data in `model`, beneath every stage: `execute` builds from it, and `plan` (the
cost prior) may read it too, which it could not were it in `execute`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ProviderRow:
    id: str  # the prefix of a model id: `anthropic/claude-sonnet-4-6`
    key_input: str  # the action input that carries the key, named in error messages
    key_env: str  # the SDK's own variable for the key
    base_url_env: str  # the SDK's own variable for another endpoint
    public_api: str  # the vendor's endpoint, where the CLI proxy forwards without a base URL
    # The SDK's module, then what its client imports on its first call (preloaded together).
    sdk: tuple[str, ...]
    adapter: str  # `module:Class` of the `Provider` that speaks its wire
    wire: str  # the API shape its adapter speaks: "anthropic" (Messages) or "openai" (Chat)
    prices_id: str  # its id in `genai-prices`
    default_model: str  # the model a bare provider id means
    judge_rank: int | None = None  # the default judge's preference, lowest first; None: never
    # HTTP 429 error codes that mean the quota is gone for good (no retry helps).
    quota_codes: frozenset[str] = frozenset()
    # OpenAI-compatible self-hosted servers (Ollama, vLLM) usually want no key at all.
    key_optional_with_base_url: bool = False
    # A one-call answer is best constrained by a JSON schema on the answer text (Chat
    # Completions' structured output) rather than by forcing a tool call (`Provider`).
    answers_with_schema: bool = False

    @property
    def settings_field(self) -> str:
        """The `Settings` attribute of the key input (`anthropic-api-key` → `anthropic_api_key`)."""
        return self.key_input.replace("-", "_")

    @property
    def secret_envs(self) -> tuple[str, ...]:
        """The variables whose presence means this provider can be called."""
        url = (self.base_url_env,) if self.key_optional_with_base_url else ()
        return (self.key_env, *url)


PROVIDERS: dict[str, ProviderRow] = {
    row.id: row
    for row in (
        ProviderRow(
            id="anthropic",
            key_input="anthropic-api-key",
            key_env="ANTHROPIC_API_KEY",
            base_url_env="ANTHROPIC_BASE_URL",
            public_api="https://api.anthropic.com",
            sdk=("anthropic", "anthropic.resources.messages", "anyio._backends._asyncio"),
            adapter="evolve_action.execute.providers.anthropic:AnthropicProvider",
            wire="anthropic",
            prices_id="anthropic",
            default_model="claude-sonnet-4-6",
            judge_rank=0,
        ),
        ProviderRow(
            id="openai",
            key_input="openai-api-key",
            key_env="OPENAI_API_KEY",
            base_url_env="OPENAI_BASE_URL",
            public_api="https://api.openai.com/v1",
            sdk=("openai", "anyio._backends._asyncio"),
            adapter="evolve_action.execute.providers.openai:OpenAIProvider",
            wire="openai",
            prices_id="openai",
            default_model="gpt-5.4",
            judge_rank=1,
            quota_codes=frozenset({"insufficient_quota", "billing_hard_limit_reached"}),
            key_optional_with_base_url=True,
            answers_with_schema=True,
        ),
    )
}


def known() -> str:
    """The provider ids, for error messages."""
    return ", ".join(sorted(PROVIDERS))


def keys_of(settings: object) -> dict[str, str]:
    """Each provider's key from its input (`Settings.<key_input>`), "" when unset."""
    return {row.id: str(getattr(settings, row.settings_field, "") or "") for row in rows()}


def rows() -> tuple[ProviderRow, ...]:
    return tuple(PROVIDERS.values())


def judge_order() -> list[str]:
    """The providers the default judge may come from, preferred first."""
    ranked = [row for row in rows() if row.judge_rank is not None]
    return [row.id for row in sorted(ranked, key=lambda row: row.judge_rank or 0)]


def sdk_modules() -> dict[str, tuple[str, ...]]:
    return {row.id: row.sdk for row in rows()}


def sdk_names() -> tuple[str, ...]:
    """The SDK packages whose exceptions a call may raise (each once)."""
    return tuple(dict.fromkeys(row.sdk[0] for row in rows()))


def quota_codes() -> frozenset[str]:
    return frozenset().union(*(row.quota_codes for row in rows()))


def has_credentials(keys: Mapping[str, str], environ: Mapping[str, str]) -> bool:
    """Whether some provider has a key (an input or its variable) or a keyless base URL."""
    return any(keys.values()) or any(
        environ.get(name) for row in rows() for name in row.secret_envs
    )
