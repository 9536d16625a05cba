"""agentv `field_accuracy`: the answer parsed as JSON, compared field by field with the case's
expected output object.

Rules follow AgentV v2.7.0: a field the expected object lacks counts as met;
a field the answer lacks scores 0 when required, else drops out; dates compare on the day,
reading `15-JAN-2025`, ISO dates and slashed dates (day or month first from `formats`, else
inferred). `contains` and `regex` (the spec's other matches) compare the values as text.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from evolve_action.formats.agentv.checks.support import answer_json, scored
from evolve_action.formats.agentv.kinds import FieldAccuracy, FieldSpec
from evolve_action.model.checking import CheckContext, params_of, register
from evolve_action.model.evals import Check
from evolve_action.model.outcomes import ItemResult
from evolve_action.util.regex import RegexError, compile_re2

_MISSING = object()
_SEGMENT = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_ISO = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})")
_NAMED = re.compile(r"^(\d{1,2})[-\s/]([A-Za-z]{3,})[-\s/,]*(\d{4})$")
_SLASHED = re.compile(r"^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$")


@register("agentv.field_accuracy", FieldAccuracy)
async def field_accuracy(check: Check, ctx: CheckContext) -> ItemResult:
    p = params_of(check, FieldAccuracy)
    answer = answer_json(ctx.transcript.final_text)
    if not isinstance(answer, dict):
        return scored(check, ctx, 0.0, "the answer holds no JSON object to compare")
    counted: list[tuple[float, float]] = []  # (weight, score)
    notes: list[str] = []
    for spec in p.fields:
        expected = get_path(p.expected, spec.path)
        if expected is _MISSING:
            counted.append((spec.weight, 1.0))  # nothing to compare with: met (AgentV)
            continue
        actual = get_path(answer, spec.path)
        if actual is _MISSING:
            if spec.required:
                counted.append((spec.weight, 0.0))
                notes.append(f"{spec.path}: missing from the answer")
            continue
        ok = matches(spec, actual, expected)
        counted.append((spec.weight, 1.0 if ok else 0.0))
        if not ok:
            notes.append(f"{spec.path}: got {actual!r}, expected {expected!r} ({spec.match})")
    score = _aggregate(p.aggregation, counted)
    met = sum(1 for _, s in counted if s == 1.0)
    summary = f"{met}/{len(counted)} fields match"
    return scored(check, ctx, score, "\n".join([summary, *notes]))


def _aggregate(how: str, counted: list[tuple[float, float]]) -> float:
    if not counted:
        return 0.0
    if how == "minimum":
        return min(s for _, s in counted)
    if how == "all_or_nothing":
        return 1.0 if all(s == 1.0 for _, s in counted) else 0.0
    total = sum(w for w, _ in counted)
    return sum(w * s for w, s in counted) / total if total else 0.0


def get_path(data: Any, path: str) -> Any:
    """`a.b[0].c` in nested data, or `_MISSING`."""
    node = data
    for name, index in _SEGMENT.findall(path):
        if name:
            if not isinstance(node, dict) or name not in node:
                return _MISSING
            node = node[name]
        else:
            if not isinstance(node, list) or int(index) >= len(node):
                return _MISSING
            node = node[int(index)]
    return node


def matches(spec: FieldSpec, actual: Any, expected: Any) -> bool:
    how = spec.match
    if how == "exact":
        return same(actual, expected)
    if how == "contains":
        return str(expected) in str(actual)
    if how == "regex":
        try:
            return compile_re2(spec.pattern or str(expected)).search(str(actual)) is not None
        except RegexError:
            return False
    if how == "numeric_tolerance":
        return _near(actual, expected, spec.tolerance, spec.relative)
    formats = list(spec.formats)
    got, want = parse_date(actual, formats), parse_date(expected, formats)
    return got is not None and got == want


def same(a: Any, b: Any) -> bool:
    """Deep equality where `true` is not `1` (JSON's types, not Python's)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _near(actual: Any, expected: Any, tolerance: float, relative: bool) -> bool:
    a, e = _number(actual), _number(expected)
    if a is None or e is None:
        return False
    gap = abs(a - e)
    if relative and e != 0:
        gap /= abs(e)
    return gap <= tolerance + 1e-12


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.replace(",", "").strip())
        except ValueError:
            return None
    return None


def parse_date(value: Any, formats: list[str]) -> date | None:
    if not isinstance(value, str):
        return None
    text = value.strip()
    try:
        if m := _ISO.match(text):
            return date(int(m[1]), int(m[2]), int(m[3]))
        if m := _NAMED.match(text):
            month = m[2][:3].lower()
            return (
                date(int(m[3]), _MONTHS.index(month) + 1, int(m[1])) if month in _MONTHS else None
            )
        if m := _SLASHED.match(text):
            first, second = int(m[1]), int(m[2])
            return date(int(m[3]), *_month_day(first, second, formats))
    except ValueError:
        return None
    return None


def _month_day(first: int, second: int, formats: list[str]) -> tuple[int, int]:
    """(month, day) of a slashed date: the declared order, else whichever can be a month."""
    day_first = any(f.upper().startswith("DD/") for f in formats)
    month_first = any(f.upper().startswith("MM/") for f in formats)
    if day_first and not month_first:
        return second, first
    if month_first and not day_first:
        return first, second
    if first > 12:
        return second, first
    return first, second
