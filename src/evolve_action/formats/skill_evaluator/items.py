"""skill-evaluator's graded items: structural expectations and rubric dimensions.

A structural expectation becomes a `Check(kind="skill_evaluator.<type>")` whose `params` the
check functions in `checks/skill_evaluator.py` read; a rubric dimension becomes a LIKERT5
`JudgeItem` keyed by its machine `name`, which is the key of `rubric_scores` in the judge's
answer and of the per-dimension statistics. Defaults follow the shipped structural checker
`id` S<n>, `description` the type, `critical` false,
`pattern` `*`, `count` 1, `operator` `>=`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.skill_evaluator.params import (
    ContainsParams,
    CountParams,
    ExistsParams,
    ScriptParams,
)
from evolve_action.model.evals import Check, CheckParams, JudgeItem, JudgeParams, NoParams, Scale
from evolve_action.util.regex import regex_problem
from evolve_action.util.text import json_kind

At = tuple[str | int, ...]

TYPES = (
    "file_exists",
    "file_contains",
    "file_not_contains",
    "no_errors",
    "file_count",
    "custom_script",
)
OPERATORS = ("==", ">=", "<=", ">", "<")
ANCHOR_KEYS = ("1", "3", "5")


@dataclass
class Fields:
    """Typed reads of one authored object; a wrong type becomes a problem at the field's line."""

    p: Problems
    obj: Mapping[str, Any]
    at: At

    def text(self, key: str, *, required: bool = False) -> str | None:
        value = self.obj.get(key)
        if value is None:
            if required:
                self.p.error((*self.at, key), f"{key} is required: add it as a string")
            return None
        if not isinstance(value, str):
            self.p.error((*self.at, key), f"must be a string, not {json_kind(value)}")
            return None
        if required and not value.strip():
            self.p.error((*self.at, key), f"{key} is empty: write what it should say")
            return None
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self.obj.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.p.error((*self.at, key), f"must be true or false, not {json_kind(value)}")
            return default
        return value

    def strings(self, key: str) -> tuple[str, ...] | None:
        value = self.obj.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.p.error((*self.at, key), f"must be a list of strings, not {json_kind(value)}")
            return None
        return tuple(value)


def structural_check(p: Problems, raw: Any, at: At, index: int) -> Check | None:
    """One `structural_expectations[]` entry as a check, or None after reporting why not."""
    if not isinstance(raw, dict):
        p.error(at, f"a structural expectation must be an object, not {json_kind(raw)}")
        return None
    f = Fields(p, raw, at)
    kind = raw.get("type")
    if kind not in TYPES:
        listed = ", ".join(TYPES)
        if kind is None:
            p.error(at, f"type is required: one of {listed}")
        else:
            p.error((*at, "type"), f"unknown structural type {kind!r}: use one of {listed}")
        return None
    item_id = _item_id(p, raw, at, f"S{index + 1}")
    description = f.text("description") or kind
    critical = f.flag("critical", False)
    params = _PARAMS[kind](f)
    if item_id is None or params is None:
        return None
    return Check(
        id=item_id,
        kind=f"skill_evaluator.{kind}",
        text=description,
        origin=p.origin(*at),
        params=params,
        critical=critical,
        source="structural",
    )


def _item_id(p: Problems, raw: Mapping[str, Any], at: At, default: str) -> str | None:
    value = raw.get("id")
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | str) or str(value).strip() == "":
        p.error((*at, "id"), f"must be a non-empty string or an integer, not {json_kind(value)}")
        return None
    return str(value)


def _pattern(f: Fields, *, required: bool) -> str | None:
    if f.obj.get("pattern") is None and not required:
        return "*"
    value = f.text("pattern", required=required)
    if value is None:
        return None
    clean = value.strip()
    parts = clean.split("/")
    if clean.startswith("/") or ".." in parts:
        f.p.error(
            (*f.at, "pattern"),
            f"glob {value!r} leaves the outputs directory: write it relative to the workspace",
        )
        return None
    if not clean:
        f.p.error((*f.at, "pattern"), "the glob is empty: use a pattern such as *.md")
        return None
    return clean


def _terms(f: Fields) -> tuple[tuple[str, ...], str | None] | None:
    """(plain terms, regex) of a contains check; shipped precedence: match_any, else [match]."""
    reported = f.p.count
    match = f.text("match")
    match_any = f.strings("match_any")
    regex = f.text("match_regex")
    terms = match_any if match_any else ((match,) if match is not None else ())
    if "" in terms:
        f.p.error((*f.at, "match" if not match_any else "match_any"), _EMPTY_TERM)
        return None
    if regex is not None:
        problem = regex_problem(regex)
        if problem:
            f.p.error((*f.at, "match_regex"), problem)
            return None
        if regex == "":
            f.p.error((*f.at, "match_regex"), _EMPTY_TERM)
            return None
    if not terms and regex is None:
        if f.p.count == reported:
            f.p.error(f.at, "give the text to look for: match, match_any or match_regex")
        return None
    return terms, regex


_EMPTY_TERM = "an empty search term matches every file: remove it or write the text to find"


def _exists(f: Fields) -> CheckParams | None:
    pattern = _pattern(f, required=True)
    return None if pattern is None else ExistsParams(pattern)


def _contains(f: Fields) -> CheckParams | None:
    pattern = _pattern(f, required=False)
    found = _terms(f)
    if pattern is None or found is None:
        return None
    terms, regex = found
    if regex is not None and terms:
        f.p.warn(
            (*f.at, "match_regex"),
            "match_regex replaces match/match_any in file_contains (as in skill-evaluator);"
            " the plain terms are not checked",
        )
        terms = ()
    if f.obj.get("except_context") is not None:
        f.p.warn((*f.at, "except_context"), "only file_not_contains reads except_context")
    return ContainsParams(pattern, terms, regex)


def _not_contains(f: Fields) -> CheckParams | None:
    pattern = _pattern(f, required=False)
    found = _terms(f)
    except_context = f.strings("except_context") or ()
    if "" in except_context:
        f.p.error((*f.at, "except_context"), "an empty context string would exempt every line")
        return None
    if pattern is None or found is None:
        return None
    terms, regex = found
    return ContainsParams(pattern, terms, regex, except_context)


def _no_errors(f: Fields) -> CheckParams | None:
    return NoParams()


def _count(f: Fields) -> CheckParams | None:
    pattern = _pattern(f, required=False)
    count = f.obj.get("count", 1)
    operator = f.obj.get("operator", ">=")
    ok = True
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        f.p.error((*f.at, "count"), f"must be a whole number >= 0, not {count!r}")
        ok = False
    if not isinstance(operator, str):
        f.p.error((*f.at, "operator"), f"must be one of {' '.join(OPERATORS)}")
        ok = False
    elif operator not in OPERATORS:
        f.p.warn(
            (*f.at, "operator"),
            f"unknown operator {operator!r} falls back to >= (as in skill-evaluator);"
            f" use one of {' '.join(OPERATORS)}",
        )
        operator = ">="
    if pattern is None or not ok:
        return None
    return CountParams(pattern, count, operator)


def _script(f: Fields) -> CheckParams | None:
    script = f.text("script", required=True)
    return None if script is None else ScriptParams(script)


_PARAMS = {
    "file_exists": _exists,
    "file_contains": _contains,
    "file_not_contains": _not_contains,
    "no_errors": _no_errors,
    "file_count": _count,
    "custom_script": _script,
}


def rubric_items(p: Problems, raw: Any, at: At) -> list[JudgeItem]:
    """`quality_rubric` (or `rubric`) → one LIKERT5 judge item per dimension."""
    if not isinstance(raw, dict):
        p.error(at, f"must be an object with a dimensions list, not {json_kind(raw)}")
        return []
    dims = raw.get("dimensions")
    if dims is None:
        p.error(at, "dimensions is required: list the rubric dimensions the judge scores 1-5")
        return []
    if not isinstance(dims, list):
        p.error((*at, "dimensions"), f"must be a list of dimensions, not {json_kind(dims)}")
        return []
    out: list[JudgeItem] = []
    for i, dim in enumerate(dims):
        item = _dimension(p, dim, (*at, "dimensions", i), i)
        if item is not None:
            out.append(item)
    return out


def _dimension(p: Problems, raw: Any, at: At, index: int) -> JudgeItem | None:
    if not isinstance(raw, dict):
        p.error(at, f"a rubric dimension must be an object, not {json_kind(raw)}")
        return None
    f = Fields(p, raw, at)
    dim_id = _item_id(p, raw, at, f"Q{index + 1}")
    name = f.text("name")
    if name is not None and not name.strip():
        p.error((*at, "name"), "name is empty: give the dimension a machine name")
        return None
    key = name or dim_id
    description = f.text("description")
    if description is None or not description.strip():
        p.warn(at, "no description: the judge sees only the dimension name and its anchors")
    weight = raw.get("weight", 1.0)
    if isinstance(weight, bool) or not isinstance(weight, int | float) or weight <= 0:
        p.error((*at, "weight"), f"must be a positive number (relative weight), not {weight!r}")
        return None
    anchors = _anchors(p, raw, at)
    if key is None or dim_id is None or anchors is None:
        return None
    return JudgeItem(
        id=key,
        text=description or key,
        origin=p.origin(*at),
        scale=Scale.LIKERT5,
        kind="rubric",
        weight=float(weight),
        anchors=anchors,
        params=JudgeParams(dimension_id=dim_id, name=key),
        source="rubric",
    )


def _anchors(p: Problems, raw: Mapping[str, Any], at: At) -> dict[str, str] | None:
    field = "scoring"
    if "scoring" in raw and "anchors" in raw:
        p.error((*at, "anchors"), "give the anchors once: scoring or its alias anchors")
        return None
    if "anchors" in raw:
        field = "anchors"
    value = raw.get(field)
    if value is None:
        p.warn(at, 'no scoring anchors: add "1", "3" and "5" so the judge scores consistently')
        return {}
    if not isinstance(value, dict):
        p.error((*at, field), f'must be an object with keys "1", "3", "5", not {json_kind(value)}')
        return None
    anchors: dict[str, str] = {}
    for key, text in value.items():
        if key not in ("1", "2", "3", "4", "5"):
            p.error((*at, field, key), f'anchor key {key!r} is not a score: use "1" to "5"')
            return None
        if not isinstance(text, str):
            p.error((*at, field, key), f"must be a string, not {json_kind(text)}")
            return None
        anchors[key] = text
    missing = [k for k in ANCHOR_KEYS if k not in anchors]
    if missing:
        p.warn(
            (*at, field), f"missing anchors {', '.join(missing)}: the judge interpolates 2 and 4"
        )
    return dict(sorted(anchors.items()))
