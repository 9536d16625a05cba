"""The price table's answers, written out once from `genai-prices` so a job need not import it.

Importing `genai-prices` builds its whole snapshot (47 providers, over 2,000 models) as
pydantic objects: on the 2-core runner that is most of a tenth of a second of the job's
start, for the two or three models a job names (`bench/README.md`). This index holds, for
each provider the table knows under its `prices_id`, what the package answers for every
model reference it can be asked about cheaply: each model's own id and the literal ids its
match rules name (`equals`, `starts_with`). Each answer is the package's own
(`find_provider_model`), stored with the model's name and its dated prices, so the price
that applies is still chosen on the day of the job. It also keeps every model id (for
did-you-mean), every date a price starts (for the table's date), and each model's match
rules, only to say that a reference matches none of them (`known_miss`): a model the table
does not list (a self-hosted server's, say) is then known to be unpriced without the package.
A reference any rule might match, or that the package may rewrite (a compact date such as
`-20251211`), is left to the package.

It is built by running the package (`python -m evolve_action.execute.providers.catalog_index`,
after the lock changes `genai-prices`) and is used only when the package installed here is
the release it was built from: the `.dist-info` directory of that version sits beside the
package, which one `stat` tells without importing anything. Otherwise, and for any
reference it does not hold, the catalog asks the package itself (`catalog.py`), so the
index can make a lookup faster but never different. `tests/unit/test_catalog_index.py`
checks both: the file is what the installed package builds, and every answer it holds is
the package's on dates before, between and after every price change.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from evolve_action.model.provider_table import PROVIDERS

PATH = Path(__file__).resolve().parents[2] / "data" / "prices.json"
FORMAT = 1
DIST = "genai_prices"  # the distribution's name as its `.dist-info` directory spells it
FIELDS = ("input_mtok", "output_mtok", "cache_read_mtok", "cache_write_mtok")

Entry = dict[str, Any]  # {"name": str | None, "prices": [[start date | None, {field: rate}]]}
CLAUSES = {  # the package's match clause classes, by the key the index writes them under
    "ClauseEquals": "equals",
    "ClauseStartsWith": "starts_with",
    "ClauseEndsWith": "ends_with",
    "ClauseContains": "contains",
    "ClauseRegex": "regex",
    "ClauseOr": "or",
    "ClauseAnd": "and",
}
_COMPACT_DATE = re.compile(r"-20\d{6}")  # the package retries such a reference rewritten


@functools.cache
def table() -> dict[str, Any] | None:
    """The index, if it was built from the `genai-prices` release installed here."""
    try:
        data = json.loads(PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    return data if _installed(str(data.get("version"))) else None


def _installed(version: str) -> bool:
    spec = find_spec(DIST)  # finds the package without importing it
    if spec is None or spec.origin is None:
        return False
    return (Path(spec.origin).parent.parent / f"{DIST}-{version}.dist-info").is_dir()


def find(prices_id: str, bare_id: str) -> Entry | None:
    """The package's answer for `bare_id` under `prices_id`; None when the index has none
    (not that the package has none: ask it)."""
    data = table()
    if data is None or not prices_id:
        return None
    key = data["refs"].get(prices_id, {}).get(bare_id.lower())
    entry: Entry | None = data["models"].get(key) if key is not None else None
    return entry


def known_miss(prices_id: str, bare_id: str) -> bool:
    """Whether the package surely knows no model `bare_id` under `prices_id`: no match rule
    of the provider's models, or of the providers it falls back to, matches it."""
    data = table()
    ref = bare_id.lower()
    if data is None or not prices_id or _COMPACT_DATE.search(ref):
        return False
    for provider in [prices_id, *data["fallback"].get(prices_id, ())]:
        rules = data["match"].get(provider)
        if rules is None or any(_matches(rule, ref) for rule in rules):
            return False
    return True


def _matches(rule: dict[str, Any], ref: str) -> bool:
    """Whether a match rule (as `_rule` writes it) may match `ref`; an unknown kind may."""
    [(kind, value)] = rule.items()
    if kind in ("or", "and"):
        found = (_matches(sub, ref) for sub in value)
        return any(found) if kind == "or" else all(found)
    if kind == "regex":
        return re.search(value, ref) is not None
    text = str(value).lower()
    tests = {
        "equals": ref == text,
        "starts_with": ref.startswith(text),
        "ends_with": ref.endswith(text),
        "contains": text in ref,
    }
    return tests.get(kind, True)


def active_price(entry: Entry, today: str) -> dict[str, Any]:
    """The price in force on `today` (YYYY-MM-DD, UTC), as the package chooses it: the last
    one whose start has come, else the first."""
    prices = entry["prices"]
    for start, price in reversed(prices):
        if start is None or today >= start:
            return dict(price)
    return dict(prices[0][1])


# Building: run only by the command below and the tests, with the package imported.


def build() -> dict[str, Any]:
    from genai_prices import data_snapshot

    snapshot = data_snapshot.get_snapshot()
    models: dict[str, Entry] = {}
    refs: dict[str, dict[str, str]] = {}
    ids: dict[str, list[str]] = {}
    ours = sorted({row.prices_id for row in PROVIDERS.values() if row.prices_id})
    fallback = {p.id: list(p.fallback_model_providers or ()) for p in snapshot.providers}
    fallback = {p: fallback[p] for p in ours if fallback.get(p)}
    matched = set(ours) | {f for p in fallback.values() for f in p}
    match = {p.id: _rules(p.models) for p in snapshot.providers if p.id in matched}
    for provider in snapshot.providers:
        if provider.id not in ours:
            continue
        ids[provider.id] = [m.id for m in provider.models]
        refs[provider.id] = found = {}
        for ref in sorted({r for m in provider.models for r in _references(m)}):
            try:
                owner, model = snapshot.find_provider_model(ref, None, provider.id, None)
            except LookupError:
                continue
            entry = _entry(model)
            if entry is not None:
                key = f"{owner.id}/{model.id}"
                models[key], found[ref] = entry, key
    return {
        "format": FORMAT,
        "version": package_version(),
        "dates": dates_of(snapshot.providers),
        "ids": ids,
        "refs": refs,
        "models": models,
        "match": {p: rules for p, rules in match.items() if rules is not None},
        "fallback": fallback,
    }


def _rules(models: list[Any]) -> list[dict[str, Any]] | None:
    """Each model's match rule, in the package's order; None if one is of a kind this
    module does not know (then no miss is claimed for that provider)."""
    rules = [_rule(m.match) for m in models]
    return None if any(r is None for r in rules) else [r for r in rules if r is not None]


def _rule(clause: Any) -> dict[str, Any] | None:
    kind = CLAUSES.get(type(clause).__name__)
    if kind is None:
        return None
    if kind in ("or", "and"):
        subs = [_rule(sub) for sub in getattr(clause, f"{kind}_")]
        return None if any(s is None for s in subs) else {kind: subs}
    return {kind: getattr(clause, kind)}


def _references(model: Any) -> set[str]:
    """The model's id and the literal ids its match rule names (`equals`, `starts_with`),
    lower-cased as looked up; read from the rule as `_rule` writes it, so that the package's
    clause classes are read in one place."""
    found = {model.id.lower()}
    stack = [_rule(model.match)]
    while stack:
        rule = stack.pop()
        if rule is None:
            continue
        [(kind, value)] = rule.items()
        if kind in ("or", "and"):
            stack += value
        elif kind in ("equals", "starts_with") and isinstance(value, str) and value:
            found.add(value.lower())
    return found


def _entry(model: Any) -> Entry | None:
    """The model's name and dated prices; None when a price depends on more than its start
    date (the time of day, say): such a model is left to the package."""
    listed = model.prices if isinstance(model.prices, list) else None
    if listed is None:
        return {"name": model.name, "prices": [[None, price_of(model.prices)]]}
    prices = []
    for conditional in listed:
        constraint = conditional.constraint
        if constraint is not None and type(constraint).__name__ != "StartDateConstraint":
            return None
        start = None if constraint is None else constraint.start_date.isoformat()
        prices.append([start, price_of(conditional.prices)])
    return {"name": model.name, "prices": prices}


def price_of(price: Any) -> dict[str, Any]:
    return {name: _rate(getattr(price, name, None)) for name in FIELDS}


def _rate(value: Any) -> Any:
    if value is None:
        return None
    tiers = getattr(value, "tiers", None)
    if tiers is None:
        return float(value)
    return {"base": float(value.base), "tiers": [[int(t.start), float(t.price)] for t in tiers]}


def dates_of(providers: list[Any]) -> list[str]:
    found = set()
    for provider in providers:
        for model in provider.models:
            for price in model.prices if isinstance(model.prices, list) else ():
                start = getattr(price.constraint, "start_date", None)
                if start is not None:
                    found.add(start.isoformat())
    return sorted(found)


def package_version() -> str:
    from importlib import metadata

    return metadata.version("genai-prices")


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def main() -> int:
    PATH.parent.mkdir(parents=True, exist_ok=True)
    PATH.write_text(render(build()), encoding="utf-8")
    sys.stdout.write(f"wrote {PATH} (genai-prices {package_version()})\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
