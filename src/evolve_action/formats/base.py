"""What every format loader shares: its input context, a problem collector.

A loader is `load(doc: Document, ctx: LoadContext) -> LoadResult`. It never raises for bad
input: every problem becomes a `Problem` at `file:line` naming the field and what to do, and a
file with errors yields `LoadResult(suite=None, ...)` so the rest of the work goes on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from evolve_action.formats.documents import Document, pointer
from evolve_action.model.evals import Origin, Problem, Severity, Skill


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
