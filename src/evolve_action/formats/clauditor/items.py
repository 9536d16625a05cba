"""clauditor's three layers of graded items: assertions (L1), sections (L2), criteria (L3).

Each assertion type accepts exactly its own keys, as in clauditor: an unknown key is an error
with a "did you mean" hint (the older spellings `value`, `min`, `max`, `minimum`,
`threshold`, `min_count` map to the key that replaced them), a missing required key is an
error, and integers must be native JSON integers. Ids share one namespace across the three
layers, because clauditor keys its history by them.

Older shapes still in the wild load with a warning: an older `value` payload is mapped
to the type's key, items without ids get positional ids, and a section with flat `fields`
becomes one `default` tier.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.clauditor import field_formats
from evolve_action.formats.clauditor import fields as f
from evolve_action.formats.clauditor.params import TYPES
from evolve_action.formats.documents import pointer
from evolve_action.model.evals import Check, JudgeItem, Scale
from evolve_action.util.regex import regex_problem
from evolve_action.util.text import json_kind

EXTRACT_ID = "L2:extract"

# type -> (required keys, optional keys); every key but `format` and the regexes is an int.
ASSERTION_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "contains": (("needle",), ()),
    "not_contains": (("needle",), ()),
    "regex": (("pattern",), ()),
    "min_count": (("pattern", "count"), ()),
    "min_length": (("length",), ()),
    "max_length": (("length",), ()),
    "has_urls": ((), ("count",)),
    "has_entries": ((), ("count",)),
    "urls_reachable": ((), ("count",)),
    "has_format": (("format",), ("count",)),
}
_STRING_KEYS = frozenset({"needle", "pattern", "format"})
_META_KEYS = ("id", "type", "name")

# clauditor's renamings of the payload keys, per type (`pattern` is valid on regex but
# means `needle` here).
_COUNT = {"value": "count", "minimum": "count", "min_count": "count", "threshold": "count"}
_LEGACY = {
    "contains": {"value": "needle", "pattern": "needle"},
    "not_contains": {"value": "needle", "pattern": "needle"},
    "regex": {"value": "pattern"},
    "min_count": {**_COUNT, "value": "pattern"},
    "min_length": {"value": "length", "min": "length"},
    "max_length": {"value": "length", "max": "length"},
    "has_urls": _COUNT,
    "has_entries": _COUNT,
    "urls_reachable": _COUNT,
    "has_format": {"value": "count", "minimum": "count", "min_count": "count"},
}

_DESCRIBE = {
    "contains": "output contains {needle!r}",
    "not_contains": "output does not contain {needle!r}",
    "regex": "output matches /{pattern}/",
    "min_count": "/{pattern}/ appears at least {count} times",
    "min_length": "output is at least {length} characters",
    "max_length": "output is at most {length} characters",
    "has_urls": "output has at least {count} URLs",
    "has_entries": "output has at least {count} bold-numbered entries (**1. …)",
    "urls_reachable": "at least {count} URLs in the output answer a HEAD request with 2xx",
    "has_format": "output has at least {count} {format} values",
}


@dataclass
class Ids:
    """One id namespace for assertions, fields and criteria (clauditor's history key)."""

    p: Problems
    seen: dict[str, str] = field(default_factory=dict)

    def take(self, entry: dict[str, Any], at: tuple[str | int, ...], fallback: str) -> str:
        raw = entry.get("id")
        if raw is None:
            self.p.warn(at, f"has no 'id' (an older spec shape); using {fallback!r}: add an id")
            raw = fallback
        elif not isinstance(raw, str) or not raw.strip():
            shown = repr(raw) if isinstance(raw, str) else json_kind(raw)
            self.p.error((*at, "id"), f"must be a non-empty string, not {shown}")
            return fallback
        if raw in self.seen:
            self.p.error(
                (*at, "id"),
                f"duplicate id {raw!r}, already used at {self.seen[raw]}; ids are shared by"
                " assertions, fields and criteria and must be unique",
            )
        else:
            self.seen[raw] = pointer(*at)
        return raw


def assertions(p: Problems, ids: Ids, raw: Any) -> list[Check]:
    if not isinstance(raw, list):
        p.error(("assertions",), f"must be a list of assertion objects, not {json_kind(raw)}")
        return []
    out = []
    for i, entry in enumerate(raw):
        check = _assertion(p, ids, ("assertions", i), entry)
        if check is not None:
            out.append(check)
    return out


def _assertion(p: Problems, ids: Ids, at: tuple[str | int, ...], entry: Any) -> Check | None:
    if f.obj(p, at, entry, "an assertion with id and type") is None:
        return None
    atype = entry.get("type")
    if not isinstance(atype, str) or atype not in ASSERTION_KEYS:
        shown = repr(atype) if isinstance(atype, str) else json_kind(atype)
        hint = f.did_you_mean(str(atype), ASSERTION_KEYS)
        listed = ", ".join(ASSERTION_KEYS)
        p.error((*at, "type"), f"unknown assertion type {shown}{hint}; use one of {listed}")
        ids.take(entry, at, pointer(*at))
        return None
    check_id = ids.take(entry, at, f"{atype}-{at[-1]}")
    required, optional = ASSERTION_KEYS[atype]
    params = _legacy_value(p, at, atype, dict(entry))
    allowed = {*_META_KEYS, *required, *optional}
    if f.unknown_keys(p, at, params, allowed, strict=True, hints=_LEGACY[atype]):
        return None  # a renamed key also looks missing: its hint is the one useful message
    for key in required:
        if params.get(key) is None:
            p.error(at, f"a {atype!r} assertion needs {key!r}")
    values: dict[str, Any] = {"count": 1} if "count" in optional else {}
    for key in (*required, *optional):
        if params.get(key) is not None:
            values[key] = _payload(p, (*at, key), key, params[key])
    if any(v is None for v in values.values()) or not set(required) <= set(values):
        return None
    if not _payload_ok(p, at, atype, values):
        return None
    name = entry.get("name")
    label = name if isinstance(name, str) and name else _DESCRIBE[atype].format(**values)
    return Check(
        id=check_id,
        kind=f"clauditor.{atype}",
        text=label,
        origin=p.origin(*at),
        params=TYPES[atype](**values),
        group="L1",
    )


def _legacy_value(p: Problems, at: tuple[str | int, ...], atype: str, entry: dict[str, Any]) -> Any:
    """Map an older `value` payload to the type's key (numbers were strings then)."""
    if "value" not in entry:
        return entry
    target = _LEGACY[atype]["value"]
    if target in entry:
        return entry  # both spellings: let the unknown-key error speak
    value = entry.pop("value")
    if target not in _STRING_KEYS and isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    entry[target] = value
    p.warn(
        (*at, "value"),
        f"'value' is the old spelling (one `value` for every type, numbers as strings);"
        f" write {target!r}: {value!r}",
    )
    return entry


def _payload(p: Problems, at: tuple[str | int, ...], key: str, value: Any) -> Any:
    if key in _STRING_KEYS:
        return f.text(p, at, value)
    if not f.is_int(value):
        p.error(at, f"must be an integer (a JSON number without quotes), not {json_kind(value)}")
        return None
    return value


def _payload_ok(p: Problems, at: tuple[str | int, ...], atype: str, values: dict[str, Any]) -> bool:
    if atype in ("regex", "min_count"):
        problem = regex_problem(values["pattern"])
        if problem:
            p.error((*at, "pattern"), problem)
            return False
    if atype == "has_format" and values["format"] not in field_formats.FORMATS:
        hint = f.did_you_mean(values["format"], field_formats.FORMATS)
        p.error(
            (*at, "format"),
            f"{values['format']!r} is not a registered format{hint}; use one of"
            f" {', '.join(field_formats.names())}, or a 'regex' assertion for other shapes",
        )
        return False
    for key in ("length", "count"):
        if key in values and values[key] < 0:
            p.error((*at, key), f"must not be negative, not {values[key]}")
            return False
    return True


def criteria(p: Problems, ids: Ids, raw: Any) -> list[JudgeItem]:
    if not isinstance(raw, list):
        p.error(("grading_criteria",), f"must be a list of {{id, criterion}}, not {json_kind(raw)}")
        return []
    out = []
    for i, entry in enumerate(raw):
        at: tuple[str | int, ...] = ("grading_criteria", i)
        if isinstance(entry, str) and entry.strip():  # clauditor's first shape: plain strings
            p.warn(at, "a plain-string criterion is an older spec shape; write {id, criterion}")
            entry = {"id": f"criterion-{i + 1}", "criterion": entry}
        if f.obj(p, at, entry, "{id, criterion}") is None:
            continue
        crit_id = ids.take(entry, at, f"criterion-{i + 1}")
        f.unknown_keys(p, at, entry, ("id", "criterion"), strict=False)
        text = f.text(p, (*at, "criterion"), entry.get("criterion"), blank_ok=False)
        if text is None:
            continue
        out.append(
            JudgeItem(
                id=crit_id,
                text=text,
                origin=p.origin(*at),
                scale=Scale.UNIT,
                kind="criterion",
                group="L3",
                source="criterion",
            )
        )
    return out
