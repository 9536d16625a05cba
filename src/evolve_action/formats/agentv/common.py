"""What every part of the agentv loader shares: the document being read, typed field readers,
and the rule for file references (relative to the eval file, `/` = repository root, never out).

Readers report a problem at the field's line and return None, so a loader can keep reading
and list every problem of a file in one pass.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.documents import Document
from evolve_action.model.evals import AGENTV_THRESHOLD, Origin
from evolve_action.util.text import json_kind

At = tuple[str | int, ...]

# A required item or evaluator written as `required: true` must score at least this much
# (the later spec's rule; the verdict bands of spec v1 call 0.8 a pass).
REQUIRED_TRUE_FLOOR = 0.8
DEFAULT_THRESHOLD = AGENTV_THRESHOLD


@dataclass
class Src:
    """One agentv document being read (the eval file, its sidecar, or a file it references)."""

    doc: Document
    problems: Problems
    root: Path  # the repository root, resolved; every referenced file must stay inside it
    main_dir: Path  # the folder of the eval file the suite is named after

    @property
    def dir(self) -> Path:
        return self.doc.path.parent

    def origin(self, at: At) -> Origin:
        return self.problems.origin(*at)

    def error(self, at: At, message: str) -> None:
        self.problems.error(at, message)

    def warn(self, at: At, message: str) -> None:
        self.problems.warn(at, message)


def text(src: Src, at: At, value: Any, *, blank_ok: bool = False) -> str | None:
    if not isinstance(value, str):
        src.error(at, f"must be a string, not {json_kind(value)}")
        return None
    if not blank_ok and not value.strip():
        src.error(at, "must not be empty")
        return None
    return value


def number(
    src: Src,
    at: At,
    value: Any,
    *,
    lo: float | None = None,
    hi: float | None = None,
    integer: bool = False,
) -> float | None:
    """A finite number within [lo, hi]; `integer` also rejects fractions."""
    ok_type = isinstance(value, int) if integer else isinstance(value, int | float)
    if isinstance(value, bool) or not ok_type or not math.isfinite(value):
        wanted = "an integer" if integer else "a number"
        src.error(at, f"must be {wanted}, not {json_kind(value)}")
        return None
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        src.error(at, f"{value} is out of range: {describe_range(lo, hi)}")
        return None
    return float(value)


def describe_range(lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f"use a value from {fmt_num(lo)} to {fmt_num(hi)}"
    if lo is not None:
        return f"use a value of at least {fmt_num(lo)}"
    return f"use a value of at most {fmt_num(hi or 0)}"


def fmt_num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def boolean(src: Src, at: At, value: Any) -> bool | None:
    if not isinstance(value, bool):
        src.error(at, f"must be true or false, not {json_kind(value)}")
        return None
    return value


def mapping(src: Src, at: At, value: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict):
        src.error(at, f"must be a mapping, not {json_kind(value)}")
        return None
    return value


def string_list(src: Src, at: At, value: Any) -> list[str] | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        src.error(at, "must be a list of strings")
        return None
    return list(value)


def required_floor(src: Src, at: At, value: Any, *, true_floor: float) -> float | None:
    """`required: true` → `true_floor`; `required: <0..1>` → that floor; false → none."""
    if value is None or value is False:
        return None
    if value is True:
        return true_floor
    return number(src, at, value, lo=0.0, hi=1.0)


def resolve_file(
    src: Src, at: At, value: str, *, base: Path | None = None, parents: bool = True
) -> Path | None:
    """A referenced file, found as AgentV finds it: relative to `base` (the eval file's
    folder), then to each parent folder up to the repository root; a leading `/` tries the
    repository root first. It must be a regular file inside the repository (symlinks too).
    `parents=False` looks in `base` only (a command's own paths are relative to its folder)."""
    start = (base or src.dir).resolve()
    stripped = value.lstrip("/")
    folders = [src.root] if value.startswith("/") else []
    folders.append(start)
    if parents:
        folders += [p for p in start.parents if p.is_relative_to(src.root)]
    escaped = False
    for n, folder in enumerate(folders):
        try:
            candidate = (folder / stripped).resolve()
            if not candidate.is_relative_to(src.root):
                escaped = escaped or n == 0  # as written, it leaves the repository
                continue
            if candidate.is_file():
                return candidate
            exists = candidate.exists()
        except (OSError, RuntimeError, ValueError) as exc:
            reason = getattr(exc, "strerror", None) or "not a usable path"
            src.error(at, f"cannot use the path {value[:200]!r}: {reason}")
            return None
        if exists:
            src.error(at, f"{value!r} is not a regular file")
            return None
    if escaped:
        src.error(at, f"{value!r} points outside the repository; keep referenced files inside it")
    elif value.startswith("/"):
        src.error(at, f"no such file: {value!r} (a leading / means the repository root)")
    else:
        looked = rel_dir(src, start)
        if parents and start != src.root:
            looked += " and its parent folders"
        src.error(
            at,
            f"no such file: {value!r} (looked in {looked}; a leading / means the repository root)",
        )
    return None


def root_rel(src: Src, path: Path) -> str:
    return path.relative_to(src.root).as_posix()


def rel_dir(src: Src, path: Path) -> str:
    try:
        rel = path.resolve().relative_to(src.root).as_posix()
    except ValueError:
        return path.name
    return rel if rel != "." else "the repository root"


def from_main_dir(src: Src, path: Path) -> str:
    """`path` relative to the main eval file's folder, so a suite holds no absolute path."""
    return Path(os.path.relpath(path, src.main_dir.resolve())).as_posix()
