"""Validated parameters of agentv's deterministic evaluators (graded by `checks/agentv*.py`).

Each parser takes the evaluator's mapping and returns the `params` its check reads, or None
after reporting why at the field's line. `code_judge`'s (a command and the files it needs) are
read in `judge.py`; later-spec shorthands (`latency`, `cost`, `token_usage`) become
`execution_metrics` limits, so one check covers them.
"""

from __future__ import annotations

from typing import Any

import re2

from evolve_action.formats.agentv.common import (
    At,
    Src,
    boolean,
    mapping,
    number,
    string_list,
    text,
)
from evolve_action.formats.agentv.judge import code_judge as code_judge
from evolve_action.util.regex import regex_problem
from evolve_action.util.text import json_kind

TRAJECTORY_MODES = ("any_order", "in_order", "exact", "superset", "subset")
# How an expected call's args are compared (AgentV 4): `exact` deep equality, `superset` the
# listed keys equal, `subset` no key beyond the listed ones, `ignore`, or a list of fields.
ARGS_MATCHES = ("exact", "superset", "subset", "ignore")
FIELD_MATCHES = ("exact", "contains", "regex", "numeric_tolerance", "date")
FIELD_AGGREGATIONS = ("weighted_average", "minimum", "all_or_nothing")
METRIC_LIMITS = (
    "max_tool_calls",
    "max_llm_calls",
    "max_tokens",
    "max_input_tokens",
    "max_output_tokens",
    "max_cost_usd",
    "max_duration_ms",
)
# `[0]` indexes and dotted names: `invoice.line_items[0].amount`.
_PATH = re2.compile(r"^[^.\[\]]+(\[\d+\])*(\.[^.\[\]]+(\[\d+\])*)*$")


def tool_trajectory(
    src: Src, at: At, ev: dict[str, Any], *, exact_args: bool = False
) -> dict[str, Any] | None:
    """`exact_args`: the file is AgentV 4's, whose args compare by deep equality unless
    `args_match` says otherwise; earlier generations matched the listed keys only."""
    mode = ev.get("mode", "any_order")
    if mode not in TRAJECTORY_MODES:
        src.error((*at, "mode"), f"unknown mode {mode!r}; use {', '.join(TRAJECTORY_MODES)}")
        return None
    default = _args_match(src, at, ev, "exact" if exact_args else "superset")
    if default is None:
        return None
    minimums: dict[str, int] = {}
    if "minimums" in ev:
        raw = mapping(src, (*at, "minimums"), ev["minimums"]) or {}
        for tool, count in raw.items():
            got = number(src, (*at, "minimums", tool), count, lo=0, integer=True)
            if got is not None:
                minimums[tool] = int(got)
    expected = _expected_calls(src, at, ev.get("expected"), default) if "expected" in ev else []
    if expected is None:
        return None
    if mode == "any_order" and not minimums and not expected:
        src.error(at, "any_order needs `minimums: {tool: count}` (or `expected` calls)")
        return None
    if mode in ("in_order", "exact", "superset") and not expected:
        src.error(at, f"{mode} needs `expected:`, the list of tool calls")
        return None
    return {"mode": mode, "minimums": minimums, "expected": expected}


def _args_match(src: Src, at: At, entry: dict[str, Any], default: Any) -> Any:
    """An `args_match` (or `argsMatch`) value, else `default`; None after an error."""
    key = "args_match" if "args_match" in entry else "argsMatch"
    if key not in entry:
        return default
    value = entry[key]
    if value in ARGS_MATCHES:
        return value
    if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        return list(value)
    src.error(
        (*at, key), f"use one of {', '.join(ARGS_MATCHES)}, or a list of argument fields to compare"
    )
    return None


def _expected_calls(src: Src, at: At, value: Any, default: Any) -> list[dict[str, Any]] | None:
    where = (*at, "expected")
    if not isinstance(value, list):
        src.error(where, "must be a list of {tool, args} entries")
        return None
    out = []
    for i, entry in enumerate(value):
        e_at = (*where, i)
        if not isinstance(entry, dict) or not isinstance(entry.get("tool"), str):
            src.error(e_at, "each expected call needs `tool:`, the tool's name")
            return None
        args = entry.get("args", "any")
        if args != "any" and not isinstance(args, dict):
            src.error((*e_at, "args"), "use `any` or a mapping of the arguments to match")
            return None
        match = _args_match(src, e_at, entry, default)
        if match is None:
            return None
        call: dict[str, Any] = {"tool": entry["tool"], "args": args, "args_match": match}
        limit_key = "max_duration_ms" if "max_duration_ms" in entry else "maxDurationMs"
        if limit_key in entry:
            limit = number(src, (*e_at, limit_key), entry[limit_key], lo=0)
            if limit is None:
                return None
            call["max_duration_ms"] = limit
        out.append(call)
    return out


def field_accuracy(src: Src, at: At, ev: dict[str, Any]) -> dict[str, Any] | None:
    aggregation = ev.get("aggregation", "weighted_average")
    if aggregation not in FIELD_AGGREGATIONS:
        src.error((*at, "aggregation"), f"use one of {', '.join(FIELD_AGGREGATIONS)}")
        return None
    raw = ev.get("fields")
    if not isinstance(raw, list) or not raw:
        src.error((*at, "fields"), "field_accuracy needs `fields:`, a list of {path, match}")
        return None
    fields = [_field(src, (*at, "fields", i), spec) for i, spec in enumerate(raw)]
    if any(f is None for f in fields):
        return None
    return {"fields": fields, "aggregation": aggregation}


def _field(src: Src, at: At, spec: Any) -> dict[str, Any] | None:
    if not isinstance(spec, dict) or not isinstance(spec.get("path"), str):
        src.error(at, "each field needs `path:`, e.g. invoice.line_items[0].amount")
        return None
    path = spec["path"]
    if not _PATH.match(path):
        src.error((*at, "path"), f"{path!r} is not a dot path like a.b[0].c")
        return None
    match = spec.get("match", "exact")
    if match not in FIELD_MATCHES:
        src.error((*at, "match"), f"unknown match {match!r}; use {', '.join(FIELD_MATCHES)}")
        return None
    out: dict[str, Any] = {"path": path, "match": match, "required": True, "weight": 1.0}
    # AgentV (the implementation these files are written for) counts a field as required
    # unless told otherwise; a missing candidate value then scores 0 instead of vanishing.
    if "required" in spec:
        flag = boolean(src, (*at, "required"), spec["required"])
        out["required"] = True if flag is None else flag
    for key, lo in (("weight", 0.0), ("tolerance", 0.0)):
        if key in spec:
            got = number(src, (*at, key), spec[key], lo=lo)
            if got is None:
                return None
            out[key] = got
    out["relative"] = spec.get("relative", False) is True
    if "formats" in spec:
        out["formats"] = string_list(src, (*at, "formats"), spec["formats"]) or []
    if match == "regex" and "pattern" in spec:
        pattern = text(src, (*at, "pattern"), spec["pattern"])
        problem = regex_problem(pattern) if pattern else "a pattern is required"
        if problem:
            src.error((*at, "pattern"), problem)
            return None
        out["pattern"] = pattern
    return out


def execution_metrics(src: Src, at: At, ev: dict[str, Any], kind: str) -> dict[str, Any] | None:
    """Limits of `execution_metrics`, or of the shorthands `latency`, `cost`, `token_usage`."""
    renames = {
        "latency": {"threshold": "max_duration_ms"},
        "cost": {"budget": "max_cost_usd"},
        "token_usage": {
            "max_total": "max_tokens",
            "max_input": "max_input_tokens",
            "max_output": "max_output_tokens",
        },
    }.get(kind, {})
    limits: dict[str, float] = {}
    for key, value in ev.items():
        name = renames.get(key, key)
        if name not in METRIC_LIMITS:
            continue
        got = number(src, (*at, key), value, lo=0)
        if got is not None:
            limits[name] = got
    params: dict[str, Any] = {"limits": limits}
    if "target_exploration_ratio" in ev:
        ratio = number(src, (*at, "target_exploration_ratio"), ev["target_exploration_ratio"])
        tol = number(src, (*at, "exploration_tolerance"), ev.get("exploration_tolerance", 0.2))
        if ratio is not None and not 0 <= ratio <= 1:
            src.error((*at, "target_exploration_ratio"), "use a ratio from 0 to 1")
        elif ratio is not None and tol is not None:
            params["exploration"] = {"target": ratio, "tolerance": abs(tol)}
    if not limits and "exploration" not in params:
        written = [k for k in ev if renames.get(k, k) in METRIC_LIMITS]
        if not written and "target_exploration_ratio" not in ev:
            wanted = ", ".join([*renames] or METRIC_LIMITS)
            src.error(at, f"{kind} needs at least one limit ({wanted})")
        return None
    return params


def text_check(src: Src, at: At, ev: dict[str, Any], kind: str) -> dict[str, Any] | None:
    """`contains` / `icontains-any` / `not-contains` / `regex` / `equals` / `starts-with` /
    `ends-with`."""
    negate = kind.startswith("not_")
    base = kind.removeprefix("not_")
    if base == "is_json":
        return {"negate": negate}
    value = ev.get("value", ev.get("values"))
    if base == "regex":
        pattern = text(src, (*at, "value"), value)
        flags = _regex_flags(src, at, ev.get("flags", ""))
        if pattern is not None and flags:
            pattern = f"(?{flags}){pattern}"
        problem = regex_problem(pattern) if pattern else None
        if problem:
            src.error((*at, "value"), problem)
        if pattern is None or flags is None or problem:
            return None
        return {"pattern": pattern, "negate": negate}
    if isinstance(value, str):
        values = [value]
    elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        values = list(value)
    else:
        src.error((*at, "value"), f"must be a string or a list of strings, not {json_kind(value)}")
        return None
    ignore_case = base.startswith("i")
    core = base.removeprefix("i") if ignore_case else base
    mode = "any" if core.endswith("_any") else "all"
    op = core.removesuffix("_any").removesuffix("_all")
    if op in ("equals", "starts_with", "ends_with") and len(values) != 1:
        src.error((*at, "value"), f"{op} compares with one string")
        return None
    return {"op": op, "values": values, "mode": mode, "ignore_case": ignore_case, "negate": negate}


def _regex_flags(src: Src, at: At, flags: Any) -> str | None:
    """JavaScript regex flags (AgentV 4 `flags: "i"`) as RE2 inline flags; `g`, `u` and `d`
    change nothing about whether the answer matches."""
    if not isinstance(flags, str) or set(flags) - set("gimsud"):
        src.error((*at, "flags"), "use regex flags from i, m, s (g, u, d change nothing)")
        return None
    return "".join(f for f in "ims" if f in flags)


def skill_used(src: Src, at: At, ev: dict[str, Any], kind: str) -> dict[str, Any] | None:
    name = ev.get("skill", ev.get("value"))
    skill = text(src, (*at, "skill" if "skill" in ev else "value"), name)
    if skill is None:
        return None
    should = kind != "not_skill_used"
    if "should_trigger" in ev:
        flag = boolean(src, (*at, "should_trigger"), ev["should_trigger"])
        should = should if flag is None else flag
    # skill-trigger asks whether the skill was the agent's first move, not just used.
    return {"skill": skill, "should_trigger": should, "first_only": kind == "skill_trigger"}
