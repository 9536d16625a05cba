"""Typed readers of the grader formats' fields (Vally, skill-validator, waza, tessl,
promptfoo), each reporting at the field's line; durations as Vally writes them (`2m`,
`300s`, `30000ms`, compound as in `2m40s` or `1h30m`; a bare number is seconds, as its guide
writes)."""

from __future__ import annotations

import re
from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.util.regex import regex_problem
from evolve_action.util.text import json_kind

At = tuple[str | int, ...]

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$")
_COMPOUND = re.compile(r"^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$")
_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_JS_UNICODE = re.compile(r"\\u\{([0-9A-Fa-f]{1,6})\}|\\u([0-9A-Fa-f]{4})")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}


def seconds(problems: Problems, at: At, value: Any) -> float | None:
    """A Vally duration in seconds, or None (with an error) when it does not read as one."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    match = _DURATION.match(value) if isinstance(value, str) else None
    if match is not None and float(match.group(1)) > 0:
        return float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    if isinstance(value, str) and _COMPOUND.match(value.strip()):
        # A Go-style sum such as `2m40s` (Vally's and waza's timeouts are read that way).
        total = sum(float(n) * _UNIT_SECONDS[u] for n, u in _PART.findall(value))
        if total > 0:
            return total
    problems.error(at, f"must be a duration such as 2m, 300s, 2m40s or 30000ms, not {value!r}")
    return None


def text(problems: Problems, at: At, value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        problems.error(at, f"must be a non-empty string, not {json_kind(value)}")
        return None
    return value


def label(problems: Problems, at: At, value: Any, fallback: str) -> str:
    """A case's name: text as written, a number or a boolean YAML read from it as its text,
    else `fallback` (warned): a name only labels the case, so its case still runs."""
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, int | float | bool):
        return str(value).lower() if isinstance(value, bool) else str(value)
    problems.warn(at, f"no name (a non-empty string), so the case is reported as {fallback!r}")
    return fallback


def strings(problems: Problems, at: At, value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        problems.error(at, f"must be a list of strings, not {json_kind(value)}")
        return None
    return list(value)


def statements(problems: Problems, at: At, value: Any) -> list[str] | None:
    """Judge statements (a rubric): a list of strings. An item YAML read as a mapping because
    the author's sentence holds `: ` is the sentence again (warned); an item that is no text
    at all is left out (warned) and the others are judged."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        problems.error(at, f"must be a list of strings, not {json_kind(value)}")
        return None
    said: list[str] = []
    for j, item in enumerate(value):
        if isinstance(item, str) and item.strip():
            said.append(item)
        elif isinstance(item, dict) and len(item) == 1:
            key, rest = next(iter(item.items()))
            tail = ", ".join(map(str, rest)) if isinstance(rest, list) else str(rest)
            said.append(f"{key}: {tail}")
            problems.warn(
                (*at, j),
                "YAML read this item as a mapping (its text holds `: `); it is judged as the"
                f" sentence {said[-1]!r}; quote it to say so",
            )
        else:
            problems.warn((*at, j), f"not judged: a rubric item is text, not {json_kind(item)}")
    return said


def mapping(problems: Problems, at: At, value: Any) -> dict[str, Any] | None:
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.error(at, f"must be a mapping, not {json_kind(value)}")
        return None
    return value


def js_regex(pattern: str) -> tuple[str, str | None]:
    """A JavaScript pattern (Vally is a Node tool) as RE2 reads it, and why RE2 cannot run
    it when it cannot (lookaround, backreferences, repetitions over 1000)."""
    translated = _JS_UNICODE.sub(lambda m: "\\x{" + (m.group(1) or m.group(2)) + "}", pattern)
    why = regex_problem(translated)
    if why is None:
        return translated, None
    return pattern, why


def grader_head(problems: Problems, at: At, raw: Any) -> tuple[str, dict[str, Any]] | None:
    """A grader's `type` and `config` (empty when absent), the shape vally and waza share."""
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        problems.error(at, "a grader is a mapping with a `type`")
        return None
    config = raw.get("config") or {}
    if not isinstance(config, dict):
        problems.error((*at, "config"), f"must be a mapping, not {json_kind(config)}")
        return None
    return raw["type"], config
