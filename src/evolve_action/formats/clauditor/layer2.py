"""clauditor Layer 2: deterministic checks over the judge's extraction.

The judge's contract, per extract item id (`judge.extractions["L2:extract"]`):

    {"<section name>": {"<tier label>": [{"<field name>": "<value>" | null, ...}, ...]}, ...}

one object per section, one list of entries per tier, each entry keyed by field *name* (what
the judge sees), values verbatim strings or null. A section or tier that is absent has no
entries. A top level that is not an object, a section given as a flat list, a tier that is
not a list or an entry that is not an object is a parse error: L2 fails as a whole.

From it come, per tier: the entry count against `min_entries` (and `max_entries` when set);
per entry, each required field present (not null, not blank); per entry, each field that has
a value and a `format`, fullmatched against the format registry. Field checks run over every
entry even when the count is off, so both failures show.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from evolve_action.formats.clauditor import field_formats
from evolve_action.model.evals import ExtractField, ExtractSection, ExtractTier, JudgeItem
from evolve_action.model.outcomes import ItemResult

KIND = "clauditor.l2"
SOURCE = "extract"


def _result(item_id: str, text: str, passed: bool, evidence: str) -> ItemResult:
    return ItemResult(item_id, text, passed, evidence, kind=KIND, source=SOURCE)


def derived(item: JudgeItem, extraction: Any) -> list[ItemResult]:
    """The L2 results of one run; a missing or malformed extraction is one failed result."""
    if extraction is None:
        return [_result("L2:extraction", "the judge extracts the sections", False, _NO_EXTRACT)]
    problem = _shape_problem(item.params.sections, extraction)
    if problem:
        return [_result("L2:extraction", "the judge extracts the sections", False, problem)]
    out: list[ItemResult] = []
    for section in item.params.sections:
        tiers = extraction.get(section.name) or {}
        for tier in section.tiers:
            entries = tiers.get(tier.label) or []
            out += _tier_results(section.name, tier, entries)
    return out


_NO_EXTRACT = "judge error: no extraction"


def _shape_problem(sections: Sequence[ExtractSection], extraction: Any) -> str:
    if not isinstance(extraction, Mapping):
        return f"judge error: the extraction is {type(extraction).__name__}, not an object"
    for section in sections:
        tiers = extraction.get(section.name)
        if tiers is None:
            continue
        if not isinstance(tiers, Mapping):
            return (
                f"judge error: section {section.name!r} is not an object of tiers"
                f" ({type(tiers).__name__})"
            )
        for tier in section.tiers:
            entries = tiers.get(tier.label)
            if entries is None:
                continue
            where = f"{section.name}/{tier.label}"
            if not isinstance(entries, list):
                return f"judge error: {where} is not a list of entries"
            if any(not isinstance(e, Mapping) for e in entries):
                return f"judge error: an entry of {where} is not an object"
    return ""


def _tier_results(section: str, tier: ExtractTier, entries: list[Any]) -> list[ItemResult]:
    where = f"{section}/{tier.label}"
    low, high = tier.min_entries, tier.max_entries
    n = len(entries)
    out = [
        _result(
            f"L2:{where}/count",
            f"{where} has at least {low} entries",
            n >= low,
            f"{n} entries extracted",
        )
    ]
    if high is not None:
        text = f"{where} has at most {high} entries"
        out.append(_result(f"L2:{where}/count_max", text, n <= high, f"{n} entries extracted"))
    for i, entry in enumerate(entries):
        for field in tier.fields:
            value = entry.get(field.name, entry.get(field.id))  # ids: a lenient reading
            out += _field_results(f"{where}[{i}]", field, value)
    return out


def _field_results(where: str, field: ExtractField, value: Any) -> list[ItemResult]:
    shown = _show(value)
    present = shown is not None and shown.strip() != ""
    base = f"L2:{where}.{field.id}"
    out = []
    if field.required:
        evidence = f"{field.name} = {shown!r}" if present else f"{field.name} is missing"
        out.append(_result(base, f"{where}.{field.name} is present", present, evidence))
    fmt = field.format
    if fmt and present and shown is not None:
        ok = field_formats.field_matches(fmt, shown)
        verdict = "matches" if ok else "does not match"
        out.append(
            _result(
                f"{base}:format",
                f"{where}.{field.name} matches {fmt}",
                ok,
                f"{shown!r} {verdict} {fmt}",
            )
        )
    return out


def _show(value: Any) -> str | None:
    """An extracted value as text: strings verbatim, other JSON compactly."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
