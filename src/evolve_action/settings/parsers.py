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


# The largest value each numeric input takes: far above any useful setting, low enough that
# planning and running stay bounded in memory and time whatever a workflow or a flag says.
# Runs per case and side: past 100 the exact tests' answer no longer moves
# (`verdict.budget.MAX_RUNS`); in flight: what one runner's cores and sockets can serve;
# minutes and seconds: GitHub's limit of six hours for one job.
MAX_RUNS = 100
MAX_CONCURRENCY = 64
MAX_TURNS = 200
MAX_SECONDS = 6 * 3600
MAX_MINUTES = 6 * 60
_MAX_DIGITS = 12  # a number written with more digits is over every limit above


def _over(name: str, raw: str, limit: float, unit: str) -> SettingsError:
    shown = (
        raw.strip() if len(raw.strip()) <= 24 else f"{raw.strip()[:12]}… ({len(raw)} characters)"
    )
    return SettingsError(
        f"input {name}: {shown} is over the limit of {limit:,g} {unit}; write a number above 0"
        f" and at most {limit:,g}"
    )


def _whole(name: str, raw: str) -> int:
    digits = raw.strip().lstrip("+-")
    if not (digits.isascii() and digits.isdigit()):
        raise SettingsError(f"input {name}: {raw!r} is not a whole number")
    if len(digits) > _MAX_DIGITS:
        # Refused unread: converting a number of thousands of digits costs time.
        raise SettingsError(
            f"input {name}: a number of {len(digits)} digits is over every limit; write at most"
            f" {_MAX_DIGITS} digits"
        )
    return int(raw.strip())


def _positive_int(name: str, raw: str) -> int:
    value = _whole(name, raw)
    if value < 1:
        raise SettingsError(f"input {name}: must be at least 1, got {value}")
    return value


def at_most(limit: int, unit: str) -> Callable[[str, str], int]:
    """A positive whole number up to `limit` (`unit` names what is counted, for the message)."""

    def parse(name: str, raw: str) -> int:
        if len(raw.strip().lstrip("+").lstrip("0")) > _MAX_DIGITS and raw.strip().isdigit():
            raise _over(name, raw, limit, unit)
        value = _positive_int(name, raw)
        if value > limit:
            raise _over(name, raw, limit, unit)
        return value

    return parse


def _runs(name: str, raw: str) -> int | Literal["auto"]:
    if raw.strip().lower() == AUTO:
        return AUTO
    if not raw.strip().lstrip("+-").isdigit():
        raise SettingsError(f"input {name}: {raw!r} is not a whole number of runs, nor `auto`")
    return at_most(MAX_RUNS, "runs per case and side")(name, raw)


def _positive_float(name: str, raw: str) -> float:
    if len(raw) > 64:
        raise SettingsError(f"input {name}: a value of {len(raw)} characters is not a number")
    try:
        value = float(raw.strip())
    except ValueError:
        raise SettingsError(f"input {name}: {raw!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise SettingsError(f"input {name}: must be a positive number, got {raw!r}")
    return value


def float_at_most(limit: float, unit: str) -> Callable[[str, str], float]:
    """A positive number up to `limit`."""

    def parse(name: str, raw: str) -> float:
        value = _positive_float(name, raw)
        if value > limit:
            raise _over(name, raw, limit, unit)
        return value

    return parse


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
