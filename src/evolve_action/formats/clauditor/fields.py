"""Small typed readers shared by the clauditor loader: each reports at the field's line.

clauditor validates strictly at load time (native JSON ints, bools rejected where a number is
meant, non-blank strings); these helpers phrase each rejection for the author and return
`None` when the value is unusable, so the loader goes on and reports every problem at once.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.util.text import json_kind

At = tuple[str | int, ...]


def did_you_mean(key: str, allowed: Iterable[str], hints: Mapping[str, str] | None = None) -> str:
    """` — did you mean 'x'?` from a known renaming first, else the closest allowed spelling."""
    suggestion = (hints or {}).get(key)
    if suggestion is None:
        close = difflib.get_close_matches(key, sorted(allowed), n=1, cutoff=0.6)
        suggestion = close[0] if close else None
    return f" — did you mean {suggestion!r}?" if suggestion else ""


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def text(p: Problems, at: At, value: Any, *, blank_ok: bool = True) -> str | None:
    if not isinstance(value, str):
        p.error(at, f"must be a string, not {json_kind(value)}")
        return None
    if not blank_ok and not value.strip():
        p.error(at, "must not be empty or only whitespace; write the text or remove the field")
        return None
    return value


def optional_text(p: Problems, data: Mapping[str, Any], key: str, at: At = ()) -> str | None:
    """A field that is either absent/null or a non-blank string (clauditor's prompt fields)."""
    value = data.get(key)
    if value is None:
        return None
    return text(p, (*at, key), value, blank_ok=False)


def positive_int(p: Problems, at: At, value: Any, *, minimum: int = 1) -> int | None:
    if not is_int(value):
        p.error(at, f"must be an integer (a JSON number without quotes), not {json_kind(value)}")
        return None
    if value < minimum:
        p.error(at, f"must be at least {minimum}, not {value}")
        return None
    return int(value)


def unit(p: Problems, at: At, value: Any) -> float | None:
    """A number in [0, 1] (thresholds, stability)."""
    if not is_number(value):
        p.error(at, f"must be a number between 0 and 1, not {json_kind(value)}")
        return None
    if not 0.0 <= value <= 1.0:
        p.error(at, f"must be between 0 and 1, not {value}")
        return None
    return float(value)


def flag(p: Problems, at: At, value: Any) -> bool | None:
    if not isinstance(value, bool):
        p.error(at, f"must be true or false, not {json_kind(value)}")
        return None
    return value


def choice(p: Problems, at: At, value: Any, options: tuple[str, ...]) -> str | None:
    if not isinstance(value, str) or value not in options:
        listed = ", ".join(repr(o) for o in options)
        shown = repr(value) if isinstance(value, str) else json_kind(value)
        p.error(at, f"must be one of {listed}, not {shown}{did_you_mean(str(value), options)}")
        return None
    return value


def string_list(p: Problems, at: At, value: Any) -> list[tuple[int, str]]:
    """Non-empty strings of a list, with their indexes; other entries are reported."""
    if not isinstance(value, list):
        p.error(at, f"must be a list of strings, not {json_kind(value)}")
        return []
    out: list[tuple[int, str]] = []
    for i, entry in enumerate(value):
        if not isinstance(entry, str) or not entry.strip():
            shown = repr(entry) if isinstance(entry, str) else json_kind(entry)
            p.error((*at, i), f"must be a non-empty string, not {shown}")
        else:
            out.append((i, entry))
    return out


def obj(p: Problems, at: At, value: Any, what: str) -> dict[str, Any] | None:
    if not isinstance(value, dict):
        p.error(at, f"must be an object ({what}), not {json_kind(value)}")
        return None
    return value


def unknown_keys(
    p: Problems,
    at: At,
    data: Mapping[str, Any],
    allowed: Iterable[str],
    *,
    strict: bool,
    hints: Mapping[str, str] | None = None,
) -> bool:
    """Report keys outside `allowed`: an error when `strict`, else a warning. Any found?"""
    allowed = frozenset(allowed)
    found = False
    for key in data:
        if key in allowed:
            continue
        found = True
        hint = did_you_mean(key, allowed, hints)
        if strict:
            p.error((*at, key), f"unknown key {key!r}{hint}")
        else:
            p.warn((*at, key), f"unknown key {key!r} is ignored{hint}")
    return found
