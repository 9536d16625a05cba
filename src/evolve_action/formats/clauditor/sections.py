"""clauditor Layer 2: `sections[].tiers[].fields[]` → one judge extraction item.

The judge extracts every entry of every declared section, grouped by tier, as JSON; the
verdict policy then checks tier counts, required fields and field formats deterministically.
The normalized schema travels in the item's params, so the judge and the policy read the
same thing:

    params = JudgeParams(sections=(ExtractSection(name, tiers=(ExtractTier(label, fields=(
              ExtractField(id, name, required, format), ...), ...), ...)), ...),
              schema=<JSON Schema of the extraction the judge must return>)

A field `format` is a registered format name or, as the seed documents, an inline regex
that the whole value must match; inline regexes are checked with RE2 here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.clauditor import field_formats
from evolve_action.formats.clauditor import fields as f
from evolve_action.formats.clauditor.items import EXTRACT_ID, Ids
from evolve_action.model.evals import (
    ExtractField,
    ExtractSection,
    ExtractTier,
    JudgeItem,
    JudgeParams,
    Scale,
)
from evolve_action.util.regex import regex_problem
from evolve_action.util.text import json_kind

At = tuple[str | int, ...]


def sections(p: Problems, ids: Ids, raw: Any) -> JudgeItem | None:
    """The one extraction item for all sections, or None when there are none (or all broken)."""
    if not isinstance(raw, list):
        p.error(("sections",), f"must be a list of sections, not {json_kind(raw)}")
        return None
    out: list[ExtractSection] = []
    names: set[str] = set()
    for i, entry in enumerate(raw):
        section = _section(p, ids, ("sections", i), entry)
        if section is None:
            continue
        if section.name in names:
            p.error(("sections", i, "name"), f"duplicate section name {section.name!r}")
            continue
        names.add(section.name)
        out.append(section)
    if not out:
        return None
    return JudgeItem(
        id=EXTRACT_ID,
        text=instruction(out),
        origin=p.origin("sections"),
        scale=Scale.BINARY,
        kind="extract",
        group="L2",
        source="extract",
        params=JudgeParams(sections=tuple(out), schema=extraction_schema(out)),
    )


def _section(p: Problems, ids: Ids, at: At, entry: Any) -> ExtractSection | None:
    if f.obj(p, at, entry, "a section with name and tiers") is None:
        return None
    flat = entry.get("tiers") is None and "fields" in entry  # clauditor's older shape, before tiers
    # A flat section carried its tier's entry counts itself; they move into its one tier.
    counts = ("min_entries", "max_entries") if flat else ()
    f.unknown_keys(p, at, entry, ("name", "tiers", "fields", *counts), strict=False)
    name = f.text(p, (*at, "name"), entry.get("name"), blank_ok=False)
    tiers_raw = entry.get("tiers")
    if tiers_raw is not None and "fields" in entry:
        p.warn((*at, "fields"), "is ignored beside 'tiers'; move the fields into a tier")
    if flat:
        p.warn(
            at,
            "flat 'fields' without 'tiers' is an older shape; read as one 'default' tier"
            " (with the section's min_entries and max_entries)",
        )
        tiers_raw = [
            {"label": "default", "fields": entry["fields"]}
            | {k: entry[k] for k in counts if k in entry}
        ]
        at_tiers: At = at
    elif tiers_raw is None:
        p.error(at, "a section needs 'tiers': a list of {label, min_entries, fields}")
        return None
    else:
        at_tiers = (*at, "tiers")
    if not isinstance(tiers_raw, list) or not tiers_raw:
        p.error(at_tiers, "must be a non-empty list of tiers {label, min_entries, fields}")
        return None
    tiers = []
    labels: set[str] = set()
    for ti, tier_raw in enumerate(tiers_raw):
        tier_at = (*at_tiers, ti) if at_tiers != at else at
        tier = _tier(p, ids, tier_at, tier_raw, name or "")
        if tier is None:
            continue
        if tier.label in labels:
            p.error((*tier_at, "label"), f"duplicate tier label {tier.label!r}")
            continue
        labels.add(tier.label)
        tiers.append(tier)
    if name is None or len(tiers) != len(tiers_raw):
        return None
    return ExtractSection(name, tuple(tiers))


def _tier(p: Problems, ids: Ids, at: At, entry: Any, section: str) -> ExtractTier | None:
    if f.obj(p, at, entry, "a tier with label, min_entries and fields") is None:
        return None
    allowed = ("label", "description", "min_entries", "max_entries", "fields")
    f.unknown_keys(p, at, entry, allowed, strict=False)
    label = f.text(p, (*at, "label"), entry.get("label"), blank_ok=False)
    description = entry.get("description", "")
    if description is not None:
        description = f.text(p, (*at, "description"), description)
    low = f.positive_int(p, (*at, "min_entries"), entry.get("min_entries", 0), minimum=0)
    high = entry.get("max_entries")
    if high is not None:
        high = f.positive_int(p, (*at, "max_entries"), high, minimum=0)
        if high is not None and low is not None and high < low:
            p.error((*at, "max_entries"), f"{high} is below min_entries {low}")
            return None
    fields_raw = entry.get("fields")
    if not isinstance(fields_raw, list) or not fields_raw:
        p.error((*at, "fields"), "must be a non-empty list of {id, name, required, format}")
        return None
    fields = []
    names: set[str] = set()
    for fi, field_raw in enumerate(fields_raw):
        fallback = f"{section}/{label}/{fi}"
        field = _field(p, ids, (*at, "fields", fi), field_raw, fallback)
        if field is None:
            continue
        if field.name in names:
            p.error((*at, "fields", fi, "name"), f"duplicate field name {field.name!r}")
            continue
        names.add(field.name)
        fields.append(field)
    if label is None or low is None or len(fields) != len(fields_raw):
        return None
    return ExtractTier(label, tuple(fields), description or "", low, high)


def _field(p: Problems, ids: Ids, at: At, entry: Any, fallback: str) -> ExtractField | None:
    if f.obj(p, at, entry, "a field with id, name, required and format") is None:
        return None
    field_id = ids.take(entry, at, fallback)
    if "pattern" in entry:
        p.error((*at, "pattern"), "use 'format', not 'pattern' (a format name or a regex)")
        return None
    f.unknown_keys(p, at, entry, ("id", "name", "required", "format"), strict=False)
    name = f.text(p, (*at, "name"), entry.get("name"), blank_ok=False)
    required = f.flag(p, (*at, "required"), entry.get("required", True))
    fmt = entry.get("format")
    if fmt is not None:
        fmt = f.text(p, (*at, "format"), fmt, blank_ok=False)
        if fmt is not None and fmt not in field_formats.FORMATS:
            problem = regex_problem(fmt)
            if problem:
                p.error(
                    (*at, "format"),
                    f"{fmt!r} is neither a registered format"
                    f"{f.did_you_mean(fmt, field_formats.FORMATS)} nor a valid regex:"
                    f" {problem}",
                )
                return None
    if name is None or required is None or ("format" in entry and fmt is None):
        return None
    return ExtractField(field_id, name, required, fmt)


def instruction(secs: Sequence[ExtractSection]) -> str:
    """What the judge is told to extract; the JSON shape is also in the item's schema."""
    lines = [
        "Extract the entries of these sections from the skill's output as JSON shaped"
        ' {"<section>": {"<tier>": [{"<field>": "value or null"}]}}.'
        " Copy values verbatim as strings, use null for a field the entry lacks,"
        " include every entry, and put each entry under the tier it belongs to:",
    ]
    for section in secs:
        for tier in section.tiers:
            fields = ", ".join(fl.name for fl in tier.fields)
            about = f" ({tier.description})" if tier.description else ""
            lines.append(f"- {section.name} / {tier.label}{about}: {fields}")
    return "\n".join(lines)


def extraction_schema(secs: Sequence[ExtractSection]) -> dict[str, Any]:
    """JSON Schema of the extraction, for structured output on the judge's side."""

    def tier_schema(tier: ExtractTier) -> dict[str, Any]:
        props = {fl.name: {"type": ["string", "null"]} for fl in tier.fields}
        entry = {
            "type": "object",
            "properties": props,
            "required": list(props),
            "additionalProperties": False,
        }
        return {"type": "array", "items": entry}

    def section_schema(section: ExtractSection) -> dict[str, Any]:
        props = {t.label: tier_schema(t) for t in section.tiers}
        return {
            "type": "object",
            "properties": props,
            "required": list(props),
            "additionalProperties": False,
        }

    props = {s.name: section_schema(s) for s in secs}
    return {
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }
