"""Which models exist, their names and prices: the maintained `genai-prices` package, offline.

Neither API returns a price, so a cost is usage × a price table. The table is the
`genai-prices` package's (pinned in the lock), read from the snapshot bundled in the package:
nothing here starts its `UpdatePrices` (the only part of it that fetches), so a run never
touches the network for prices and a given lock always prices the same way. Each provider
row names its id there (`provider_table.ProviderRow.prices_id`). The package's answers for
the ids a job names are written out beforehand (`catalog_index.py`), so a job reads them
without importing the package; any other id, or any other release of the package, is asked
of the package itself.

`EXTRA` is the hand-written remainder: models a harness runs that the package does not list
(they run, unpriced, unless `.evolve.yaml` prices them). A test fails when the package
learns one of them, so the list only shrinks.

Long-context rates: where the package has tiers (GPT-5.4 past 272k input tokens), the
whole call is priced at the tier its prompt reaches, as the vendors bill. A usage summed
over several calls is tiered by its prompt size per call on average.
"""

from __future__ import annotations

import datetime
import difflib
import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evolve_action.execute.providers import catalog_index
from evolve_action.model.outcomes import Usage
from evolve_action.model.provider_table import PROVIDERS

if TYPE_CHECKING:
    from genai_prices import types as gp

PACKAGE = "genai-prices"


@dataclass(frozen=True, slots=True)
class Rate:
    """USD per million tokens, and the higher rates from a prompt size on (`tiers`)."""

    base: float
    tiers: tuple[tuple[int, float], ...] = ()  # (prompt tokens above which, rate), ascending

    def at(self, prompt_tokens: float) -> float:
        rate = self.base
        for start, price in self.tiers:
            if prompt_tokens > start:
                rate = price
        return rate


@dataclass(frozen=True, slots=True)
class Rates:
    input: Rate
    output: Rate
    cache_read: Rate
    cache_write: Rate

    def cost_usd(self, usage: Usage) -> float:
        calls = max(usage.calls, 1)
        prompt = (usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens) / calls
        total = (
            usage.input_tokens * self.input.at(prompt)
            + usage.cache_read_tokens * self.cache_read.at(prompt)
            + usage.cache_write_tokens * self.cache_write.at(prompt)
            + usage.output_tokens * self.output.at(prompt)
        )
        return round(total / 1_000_000, 6)


@dataclass(frozen=True, slots=True)
class ModelInfo:
    provider: str
    bare_id: str
    display: str
    rates: Rates | None = None  # None: the model runs, unpriced

    @property
    def qualified_id(self) -> str:
        return f"{self.provider}/{self.bare_id}"

    @property
    def priced(self) -> bool:
        return self.rates is not None


@dataclass(frozen=True, slots=True)
class PriceSource:
    """Where the prices come from, for every place a cost is shown."""

    name: str
    version: str
    date: str  # the newest price change the package's snapshot holds (YYYY-MM-DD)

    def __str__(self) -> str:
        return f"{self.date} ({self.name} {self.version})"


EXTRA: tuple[ModelInfo, ...] = (ModelInfo("openai", "gpt-5.3-codex-spark", "GPT-5.3 Codex Spark"),)
_EXTRA = {m.qualified_id: m for m in EXTRA}


@functools.cache
def _snapshot() -> Any:
    # The bundled snapshot, never `UpdatePrices`: importing it reads no network.
    from genai_prices import data_snapshot

    return data_snapshot.get_snapshot()


def _rate(value: Any) -> Rate | None:
    """A rate as the index writes it (`catalog_index._rate`): a number, or a base with tiers."""
    if value is None:
        return None
    if not isinstance(value, dict):
        return Rate(float(value))
    return Rate(float(value["base"]), tuple((int(a), float(b)) for a, b in value["tiers"]))


def _rates(price: dict[str, Any]) -> Rates | None:
    inp, out = _rate(price["input_mtok"]), _rate(price["output_mtok"])
    if inp is None or out is None:
        return None
    # Unlisted cache rates: read and write at the input rate (OpenAI bills writes as input).
    read, write = _rate(price["cache_read_mtok"]), _rate(price["cache_write_mtok"])
    return Rates(inp, out, read or inp, write or inp)


def _package_price(found: gp.ModelInfo, when: datetime.datetime) -> dict[str, Any]:
    """The package's own choice of price on `when`, in the index's form."""
    return catalog_index.price_of(found.get_prices(when))


@functools.cache
def lookup(qualified_id: str) -> ModelInfo | None:
    """The model by its provider-qualified id, priced at today's rates; None: nobody knows it."""
    if qualified_id in _EXTRA:
        return _EXTRA[qualified_id]
    provider, _, bare = qualified_id.partition("/")
    row = PROVIDERS.get(provider)
    if row is None or not bare:
        return None
    now = datetime.datetime.now(tz=datetime.UTC)
    entry = catalog_index.find(row.prices_id, bare)
    if entry is not None:
        price = catalog_index.active_price(entry, now.date().isoformat())
        return ModelInfo(provider, bare, entry["name"] or bare, _rates(price))
    if catalog_index.known_miss(row.prices_id, bare):
        return None
    try:
        _, found = _snapshot().find_provider_model(bare, None, row.prices_id, None)
    except LookupError:
        return None
    return ModelInfo(provider, bare, found.name or bare, _rates(_package_price(found, now)))


def model_ids(provider: str) -> list[str]:
    """Every model id known for `provider` (the package's and `EXTRA`), for did-you-mean."""
    row = PROVIDERS.get(provider)
    ids = [m.bare_id for m in EXTRA if m.provider == provider]
    index = catalog_index.table()
    if row is not None and index is not None and row.prices_id in index["ids"]:
        return ids + list(index["ids"][row.prices_id])
    if row is not None:
        for entry in _snapshot().providers:
            if entry.id == row.prices_id:
                ids += [m.id for m in entry.models]
    return ids


def providers_of(bare_id: str) -> list[str]:
    """The providers that know a bare model id, in table order."""
    return [p for p in PROVIDERS if lookup(f"{p}/{bare_id}") is not None]


def close_ids(qualified_id: str, n: int = 3) -> list[str]:
    """The known ids nearest a misspelt one, provider-qualified."""
    provider, _, bare = qualified_id.partition("/")
    providers = [provider] if provider in PROVIDERS else list(PROVIDERS)
    candidates = {f"{p}/{m}": m for p in providers for m in model_ids(p)}
    near = difflib.get_close_matches(bare, list(candidates.values()), n=n, cutoff=0.75)
    return [q for m in near for q, b in candidates.items() if b == m][:n]


def display_name(qualified_id: str) -> str:
    info = lookup(qualified_id)
    return info.display if info else qualified_id


def cost_usd(qualified_id: str, usage: Usage) -> float | None:
    """What `usage` costs on this model, rounded to 6 decimals; None when unpriced."""
    info = lookup(qualified_id)
    if info is None or info.rates is None:
        return None
    return info.rates.cost_usd(usage)


@functools.cache
def source() -> PriceSource:
    """The package, its version and the date of its newest price."""
    today = datetime.datetime.now(tz=datetime.UTC).date().isoformat()
    index = catalog_index.table()
    if index is not None:
        version, dates = str(index["version"]), list(index["dates"])
    else:
        version = catalog_index.package_version()
        dates = catalog_index.dates_of(_snapshot().providers)
    newest = max((d for d in dates if d <= today), default=datetime.date.min.isoformat())
    return PriceSource(PACKAGE, version, newest)
