"""agentv rubric criteria: strings or objects, checklist (pass/fail) or analytic (0–10 bands).

A rubric list is graded in one of two modes: if any item has `score_ranges`, every item of
that list is scored 0–10 by the judge (normalized to raw/10), else each is satisfied or not.
Bands are validated as AgentV does: integer bounds within 0–10, no overlap, no gap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evolve_action.formats.agentv.common import (
    At,
    Src,
    boolean,
    number,
    required_floor,
    text,
)
from evolve_action.model.evals import Origin
from evolve_action.util.text import json_kind

# Authors' words for what a rubric item says, oldest first.
TEXT_KEYS = ("expected_outcome", "outcome", "criteria", "description", "value")


@dataclass(frozen=True)
class Band:
    lo: int
    hi: int
    text: str


@dataclass(frozen=True)
class Rubric:
    id: str
    text: str
    origin: Origin
    weight: float = 1.0
    required: float | None = None  # a floor on the normalized score
    bands: tuple[Band, ...] = ()
    operator: str = ""  # correctness | contradiction (AgentV's rubric operators)


def parse_rubrics(src: Src, at: At, value: Any) -> tuple[Rubric, ...]:
    """Parse a list of rubric items (or one string) at `at`."""
    items = [value] if isinstance(value, str | dict) else value
    if not isinstance(items, list) or not items:
        src.error(at, "must be a non-empty list of criteria (strings or {id, outcome} objects)")
        return ()
    at_of = [(*at, i) for i in range(len(items))] if isinstance(value, list) else [at]
    analytic = any(isinstance(i, dict) and "score_ranges" in i for i in items)
    out: list[Rubric] = []
    for n, (item, item_at) in enumerate(zip(items, at_of, strict=True), start=1):
        rubric = _one(src, item_at, item, n, analytic=analytic)
        if rubric is not None:
            out.append(rubric)
    seen: set[str] = set()
    for rubric, item_at in zip(out, at_of, strict=False):
        if rubric.id in seen:
            src.error(
                item_at, f"rubric id {rubric.id!r} is used twice in this list; ids must differ"
            )
        seen.add(rubric.id)
    return tuple(out)


def _one(src: Src, at: At, item: Any, n: int, *, analytic: bool) -> Rubric | None:
    if isinstance(item, str):
        if not item.strip():
            src.error(at, "a rubric must not be empty")
            return None
        if analytic:
            src.error(at, "this list uses score_ranges: write every item as {id, score_ranges}")
            return None
        return Rubric(f"rubric-{n}", item.strip(), src.origin(at))
    if not isinstance(item, dict):
        src.error(at, f"a rubric is a string or a mapping, not {json_kind(item)}")
        return None
    rid = _rubric_id(src, at, item, n)
    said = next((k for k in TEXT_KEYS if k in item), None)
    words = text(src, (*at, said), item[said]) if said else None
    if said is None and "score_ranges" not in item:
        src.error(at, "a rubric needs its criterion: add `outcome:` (or `expected_outcome:`)")
    weight = 1.0
    if "weight" in item:
        weight = number(src, (*at, "weight"), item["weight"], lo=0.0) or 0.0
    bands: tuple[Band, ...] = ()
    if analytic and "score_ranges" in item:
        bands = _bands(src, (*at, "score_ranges"), item["score_ranges"])
    if analytic and "score_ranges" not in item:
        src.error(at, "another item of this list has score_ranges, so this one needs them too")
    required = _required(src, at, item, analytic=analytic)
    operator = item.get("operator", "")
    if operator not in ("", "correctness", "contradiction"):
        src.error((*at, "operator"), "use correctness or contradiction")
        operator = ""
    return Rubric(
        id=rid,
        text=(words or "").strip() or rid,
        origin=src.origin(at),
        weight=weight,
        required=required,
        bands=bands,
        operator=operator,
    )


def _rubric_id(src: Src, at: At, item: dict[str, Any], n: int) -> str:
    if "id" not in item:
        return f"rubric-{n}"
    rid = item["id"]
    if isinstance(rid, int) and not isinstance(rid, bool):
        return str(rid)
    if not isinstance(rid, str) or not rid.strip() or "/" in rid:
        src.error((*at, "id"), "a rubric id is a non-empty string without '/'")
        return f"rubric-{n}"
    return rid.strip()


def _required(src: Src, at: At, item: dict[str, Any], *, analytic: bool) -> float | None:
    if "required_min_score" in item:
        score = number(src, (*at, "required_min_score"), item["required_min_score"], lo=0, hi=10)
        if score is not None and not score.is_integer():
            src.error((*at, "required_min_score"), "use a whole number from 0 to 10")
        return None if score is None else score / 10
    if "required" not in item:
        return None
    if isinstance(item["required"], bool):
        flag = boolean(src, (*at, "required"), item["required"])
        # A satisfied checklist item scores 1; an analytic one must reach 10/10 (AgentV).
        return 1.0 if flag else None
    return required_floor(src, (*at, "required"), item["required"], true_floor=1.0)


def _bands(src: Src, at: At, value: Any) -> tuple[Band, ...]:
    """Shorthand `{0: text, 5: text}` (lower bounds) or `[{score_range: [lo, hi], outcome}]`."""
    if isinstance(value, dict):
        raw = _bands_from_map(src, at, value)
    elif isinstance(value, list):
        raw = _bands_from_list(src, at, value)
    else:
        src.error(at, "score_ranges is a mapping {0: text, 5: text, 10: text} or a list")
        return ()
    if raw is None:
        return ()
    bands = sorted(raw, key=lambda b: b.lo)
    covered: set[int] = set()
    for band in bands:
        overlap = covered.intersection(range(band.lo, band.hi + 1))
        if overlap:
            src.error(at, f"band {band.lo}-{band.hi} overlaps another at {min(overlap)}")
            return ()
        covered.update(range(band.lo, band.hi + 1))
    gaps = sorted(set(range(11)) - covered)
    if gaps:
        shown = ", ".join(str(g) for g in gaps)
        src.error(at, f"score_ranges leave {shown} uncovered; the bands must cover 0 to 10")
        return ()
    return tuple(bands)


def _bands_from_map(src: Src, at: At, value: dict[str, Any]) -> list[Band] | None:
    bounds: list[tuple[int, str]] = []
    for key, words in value.items():
        if not key.strip().isdigit() or int(key) > 10:
            src.error((*at, key), f"band key {key!r} must be a whole number from 0 to 10")
            return None
        if not isinstance(words, str):
            src.error((*at, key), "a band's description must be a string")
            return None
        bounds.append((int(key), words))
    bounds.sort()
    if not bounds or bounds[0][0] != 0:
        src.error(at, "the first band must start at 0")
        return None
    out = []
    for i, (lo, words) in enumerate(bounds):
        hi = bounds[i + 1][0] - 1 if i + 1 < len(bounds) else 10
        out.append(Band(lo, hi, words))
    return out


def _bands_from_list(src: Src, at: At, value: list[Any]) -> list[Band] | None:
    out = []
    for i, entry in enumerate(value):
        where = (*at, i)
        pair = entry.get("score_range") if isinstance(entry, dict) else None
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not all(isinstance(b, int) and not isinstance(b, bool) for b in pair)
        ):
            src.error(where, "each band needs score_range: [min, max] with whole numbers")
            return None
        lo, hi = pair
        if not 0 <= lo <= hi <= 10:
            src.error((*where, "score_range"), f"[{lo}, {hi}] must satisfy 0 <= min <= max <= 10")
            return None
        words = next((entry[k] for k in TEXT_KEYS if isinstance(entry.get(k), str)), "")
        out.append(Band(lo, hi, words))
    return out
