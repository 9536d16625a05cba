"""The files `.evolve.yaml` `formats:` names: each is of the format it says, found or not.

An entry (`{paths: "evals/**/eval.yaml", as: waza}`) settles what a shared name leaves open:
a file the walk found under another format takes the declared one, and a file the walk does
not know by name (`cases/*.yml`) is added. Either way its format is certain, so its problems
are errors (`formats.identity`), and nothing sniffs it into another format.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from evolve_action.formats.placement import (
    Declared,
    EvalFile,
    declared_format,
    inside,
    skill_near,
)
from evolve_action.util.globs import PathFilter

SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "__pycache__"})
MAX_DECLARED_FILES = 10_000  # a glob such as `**` must not make the walk unbounded


def with_declared(
    root: Path,
    files: Sequence[EvalFile],
    declared: Sequence[Declared],
    keep: PathFilter,
    prefix: str,
) -> tuple[EvalFile, ...]:
    """The walk's files, each with the format `.evolve.yaml` gives it, plus the files it
    names that the walk did not find by name."""
    out: dict[str, EvalFile] = {}
    for item in files:
        rel = item.rel[len(prefix) :] if prefix and item.rel.startswith(prefix) else item.rel
        fmt = declared_format(rel, declared)
        if fmt is None:
            out[item.rel] = item
        elif fmt is item.format:
            out[item.rel] = replace(item, declared=True)
        else:
            skill = skill_near(item.path, fmt, root)
            out[item.rel] = replace(item, format=fmt, skill=skill, declared=True)
    for rel in _matching(root, declared):
        fmt = declared_format(rel, declared)
        if fmt is None or prefix + rel in out or not keep(rel):
            continue
        path = root / rel
        out[prefix + rel] = EvalFile(path, prefix + rel, fmt, skill_near(path, fmt, root), (), True)
    return tuple(out[k] for k in sorted(out))


def _matching(root: Path, declared: Sequence[Declared]) -> list[str]:
    """Root-relative files any entry's glob matches, within the root and a bounded count."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        base = Path(dirpath)
        for name in sorted(filenames):
            path = base / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink() and not inside(path, root):
                continue
            if any(d.matches(rel) for d in declared):
                found.append(rel)
                if len(found) >= MAX_DECLARED_FILES:
                    return found
    return found
