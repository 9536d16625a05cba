"""Reading the judge's answer, tolerantly, and turning it into item verdicts.

Like evolve, a JSON object is tried at every `{` of the text, so prose,
code fences and trailing chatter do not matter; the first object that carries verdicts wins.
Besides our `grading.json` shape we accept evolve's `{"verdicts": [...]}`, skill-evaluator's
list-shaped `rubric_scores`, and — only when exactly one item was asked — the bare
`{pass|passed, score, reason}` verdict other eval runners' judges emit. A verdict that is
missing or malformed fails its own item; it never passes silently.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evolve_action.grade.judge_prompt import (
    EVIDENCE_BYTES,
    SCALE_BOUNDS,
    is_extract,
    is_scored,
)
from evolve_action.model.evals import JudgeItem, Scale
from evolve_action.model.outcomes import Feedback, ItemResult
from evolve_action.util.text import cut_bytes

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_DECODER = json.JSONDecoder()
_VERDICT_KEYS = ("expectations", "verdicts", "rubric_scores", "extractions")
# A RANGE10 item without a floor passes at 7/10: agentv reports such items as hits.
RANGE10_PASS = 7.0
REASON_BYTES = 500
CLAIM_TYPES = ("factual", "process", "quality")


@dataclass
class Grading:
    """One judge answer, keyed by item number (1-based)."""

    entries: dict[int, Mapping[str, Any]] = field(default_factory=dict)
    extractions: dict[int, Any] = field(default_factory=dict)
    claims: list[dict[str, Any]] = field(default_factory=list)
    feedback: Feedback = field(default_factory=Feedback)


def find_grading(text: str, items: Sequence[JudgeItem]) -> Grading | None:
    """The first JSON object in `text` that grades something, or None."""
    text = _ANSI.sub("", text)
    start = text.find("{")
    while start != -1:
        try:
            value, _ = _DECODER.raw_decode(text, start)
        except ValueError:
            value = None
        if isinstance(value, dict):
            grading = read_grading(value, items)
            if grading is not None:
                return grading
        start = text.find("{", start + 1)
    return None


def read_grading(obj: Mapping[str, Any], items: Sequence[JudgeItem]) -> Grading | None:
    n = len(items)
    if not any(obj.get(k) for k in _VERDICT_KEYS):
        if n == 1 and _single_verdict(obj):
            return Grading(entries={1: obj}, feedback=_feedback(obj.get("eval_feedback"), items))
        return None
    grading = Grading()
    binary = [i for i, it in enumerate(items, 1) if not is_scored(it) and not is_extract(it)]
    for key in ("expectations", "verdicts"):
        entries = obj.get(key)
        if isinstance(entries, list):
            for pos, entry in enumerate(entries):
                # skill-creator's expectations carry no id: they follow the items' order.
                fallback = binary[pos] if pos < len(binary) else None
                _add(grading.entries, _number(entry, items, fallback), entry)
    scores = obj.get("rubric_scores")
    if isinstance(scores, Mapping):
        for key, entry in scores.items():
            _add(grading.entries, _key_number(key, items), entry)
    elif isinstance(scores, list):
        for entry in scores:
            _add(grading.entries, _number(entry, items, None), entry)
    extractions = obj.get("extractions")
    if isinstance(extractions, Mapping):
        for key, value in extractions.items():
            number = _key_number(key, items)
            if number is not None and number not in grading.extractions:
                grading.extractions[number] = value
    if not grading.entries and not grading.extractions:
        return None
    grading.claims = _claims(obj.get("claims"))
    grading.feedback = _feedback(obj.get("eval_feedback"), items)
    return grading


def _single_verdict(obj: Mapping[str, Any]) -> bool:
    verdict = obj.get("pass", obj.get("passed"))
    return isinstance(verdict, bool) or _number_value(obj.get("score")) is not None


def _add(entries: dict[int, Mapping[str, Any]], number: int | None, entry: Any) -> None:
    # The first verdict for an id wins, as in evolve; ids outside 1..N are dropped earlier.
    if number is not None and isinstance(entry, Mapping) and number not in entries:
        entries[number] = entry


def _key_number(key: Any, items: Sequence[JudgeItem]) -> int | None:
    """An item number from a key: `"3"`, `3`, or the item's own id or text."""
    if isinstance(key, bool):
        return None
    if isinstance(key, int):
        return key if 1 <= key <= len(items) else None
    if isinstance(key, str):
        stripped = key.strip().lstrip("#")
        if stripped.isdigit():
            return _key_number(int(stripped), items)
        for number, item in enumerate(items, 1):
            if key in (item.id, item.text):
                return number
    return None


def _number(entry: Any, items: Sequence[JudgeItem], fallback: int | None) -> int | None:
    if not isinstance(entry, Mapping):
        return None
    for key in ("id", "dimension", "name"):
        if key in entry:
            return _key_number(entry[key], items)
    return fallback


def _number_value(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def stringify(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _evidence(entry: Mapping[str, Any]) -> str:
    for key in ("evidence", "reason", "reasoning"):
        if entry.get(key) not in (None, ""):
            return cut_bytes(stringify(entry[key]), EVIDENCE_BYTES)
    return ""


def _claims(raw: Any) -> list[dict[str, Any]]:
    claims: list[dict[str, Any]] = []
    for entry in raw if isinstance(raw, list) else ():
        if isinstance(entry, Mapping) and entry.get("claim"):
            claims.append(
                {
                    "claim": cut_bytes(stringify(entry["claim"]), REASON_BYTES),
                    "type": _claim_type(entry.get("type")),
                    "verified": entry.get("verified") is True,
                    "evidence": _evidence(entry),
                }
            )
    return claims


def _claim_type(raw: Any) -> str:
    # skill-creator's grading.json allows exactly these; anything else reads as a fact.
    kind = stringify(raw).strip().lower()
    return kind if kind in CLAIM_TYPES else "factual"


def _feedback(raw: Any, items: Sequence[JudgeItem]) -> Feedback:
    if isinstance(raw, list):  # skill-evaluator's runner asks for a list of strings
        raw = {"suggestions": [{"reason": s} for s in raw if isinstance(s, str)]}
    if not isinstance(raw, Mapping):
        return Feedback()
    suggestions: list[dict[str, str]] = []
    entries = raw.get("suggestions")
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, str):
            entry = {"reason": entry}
        if not isinstance(entry, Mapping) or not entry.get("reason"):
            continue
        out = {"reason": cut_bytes(stringify(entry["reason"]), REASON_BYTES)}
        target = entry.get("assertion")
        number = _key_number(target, items)
        if number is not None:
            out["assertion"] = items[number - 1].text
        elif isinstance(target, str) and target.strip():
            out["assertion"] = cut_bytes(target, REASON_BYTES)
        suggestions.append(out)
    overall = cut_bytes(stringify(raw.get("overall")), REASON_BYTES)
    return Feedback(suggestions=suggestions, overall=overall)


def item_result(
    item: JudgeItem,
    passed: bool,
    evidence: str,
    score: float | None = None,
    raw: float | None = None,
) -> ItemResult:
    if score is None:
        score = 1.0 if passed else 0.0
    evidence = cut_bytes(evidence, EVIDENCE_BYTES)
    return ItemResult(item.id, item.text, passed, evidence, score, "judge", item.source, raw)


def failed(item: JudgeItem, why: str) -> ItemResult:
    return item_result(item, False, f"judge error: {why}", 0.0)


def verdicts(items: Sequence[JudgeItem], grading: Grading) -> list[ItemResult]:
    """One result per item, in the items' order."""
    return [_verdict(n, item, grading) for n, item in enumerate(items, 1)]


def _verdict(number: int, item: JudgeItem, grading: Grading) -> ItemResult:
    if is_extract(item):
        if number not in grading.extractions:
            return failed(item, f"no extraction for item {number}")
        return item_result(item, True, "extraction returned")
    entry = grading.entries.get(number)
    if entry is None:
        return failed(item, f"no verdict for item {number}")
    evidence = _evidence(entry)
    if not is_scored(item):
        verdict = entry.get("passed", entry.get("pass", False))
        return item_result(item, verdict is True, evidence)
    raw = _number_value(entry.get("score"))
    if raw is None:
        return failed(item, f"no score for item {number}")
    low, high = SCALE_BOUNDS[item.scale]
    if not low <= raw <= high:
        return failed(item, f"score {raw:g} outside {low:g}-{high:g} for item {number}")
    return scaled(item, raw, evidence)


def scaled(item: JudgeItem, raw: float, evidence: str) -> ItemResult:
    """Map a score on the item's own scale to [0, 1] and a pass.

    LIKERT5: (raw - 1) / 4, passing at 3 ("partial" on skill-evaluator's anchors) or above.
    RANGE10: raw / 10, passing at the item's `required` floor (the agentv loader turns
    `required_min_score` into it), else 7 (agentv counts 7+ as a hit).
    UNIT: the score itself, passing at 0.5 (clauditor's rule: passed ⇔ score ≥ 0.5).
    """
    if item.scale is Scale.LIKERT5:
        return item_result(item, raw >= 3.0, evidence, (raw - 1.0) / 4.0, raw)
    if item.scale is Scale.RANGE10:
        score = raw / 10.0
        passed = score >= item.required if item.required is not None else raw >= RANGE10_PASS
        return item_result(item, passed, evidence, score, raw)
    return item_result(item, raw >= 0.5, evidence, raw, raw)
