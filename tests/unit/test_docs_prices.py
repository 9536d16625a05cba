"""The prices docs/harness.md lists are the `genai-prices` package's, model by model."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evolve_action.execute.providers import catalog

PAGE = Path(__file__).resolve().parents[2] / "docs" / "harness.md"
ROW = re.compile(r"^\| ([a-z]+/[\w.-]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|(.*)\|$")


def _rows() -> list[tuple[str, ...]]:
    section = PAGE.read_text(encoding="utf-8").split("## Prices", 1)[1]
    return [m.groups() for line in section.splitlines() if (m := ROW.match(line))]


def test_the_page_lists_at_least_two_models_of_each_provider() -> None:
    rows = _rows()
    assert sum(r[0].startswith("anthropic/") for r in rows) >= 2
    assert sum(r[0].startswith("openai/") for r in rows) >= 2


@pytest.mark.parametrize("row", _rows(), ids=lambda row: row[0])
def test_each_listed_rate_is_the_packages(row: tuple[str, ...]) -> None:
    model, inp, out, read, write, tier = row
    info = catalog.lookup(model)
    assert info is not None and info.rates is not None, model
    rates = info.rates
    listed = [float(inp), float(out), float(read), float(write)]
    assert listed == pytest.approx(
        [rates.input.base, rates.output.base, rates.cache_read.base, rates.cache_write.base]
    )
    higher = re.search(r"input ([\d.]+)", tier)
    if higher:
        assert rates.input.tiers and rates.input.tiers[0] == (272_000, float(higher.group(1)))
    else:
        assert not rates.input.tiers
