"""The price index (`catalog_index.py`) answers as `genai-prices` itself does, or not at all.

The file in the package must be what the installed release builds; every answer it holds
must be the package's on every day a price changes (and the days around); a job that names
indexed models must not import the package; an index built from another release, or a
broken file, must be ignored (the package answers).
"""

from __future__ import annotations

import datetime
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.execute.providers import catalog, catalog_index

SAMPLE = ("openai/gpt-5.4", "anthropic/claude-sonnet-4-6", "gemini/gemini-2.5-pro", "openai/o3")


def _clear() -> None:
    for cached in (catalog_index.table, catalog.lookup, catalog.source):
        cached.cache_clear()


@pytest.fixture(autouse=True)
def fresh_caches() -> Iterator[None]:
    _clear()
    yield
    _clear()


def test_the_bundled_index_is_what_the_installed_package_builds() -> None:
    built = catalog_index.render(catalog_index.build())
    assert catalog_index.PATH.read_text(encoding="utf-8") == built, (
        "src/evolve_action/data/prices.json is not what the installed genai-prices builds:"
        " after the lock changes it, run"
        " `.venv/bin/python -m evolve_action.execute.providers.catalog_index` and commit the file"
    )
    assert catalog_index.table() is not None  # and it is used here


def _days(dates: list[str]) -> list[str]:
    today = datetime.datetime.now(tz=datetime.UTC).date().isoformat()
    days = {today, "2020-01-01", "2099-01-01"}
    for text in dates:
        day = datetime.date.fromisoformat(text)
        days |= {(day + datetime.timedelta(days=d)).isoformat() for d in (-1, 0, 1)}
    return sorted(days)


def test_every_indexed_answer_is_the_packages_on_every_day_a_price_changes() -> None:
    from genai_prices import data_snapshot

    index = catalog_index.build()
    snapshot = data_snapshot.get_snapshot()
    days = _days(index["dates"])
    checked = 0
    for prices_id, refs in index["refs"].items():
        for ref, key in refs.items():
            owner, found = snapshot.find_provider_model(ref, None, prices_id, None)
            assert key == f"{owner.id}/{found.id}", ref
            entry = index["models"][key]
            assert entry["name"] == found.name
            for day in days:
                when = datetime.datetime.fromisoformat(f"{day}T12:00:00+00:00")
                package = catalog_index.price_of(found.get_prices(when))
                assert catalog_index.active_price(entry, day) == package, (ref, day)
            checked += 1
    assert checked > 150  # every model of three providers, and their aliases


def test_a_lookup_through_the_index_is_the_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    indexed = [catalog.lookup(m) for m in SAMPLE]
    ids, source = catalog.model_ids("openai"), catalog.source()
    assert all(info is not None and info.rates is not None for info in indexed)
    _clear()
    monkeypatch.setattr(catalog_index, "table", lambda: None)
    assert [catalog.lookup(m) for m in SAMPLE] == indexed
    assert catalog.model_ids("openai") == ids and catalog.source() == source


@pytest.mark.parametrize(
    "text",
    ['{"format": 1, "version": "0.0.0-not-installed", "refs": {}, "models": {}}', "{broken", ""],
    ids=["another release", "not JSON", "empty"],
)
def test_an_index_of_another_release_or_a_broken_one_is_ignored(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "prices.json"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(catalog_index, "PATH", path)
    assert catalog_index.table() is None
    assert catalog_index.find("openai", "gpt-5.4") is None
    info = catalog.lookup("openai/gpt-5.4")  # the package answers
    assert info is not None and info.rates is not None


def test_an_id_the_index_does_not_hold_is_asked_of_the_package() -> None:
    assert catalog_index.find("openai", "gpt-5.4-2099-01-01") is None
    assert catalog.lookup("openai/no-such-model-at-all") is None
    assert catalog_index.find("", "gpt-5.4") is None  # a row with no prices id


def _references(snapshot: object) -> list[str]:
    """Every id of every provider, each with the suffixes and changes users write, and names
    no table lists (a self-hosted server's models, typos), seeded so a failure repeats."""
    import random

    rng = random.Random(20261128)
    ours = {"openai", "anthropic", "google"}
    refs = {"m", "fake-model", "llama-3.3-70b", "qwen3-coder", "gpt", "claude", "gemini", "o"}
    for provider in snapshot.providers:  # type: ignore[attr-defined]
        for model_id in (m.id for m in provider.models):
            refs.add(model_id)
            if provider.id in ours:
                refs |= {model_id.upper(), f"{model_id}-latest", f"{model_id}-2026-01-01"}
                refs |= {f"{model_id}-20260101", model_id[:-1], f"x-{model_id}", f"{model_id}-tts"}
    letters = "abcdefghijklmnopqrstuvwxyz0123456789-."
    refs |= {"".join(rng.choice(letters) for _ in range(rng.randint(1, 24))) for _ in range(1500)}
    return sorted(refs)


def test_a_miss_the_index_claims_is_a_miss_of_the_package() -> None:
    from genai_prices import data_snapshot

    snapshot = data_snapshot.get_snapshot()
    claimed = 0
    for prices_id in catalog_index.build()["refs"]:
        for ref in _references(snapshot):
            if not catalog_index.known_miss(prices_id, ref):
                continue
            claimed += 1
            with pytest.raises(LookupError):
                snapshot.find_provider_model(ref, None, prices_id, None)
    assert claimed > 2000  # most unknown names are answered without the package
    assert catalog_index.known_miss("openai", "fake-model")
    assert not catalog_index.known_miss("openai", "gpt-5.4-20260101")  # rewritten by the package


def _loaded_after(lines: str) -> str:
    """The price and pydantic modules a fresh interpreter holds after `lines`."""
    wanted = "('genai', 'pydantic')"
    probe = f"import sys\nprint(sorted(m for m in sys.modules if m.startswith({wanted})))"
    code = f"from evolve_action.execute.providers import catalog\n{lines}\n{probe}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return done.stdout + done.stderr  # a failed line shows its traceback


@pytest.mark.parametrize(
    "lines",
    [
        f"assert all(i and i.rates for i in map(catalog.lookup, {SAMPLE!r}))",
        "assert catalog.lookup('openai/fake-model') is None",
        "catalog.source(); catalog.close_ids('openai/gpt-5.44')",
    ],
    ids=["indexed models", "an unlisted model", "the date and did-you-mean"],
)
def test_a_job_loads_neither_the_price_package_nor_pydantic(lines: str) -> None:
    assert _loaded_after(lines).strip() == "[]"
