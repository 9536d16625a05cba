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

from collections.abc import Iterable, Mapping
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
    # Used only when a model names it: its key is another input's (GitHub Copilot's is the
    # job's GitHub token), so it has no key input of its own, is never a default model or
    # judge, and its key being there does not count as "a model key is set".
    opt_in: bool = False
    # A free request the key must pass before any run (`GET <api><preflight>`): a 401 or 403
    # there makes every run of the provider an `auth` error, before anything is spent.
    preflight: str = ""
    refusal_hint: str = ""  # what to do when the preflight refuses the key
    # Why its models are not in `genai-prices` (they run unpriced, said so); "" when they are.
    unpriced: str = ""

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
            sdk=(
                "anthropic",
                "anthropic.resources.messages",
                "anyio._backends._asyncio",
                "httpcore2",
            ),
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
            sdk=("openai", "anyio._backends._asyncio", "httpcore2"),
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
            sdk=("openai", "anyio._backends._asyncio", "httpcore2"),
            adapter="evolve_action.execute.providers.openai:OpenAIProvider",
            wire="openai",
            prices_id="google",
            default_model="gemini-2.5-pro",
            judge_rank=2,
            answers_with_schema=True,
            sdk_path="/v1beta/openai",
            native_wire="gemini",
        ),
        # GitHub Copilot's API, keyless in Actions: the workflow's GITHUB_TOKEN with
        # `permissions: copilot-requests: write` bills the requests to the organization. Only
        # the Copilot CLI runs it (`harness: cli`), through the proxy, which alone holds the
        # token. The API serves Anthropic models on `/v1/messages` and OpenAI models on
        # `/responses` and `/chat/completions`, with the token as a bearer.
        ProviderRow(
            id="copilot",
            label="GitHub Copilot",
            key_input="github-token",
            key_env="COPILOT_GITHUB_TOKEN",
            base_url_env="COPILOT_API_URL",
            public_api="https://api.githubcopilot.com",
            sdk=("openai", "anyio._backends._asyncio", "httpcore2"),
            adapter="evolve_action.execute.providers.openai:OpenAIProvider",
            wire="openai",
            prices_id="",
            default_model="claude-sonnet-4.6",
            opt_in=True,
            preflight="/models",
            refusal_hint=(
                "the workflow's token can make Copilot requests only with `permissions:"
                " copilot-requests: write` in a repository owned by an organization that allows"
                " Copilot CLI billed to it, and never on a pull request from a fork (its token"
                " is read-only)"
            ),
            unpriced="GitHub Copilot bills premium requests, not tokens",
        ),
    )
}


def known() -> str:
    """The provider ids, for error messages."""
    return ", ".join(sorted(PROVIDERS))


def keys_of(settings: object) -> dict[str, str]:
    """Each provider's key from its input (`Settings.api_keys`, by provider id; an opt-in
    row's from the input it shares, `Settings.github_token`), "" when unset."""
    given = getattr(settings, "api_keys", None) or {}
    out = {}
    for row in rows():
        shared = getattr(settings, row.key_input.replace("-", "_"), "") if row.opt_in else ""
        out[row.id] = str(given.get(row.id, "") or shared or "")
    return out


def by_key_input() -> dict[str, ProviderRow]:
    """The rows with a key input of their own, by its name (`anthropic-api-key` → anthropic)."""
    return {row.key_input: row for row in rows() if not row.opt_in}


def defaults() -> tuple[ProviderRow, ...]:
    """The rows a job may choose without being told (default models, "a key is set")."""
    return tuple(row for row in rows() if not row.opt_in)


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


# The wires whose calls the courier process sends for the job (`execute/providers/courier.py`):
# a wire's adapter must read its answer from the server's JSON, which is what the courier
# hands back (`execute/providers/answer_json.py`).
CARRIED_WIRES = frozenset({"openai", "anthropic"})


def carried(provider_id: str) -> bool:
    row = PROVIDERS.get(provider_id)
    return row is not None and row.wire in CARRIED_WIRES


def carried_modules(provider_ids: Iterable[str]) -> list[str]:
    """What the courier imports for these providers, in their order: each carried one's SDK
    modules and its adapter's module."""
    carried_rows = [PROVIDERS[p] for p in dict.fromkeys(provider_ids) if carried(p)]
    names = [n for row in carried_rows for n in (*row.sdk, row.adapter.partition(":")[0])]
    return list(dict.fromkeys(names))


def sdk_type_hubs() -> tuple[str, ...]:
    """Each SDK's generated `types` package, whose body only re-exports its model classes:
    the program runs such a body only when a name of it is used (`util/deferred_packages.py`)."""
    return tuple(f"{name}.types" for name in sdk_names())


def quota_codes() -> frozenset[str]:
    return frozenset().union(*(row.quota_codes for row in rows()))


def has_credentials(
    keys: Mapping[str, str], environ: Mapping[str, str], models: Iterable[str] = ()
) -> bool:
    """Whether some provider has a key (an input or its variable) or a keyless base URL; an
    opt-in provider counts only when one of `models` names it."""
    named = {m.split("/", 1)[0] for m in models if "/" in m}
    usable = [row for row in rows() if not row.opt_in or row.id in named]
    return any(keys.get(row.id) for row in usable) or any(
        environ.get(name) for row in usable for name in row.secret_envs
    )
