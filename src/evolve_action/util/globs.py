"""Path globs, one translation to regex for every place that reads them, its dialects options.

Patterns match relative POSIX paths. `*` and `?` stay within one path segment, `**` spans any
number of segments (`evals/**/evals.json` matches `evals/evals.json` too). The dialects
differ only in what else they read: `paths:` filters (`PATHS`) select everything below a
directory they name, as `git` pathspecs do; the agent's tools (`TOOL`) read `{a,b}`; Vally's
experiments (`EXPERIMENTS`) read extglob's `!(a|b)`; skill-evaluator's checks (`RGLOB`)
match at any depth, as `Path.rglob` does; `NAMES` matches one name (a file's, a tool's).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from evolve_action.util.regex import RegexError, compile_re2


def glob_problem(pattern: str) -> str | None:
    """None when `pattern` is usable, else what is wrong with it."""
    if not pattern.strip():
        return "an empty glob matches nothing; remove it"
    if "\x00" in pattern:
        return "a glob cannot contain a NUL byte"
    if ".." in pattern.split("/"):
        return "a glob cannot climb out of the repository with '..'"
    return None


@dataclass(frozen=True)
class Dialect:
    """What a glob may write besides `*`, `?` and `**`, which every dialect reads alike: `*`
    and `?` stay within one path segment, `**` spans segments and `**/` is zero or more
    whole segments."""

    classes: bool = True  # `[abc]`, `[!abc]`, `[a-z]` (else a `[` is a literal bracket)
    braces: bool = False  # `{a,b}`: either alternative
    # `!(a|b)`: a segment that is none of them. It needs a lookahead, so a pattern of this
    # dialect compiles with `re` only, never RE2.
    extglob: bool = False
    below: bool = False  # a pattern naming a directory selects everything below it (git)
    anywhere: bool = False  # the pattern matches at any depth, as `Path.rglob` finds it


PATHS = Dialect(below=True)  # `paths:` filters of the config and inputs
TOOL = Dialect(braces=True)  # the agent's Glob and Grep tools (compiled with RE2)
EXPERIMENTS = Dialect(classes=False, extglob=True)  # Vally's `*.experiment.yaml` `evals:`
RGLOB = Dialect(anywhere=True)  # skill-evaluator's file checks, as Python's `rglob`
NAMES = Dialect()  # one name, no folders: a family's file names, tool names in trajectories


def regex(pattern: str, dialect: Dialect) -> str:
    """The regex a glob of `dialect` means, to be matched against a whole relative POSIX path."""
    if dialect.anywhere:
        pattern = "/".join(s for s in pattern.split("/") if s not in ("", "."))
        pattern = pattern if pattern.startswith("**/") or pattern == "**" else f"**/{pattern}"
    body = _Translation(pattern, dialect).run()
    return rf"(?:{body})(?:/.*)?" if dialect.below else body


def name_matches(pattern: str, name: str) -> bool:
    """Whether `name` (a file or tool name) matches the glob; compiled by RE2, so a pattern
    from a pull request takes linear time. A pattern RE2 refuses matches nothing."""
    try:
        return compile_re2(regex(pattern, NAMES)).fullmatch(name) is not None
    except RegexError:
        return False


@lru_cache(maxsize=512)
def translate(pattern: str) -> re.Pattern[str]:
    """Compile a `paths:` glob to a regex over a whole path (or any of its leading directories)."""
    return re.compile(regex(_clean(pattern), PATHS), re.DOTALL)


def _clean(pattern: str) -> str:
    pattern = pattern.strip().replace("\\", "/")
    while pattern.startswith("./"):
        pattern = pattern[2:]
    return pattern.strip("/")


class _Translation:
    def __init__(self, pattern: str, dialect: Dialect) -> None:
        self.pattern, self.dialect = pattern, dialect
        self.out: list[str] = []
        self.depth = 0  # open braces

    def run(self) -> str:
        i = 0
        while i < len(self.pattern):
            i = self._token(i)
        return "".join(self.out) + ")" * self.depth

    def _token(self, i: int) -> int:
        pattern, dialect, out = self.pattern, self.dialect, self.out
        c = pattern[i]
        if pattern.startswith("**", i):
            return self._globstar(i)
        if dialect.extglob and pattern.startswith("!(", i) and ")" in pattern[i:]:
            end = pattern.index(")", i)
            alts = "|".join(regex(a, self.dialect) for a in pattern[i + 2 : end].split("|"))
            out.append(f"(?!(?:{alts})(?:/|$))[^/]*")
            return end + 1
        if c == "[" and dialect.classes:
            token, after = _char_class(pattern, i)
            out.append(token)
            return after
        if dialect.braces and c == "{":
            self.depth += 1
            out.append("(?:")
        elif dialect.braces and c == "}" and self.depth:
            self.depth -= 1
            out.append(")")
        elif dialect.braces and c == "," and self.depth:
            out.append("|")
        else:
            out.append({"*": "[^/]*", "?": "[^/]"}.get(c) or re.escape(c))
        return i + 1

    def _globstar(self, i: int) -> int:
        pattern = self.pattern
        at_start = i == 0 or pattern[i - 1] == "/"
        end = i + 2
        while end < len(pattern) and pattern[end] == "*":
            end += 1
        if at_start and pattern.startswith("/", end):
            self.out.append("(?:.*/)?")  # `**/` is zero or more whole segments
            return end + 1
        if at_start and i > 0 and end == len(pattern) and self.out and self.out[-1] == "/":
            self.out[-1] = "(?:/.*)?"  # a trailing `/**`: the folder and everything below it
            return end
        self.out.append(".*")
        return end


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
