"""One small reader per kind of value in `.evolve.yaml`: each takes the raw value, where it is
(keys and list indexes) and the file's problems, and returns the typed value or None after
saying what is wrong and what to do (`config` maps every key to one of these)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.discovery import LAYOUTS
from evolve_action.formats.documents import JsonPath
from evolve_action.settings.inputs import default_of
from evolve_action.settings.parsers import alpha_problem
from evolve_action.util.globs import glob_problem
from evolve_action.util.text import json_kind

At = JsonPath  # where in the file: keys and list indexes
Reader = Callable[[Any, At, Problems], Any]


def number_of(raw: Any, at: At, problems: Problems, *, low: float, high: float, what: str) -> Any:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        problems.error(at, f"must be a number ({what}), not {json_kind(raw)}")
        return None
    if not low <= raw <= high:
        problems.error(at, f"must be {what}, got {raw}")
        return None
    return raw


def fraction_of(raw: Any, at: At, problems: Problems) -> float | None:
    value = number_of(raw, at, problems, low=0, high=1, what="between 0 and 1")
    return None if value is None else float(value)


def alpha_of(raw: Any, at: At, problems: Problems) -> float | None:
    value = fraction_of(raw, at, problems)
    if value is not None and (problem := alpha_problem(value)):
        problems.error(at, f"{problem} (typically {default_of('alpha')}), got {raw}")
        return None
    return value


def positive_of(raw: Any, at: At, problems: Problems) -> float | None:
    value = number_of(raw, at, problems, low=0, high=math.inf, what="a positive number")
    if value == 0:
        problems.error(at, "must be a positive number, got 0")
        return None
    return None if value is None else float(value)


def count_of(raw: Any, at: At, problems: Problems) -> int | None:
    if isinstance(raw, bool) or not isinstance(raw, int):
        problems.error(at, f"must be a whole number of at least 1, not {json_kind(raw)}")
        return None
    if raw < 1:
        problems.error(at, f"must be at least 1, got {raw}")
        return None
    return raw


def runs_of(raw: Any, at: At, problems: Problems) -> int | str | None:
    if isinstance(raw, str) and raw.strip().lower() == "auto":
        return "auto"
    if isinstance(raw, str):
        problems.error(at, f"must be a whole number of at least 1 or auto, not {raw!r}")
        return None
    return count_of(raw, at, problems)


def flag_of(raw: Any, at: At, problems: Problems) -> bool | None:
    if not isinstance(raw, bool):
        problems.error(at, f"must be true or false, not {json_kind(raw)}")
        return None
    return raw


def text_of(raw: Any, at: At, problems: Problems) -> str | None:
    if not isinstance(raw, str):
        problems.error(at, f"must be a string, not {json_kind(raw)}")
        return None
    if not raw.strip():
        problems.error(at, "must not be empty; remove the key to use the default")
        return None
    return raw.strip()


def layout_of(raw: Any, at: At, problems: Problems) -> str | None:
    value = text_of(raw, at, problems)
    if value is not None and value not in LAYOUTS:
        problems.error(at, f"{value!r} is not a layout; use one of {', '.join(LAYOUTS)}")
        return None
    return value


def harness_of(raw: Any, at: At, problems: Problems) -> str | None:
    value = text_of(raw, at, problems)
    if value is not None and value.lower() not in HARNESSES:
        problems.error(at, f"{value!r} is not a harness; use one of {', '.join(HARNESSES)}")
        return None
    return None if value is None else value.lower()


HARNESSES = ("sdk", "cli")
BASELINES = ("no-skill", "none", "auto")


def baseline_of(raw: Any, at: At, problems: Problems) -> str | None:
    """evolve's own `baseline: true | false` means a no-skill run or none; ours names it."""
    if isinstance(raw, bool):
        return "no-skill" if raw else "none"
    value = text_of(raw, at, problems)
    if value is not None and value.lower() not in BASELINES:
        problems.error(at, f"{value!r} is not a baseline; use one of {', '.join(BASELINES)}")
        return None
    return None if value is None else value.lower()


def strings_of(raw: Any, at: At, problems: Problems) -> tuple[str, ...] | None:
    """A list of strings, or one comma-separated string as the action input takes it."""
    if isinstance(raw, str):
        return tuple(p.strip() for p in raw.replace("\n", ",").split(",") if p.strip())
    if not isinstance(raw, list):
        problems.error(at, f"must be a list of strings, not {json_kind(raw)}")
        return None
    out: list[str] = []
    for i, item in enumerate(raw):
        if not isinstance(item, str) or not item.strip():
            problems.error((*at, i), "must be a non-empty string")
        else:
            out.append(item.strip())
    return tuple(out)


def globs_of(raw: Any, at: At, problems: Problems) -> tuple[str, ...] | None:
    patterns = strings_of(raw, at, problems)
    for i, pattern in enumerate(patterns or ()):
        problem = glob_problem(pattern)
        if problem:
            problems.error((*at, i), f"glob {pattern!r}: {problem}")
    return patterns
