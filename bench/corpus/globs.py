"""Glob matching for the corpus manifest: `**` spans folders, `*` and `?` stay in one."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path


def glob_regex(pattern: str) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def match_files(root: Path, globs: Sequence[str], exclude: Sequence[str] = ()) -> list[str]:
    """Paths below `root` (POSIX, relative) matching a glob and no exclusion, sorted."""
    if not root.is_dir():
        return []
    wanted = [glob_regex(g) for g in globs]
    unwanted = [glob_regex(g) for g in exclude]
    found = []
    for path in root.rglob("*"):
        if not path.is_file() or path.is_symlink():
            continue
        rel = path.relative_to(root).as_posix()
        if any(w.match(rel) for w in wanted) and not any(u.match(rel) for u in unwanted):
            found.append(rel)
    return sorted(found)
