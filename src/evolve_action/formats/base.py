"""What every format loader shares: its input context, a problem collector, RE2 compilation.

A loader is `load(doc: Document, ctx: LoadContext) -> LoadResult`. It never raises for bad
input: every problem becomes a `Problem` at `file:line` naming the field and what to do, and a
file with errors yields `LoadResult(suite=None, ...)` so the rest of the work goes on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import re2

from evolve_action.documents import Document, pointer
from evolve_action.model import Origin, Problem, Severity, Skill


@dataclass(frozen=True)
class LoadContext:
    """Where the eval file sits: the repository root and the skill discovery assigned to it."""

    root: Path  # repository (or plugin) root; fixtures must stay inside it
    skill: Skill


@dataclass
class Problems:
    """Collects problems of one document, each placed at the line of the field it concerns."""

    doc: Document
    items: list[Problem] = field(default_factory=list)

    def origin(self, *at: str | int) -> Origin:
        return Origin(self.doc.rel, self.doc.line(*at), pointer(*at))

    def error(self, at: tuple[str | int, ...], message: str) -> None:
        self.items.append(Problem(self.origin(*at), message, Severity.ERROR))

    def warn(self, at: tuple[str | int, ...], message: str) -> None:
        self.items.append(Problem(self.origin(*at), message, Severity.WARNING))

    @property
    def has_errors(self) -> bool:
        return any(p.severity is Severity.ERROR for p in self.items)


class RegexError(ValueError):
    """RE2 rejected a pattern (lookaround, backreferences, bad syntax)."""


@lru_cache(maxsize=4096)
def compile_re2(pattern: str, *, multiline: bool = False, ignore_case: bool = False) -> Any:
    """Compile a user regex with RE2 (linear time), quietly: errors come back as `RegexError`.

    RE2 logs parse errors to stderr through absl unless `log_errors` is off.
    """
    options = re2.Options()
    options.log_errors = False
    prefix = ("(?m)" if multiline else "") + ("(?i)" if ignore_case else "")
    try:
        return re2.compile(prefix + pattern, options)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else "invalid pattern"
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        raise RegexError(str(detail)) from exc
    except (TypeError, ValueError) as exc:
        raise RegexError(str(exc)) from exc


def regex_problem(pattern: str, *, multiline: bool = False) -> str | None:
    """None when RE2 accepts the pattern, else a message saying why and what to do."""
    try:
        compile_re2(pattern, multiline=multiline)
    except RegexError as exc:
        return f"invalid RE2 pattern {pattern!r}: {exc}; RE2 has no lookaround or backreferences"
    return None
