"""Path globs as users write them in `paths:` filters: `*`, `?`, `[abc]` and `**`.

Patterns match repository-relative POSIX paths. `*` and `?` stay within one path segment,
`**` spans any number of segments (`evals/**/evals.json` matches `evals/evals.json` too), and a
pattern that names a directory selects everything below it, as `git` pathspecs do.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache


def glob_problem(pattern: str) -> str | None:
    """None when `pattern` is usable, else what is wrong with it."""
    if not pattern.strip():
        return "an empty glob matches nothing; remove it"
    if "\x00" in pattern:
        return "a glob cannot contain a NUL byte"
    if ".." in pattern.split("/"):
        return "a glob cannot climb out of the repository with '..'"
    return None


@lru_cache(maxsize=512)
def translate(pattern: str) -> re.Pattern[str]:
    """Compile a glob to a regex over a whole path (or any of its leading directories)."""
    body = _translate(_clean(pattern))
    return re.compile(rf"(?:{body})(?:/.*)?", re.DOTALL)


def _clean(pattern: str) -> str:
    pattern = pattern.strip().replace("\\", "/")
    while pattern.startswith("./"):
        pattern = pattern[2:]
    return pattern.strip("/")


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        if pattern.startswith("**", i):
            at_start = i == 0 or pattern[i - 1] == "/"
            end = i + 2
            while end < n and pattern[end] == "*":
                end += 1
            if at_start and pattern.startswith("/", end):
                out.append("(?:.*/)?")  # `**/` is zero or more whole segments
                i = end + 1
            else:
                out.append(".*")
                i = end
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[":
            token, i = _char_class(pattern, i)
            out.append(token)
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


def _char_class(pattern: str, start: int) -> tuple[str, int]:
    """`[abc]`, `[!abc]`, `[a-z]`; an unclosed `[` is a literal bracket."""
    i = start + 1
    negate = i < len(pattern) and pattern[i] in "!^"
    if negate:
        i += 1
    first = i
    while i < len(pattern) and (pattern[i] != "]" or i == first):
        i += 1
    if i >= len(pattern):
        return re.escape("["), start + 1
    members = pattern[first:i].replace("\\", "\\\\").replace("/", "")
    members = members.replace("[", "\\[").replace("^", "\\^")
    return (f"[^/{members}]" if negate else f"[{members}]"), i + 1


class PathFilter:
    """True for paths matched by any pattern; with no patterns, true for every path."""

    def __init__(self, patterns: Sequence[str] = ()) -> None:
        usable = [p for p in patterns if glob_problem(p) is None]
        self.patterns = tuple(usable)
        self._compiled = tuple(translate(p) for p in usable)
        self._everything = not patterns

    def __call__(self, rel: str) -> bool:
        if self._everything:
            return True
        return any(rx.fullmatch(rel) for rx in self._compiled)
