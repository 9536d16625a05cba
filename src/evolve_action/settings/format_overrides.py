"""`.evolve.yaml` `formats:`: what the files of a path are, when their names leave it open.

    formats:
      - {paths: "evals/**/eval.yaml", as: waza}
      - {paths: "cases/*.yml", as: agentv}

Each entry becomes a `formats.placement.Declared`; discovery gives every file its glob
matches that format (and finds files of it that no convention names), and the loader treats
the format as certain: no sniffing, and its problems are errors. The first matching entry
wins, so a narrow glob goes before a wide one.
"""

from __future__ import annotations

from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.documents import JsonPath
from evolve_action.formats.placement import Declared
from evolve_action.model.evals import Format
from evolve_action.util.globs import glob_problem
from evolve_action.util.text import json_kind

# Names a user may write for a format besides its own value.
ALIASES = {"skill-creator": Format.EVOLVE, "copilot-evals": Format.VALLY}
NAMES = sorted([*(f.value for f in Format), *ALIASES])
EXAMPLE = '`formats: [{paths: "evals/**/eval.yaml", as: waza}]`'


def read_formats(raw: Any, at: JsonPath, problems: Problems) -> tuple[Declared, ...] | None:
    """The entries of `formats:`; a bad entry is an error at its line and is left out."""
    if not isinstance(raw, list):
        problems.error(
            at, f"must be a list of {{paths, as}} entries, not {json_kind(raw)}: {EXAMPLE}"
        )
        return None
    out = [entry for i, item in enumerate(raw) if (entry := _entry(item, (*at, i), problems))]
    return tuple(out)


def _entry(item: Any, at: JsonPath, problems: Problems) -> Declared | None:
    if not isinstance(item, dict):
        problems.error(
            at, f"an entry is a mapping with `paths` and `as`, not {json_kind(item)}: {EXAMPLE}"
        )
        return None
    for key in item:
        if key not in ("paths", "as"):
            problems.warn(
                (*at, key), f"unknown key {key!r} is ignored; an entry has `paths` and `as`"
            )
    paths, name = item.get("paths"), item.get("as")
    if not isinstance(paths, str) or not paths.strip():
        problems.error((*at, "paths"), f"`paths` must be one glob (a string): {EXAMPLE}")
        return None
    wrong = glob_problem(paths)
    if wrong:
        problems.error((*at, "paths"), f"glob {paths!r}: {wrong}")
        return None
    fmt = format_named(name)
    if fmt is None:
        problems.error(
            (*at, "as"),
            f"{name!r} is not a format evolve-action reads; use one of {', '.join(NAMES)}",
        )
        return None
    return Declared(paths.strip(), fmt)


def format_named(name: Any) -> Format | None:
    if not isinstance(name, str):
        return None
    key = name.strip().lower()
    if key in ALIASES:
        return ALIASES[key]
    return next((f for f in Format if f.value == key), None)
