"""Every fact about one model provider, in one row: adding a provider is adding a row.

What reads a row: the key inputs (`settings/inputs.py` makes one per row, and the key map
`keys_of` reads them back from `Settings.api_keys`), the
credentials (`registry.credentials`), the SDK adapter built for it (`adapter`, imported only
when the provider is used), the SDK preload (`execute/providers/transport.py`), the SDK
exceptions the retry loop classifies (`faults.py`), the CLI proxy's upstream when no base
URL is set (`public_api`), the prices (`prices_id`, the provider's id in the `genai-prices`
package), the default model of a `models` token naming only the provider, and the default
judge (`judge_rank`, lowest first, among the providers with a key), and the credential
proxy's wire for a CLI (`proxy_wire`). A provider speaking a
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
    # Where the SDK adapter's API sits below the origin the base-URL variable names, when it
    # is not the origin itself: Gemini's OpenAI-compatible API is `<origin>/v1beta/openai`,
    # while its CLI is given the origin and calls `<origin>/v1beta/models/...`.
    sdk_path: str = ""
    # The shape of the vendor's own API, which its CLI speaks through the credential proxy,
    # when it is not the SDK adapter's `wire` (its auth header, usage fields, error bodies).
    native_wire: str = ""
    label: str = ""  # the vendor's name in the key input's description

    @property
    def proxy_wire(self) -> str:
        """What the credential proxy speaks to this provider's API for a CLI."""
        return self.native_wire or self.wire

    @property
    def key_description(self) -> str:
        """The key input's description (action.yml, docs/inputs.md, `--help`)."""
        return f"{self.label or self.id} API key (else {self.key_env})."

    def sdk_base_url(self, base_url: str | None) -> str | None:
        """The SDK client's base URL: the configured one (else, for an API below an origin,
        the public one) with the row's `sdk_path`; None leaves the SDK's own default."""
        if not self.sdk_path:
            return base_url
        return (base_url or self.public_api).rstrip("/") + self.sdk_path

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
            label="Anthropic",
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
            label="OpenAI",
            key_input="openai-api-key",
            key_env="OPENAI_API_KEY",
            base_url_env="OPENAI_BASE_URL",
            public_api="https://api.openai.com/v1",
            sdk=("openai", "openai.resources.chat.chat", "anyio._backends._asyncio"),
            adapter="evolve_action.execute.providers.openai:OpenAIProvider",
            wire="openai",
            prices_id="openai",
            default_model="gpt-5.4",
            judge_rank=1,
            quota_codes=frozenset({"insufficient_quota", "billing_hard_limit_reached"}),
            key_optional_with_base_url=True,
            answers_with_schema=True,
        ),
        # Gemini through its OpenAI-compatible endpoint with the `openai` SDK: the same
        # adapter and wire as OpenAI's (no new dependency, one request shape for our loop);
        # its CLI speaks the native generateContent API through the proxy (`native_wire`).
        # Its 429s say RESOURCE_EXHAUSTED for a rate limit and an empty quota alike, so no
        # code marks a quota gone for good.
        ProviderRow(
            id="gemini",
            label="Gemini",
            key_input="gemini-api-key",
            key_env="GEMINI_API_KEY",
            base_url_env="GOOGLE_GEMINI_BASE_URL",
            public_api="https://generativelanguage.googleapis.com",
            sdk=("openai", "openai.resources.chat.chat", "anyio._backends._asyncio"),
            adapter="evolve_action.execute.providers.openai:OpenAIProvider",
            wire="openai",
            prices_id="google",
            default_model="gemini-2.5-pro",
            judge_rank=2,
            answers_with_schema=True,
            sdk_path="/v1beta/openai",
            native_wire="gemini",
        ),
    )
}


def known() -> str:
    """The provider ids, for error messages."""
    return ", ".join(sorted(PROVIDERS))


def keys_of(settings: object) -> dict[str, str]:
    """Each provider's key from its input (`Settings.api_keys`, by provider id), "" when unset."""
    given = getattr(settings, "api_keys", None) or {}
    return {row.id: str(given.get(row.id, "") or "") for row in rows()}


def by_key_input() -> dict[str, ProviderRow]:
    """The rows by the name of their key input (`anthropic-api-key` → anthropic's row)."""
    return {row.key_input: row for row in rows()}


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
