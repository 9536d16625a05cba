"""The kinds of value an input takes, each parsed from its raw string by one small cleaner.

A cleaner takes (input name, raw string) and returns the value, or raises `SettingsError`
naming the input, what was given and what to write. `inputs.INPUTS` names each input's
cleaner; the config file's readers share the rules where a value has a range
(`alpha_problem`), so one value is refused with one message wherever it is written.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

AUTO: Literal["auto"] = "auto"


class SettingsError(ValueError):
    """An input has a value we cannot use; the message names the input and what to write."""


class Mode(StrEnum):
    CHANGED = "changed"  # only the evals a PR touches
    ALL = "all"
    CALIBRATE = "calibrate"  # every eval, as two sides of the same tree (pipeline.calibrate)
    WATCH = "watch"  # the default branch against its own history (pipeline.watch)


class CommentMode(StrEnum):
    STICKY = "sticky"
    NEW = "new"
    OFF = "off"


class Baseline(StrEnum):
    """Whether each case also runs without the skill (the no-skill arm, `baseline`)."""

    NO_SKILL = "no-skill"  # every skill's cases
    NONE = "none"  # never
    AUTO = "auto"  # a skill new in the PR, and eval files that ask for one


class Harness(StrEnum):
    """What runs the agent: our loop over the SDKs, or the real Claude Code / Codex CLIs."""

    SDK = "sdk"
    CLI = "cli"


@dataclass(frozen=True, slots=True)
class Shard:
    index: int  # 1-based
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


Parser = Callable[[str, str], Any]  # (input name, raw string) → value, or SettingsError


def _bool(name: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value in ("true", "yes", "1", "on"):
        return True
    if value in ("false", "no", "0", "off"):
        return False
    raise SettingsError(f"input {name}: {raw!r} is not a boolean; write true or false")


def _positive_int(name: str, raw: str) -> int:
    try:
        value = int(raw.strip())
    except ValueError:
        raise SettingsError(f"input {name}: {raw!r} is not a whole number") from None
    if value < 1:
        raise SettingsError(f"input {name}: must be at least 1, got {value}")
    return value


def _runs(name: str, raw: str) -> int | Literal["auto"]:
    if raw.strip().lower() == AUTO:
        return AUTO
    if not raw.strip().lstrip("+-").isdigit():
        raise SettingsError(f"input {name}: {raw!r} is not a whole number of runs, nor `auto`")
    return _positive_int(name, raw)


def _positive_float(name: str, raw: str) -> float:
    try:
        value = float(raw.strip())
    except ValueError:
        raise SettingsError(f"input {name}: {raw!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise SettingsError(f"input {name}: must be a positive number, got {raw!r}")
    return value


def _fraction(name: str, raw: str) -> float:
    value = _positive_float(name, raw) if raw.strip() not in ("0", "0.0") else 0.0
    if value > 1:
        raise SettingsError(f"input {name}: must be between 0 and 1, got {raw!r}")
    return value


def alpha_problem(value: float) -> str | None:
    """What is wrong with `value` as alpha, for the input and the config file alike."""
    return None if 0 < value < 0.5 else "must be above 0 and below 0.5"


def _alpha(name: str, raw: str) -> float:
    value = _fraction(name, raw)
    if problem := alpha_problem(value):
        raise SettingsError(f"input {name}: {problem}, got {raw!r}")
    return value


def _csv(_name: str, raw: str) -> tuple[str, ...]:
    parts = raw.replace("\n", ",").split(",")
    return tuple(p.strip() for p in parts if p.strip())


def _shard(name: str, raw: str) -> Shard:
    index, sep, count = raw.strip().partition("/")
    try:
        shard = Shard(int(index), int(count)) if sep else None
    except ValueError:
        shard = None
    if shard is None or not 1 <= shard.index <= shard.count:
        raise SettingsError(f"input {name}: {raw!r} is not `i/n` with 1 ≤ i ≤ n, e.g. 2/4")
    return shard


def _enum(kind: type[StrEnum]) -> Callable[[str, str], Any]:
    def parse(name: str, raw: str) -> Any:
        try:
            return kind(raw.strip().lower())
        except ValueError:
            allowed = ", ".join(m.value for m in kind)
            raise SettingsError(f"input {name}: {raw!r} is not one of {allowed}") from None

    return parse


def _path(_name: str, raw: str) -> Path:
    return Path(raw.strip())


def _text(_name: str, raw: str) -> str:
    return raw.strip()
