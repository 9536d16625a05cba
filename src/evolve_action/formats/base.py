"""What every format loader shares: its input context, a problem collector.

A loader is `load(doc: Document, ctx: LoadContext) -> LoadResult`. It never raises for bad
input: every problem becomes a `Problem` at `file:line` naming the field and what to do, and a
file with errors yields `LoadResult(suite=None, ...)` so the rest of the work goes on.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from evolve_action.formats.documents import Document, pointer
from evolve_action.model.evals import Format, LoadResult, Origin, Problem, Severity, Skill, Suite
from evolve_action.util.limits import MAX_PROBLEMS

# `validate --strict`: every part that does not read stays an error (`demote_since` is off).
STRICT: ContextVar[bool] = ContextVar("strict_loading", default=False)


@dataclass(frozen=True)
class LoadContext:
    """Where the eval file sits: the repository root and the skill discovery assigned to it."""

    root: Path  # repository (or plugin) root; fixtures must stay inside it
    skill: Skill


@dataclass
class Problems:
    """Collects problems of one document, each placed at the line of the field it concerns.

    At most `MAX_PROBLEMS` are kept: 200,000 empty cases would otherwise make 600,000
    problems, a gigabyte of `validate --format json`. The rest are counted in one last
    problem, an error when any of them is, so that a file with errors still fails. Whether
    a step added problems is read from `count` and `errors`, which count them all.
    """

    doc: Document
    items: list[Problem] = field(default_factory=list)
    count: int = 0  # problems added, shown or not
    errors: int = 0  # of them errors
    _shown_errors: int = 0
    _kept: set[int] = field(default_factory=set)  # refusals `demote_since` leaves errors

    def origin(self, *at: str | int) -> Origin:
        return Origin(self.doc.rel, self.doc.line(*at), pointer(*at))

    def error(self, at: tuple[str | int, ...], message: str) -> None:
        self.add(Problem(self.origin(*at), message, Severity.ERROR))

    def refuse(self, at: tuple[str | int, ...], message: str) -> None:
        """An error that stays one even in a part left out (`demote_since`): what a pull
        request must not do (a path out of the repository or the workspace, a file over the
        size limits), never a convention of another tool."""
        self.error(at, message)
        if self.items and self.count <= MAX_PROBLEMS:
            self._kept.add(id(self.items[-1]))

    def warn(self, at: tuple[str | int, ...], message: str) -> None:
        self.add(Problem(self.origin(*at), message, Severity.WARNING))

    def add(self, problem: Problem) -> None:
        self.count += 1
        is_error = problem.severity is Severity.ERROR
        self.errors += is_error
        if self.count <= MAX_PROBLEMS:
            self.items.append(problem)
            self._shown_errors += is_error
            return
        if self.count > MAX_PROBLEMS + 1:
            self.items.pop()  # the count so far, replaced by the new one
        unshown, unshown_errors = self.count - MAX_PROBLEMS, self.errors - self._shown_errors
        errors = f" ({unshown_errors:,} of them errors)" if unshown_errors else ""
        more = (
            f"{unshown:,} more problems{errors} are not shown; fix the first"
            f" {MAX_PROBLEMS:,} and validate again"
        )
        worst = Severity.ERROR if unshown_errors else Severity.WARNING
        self.items.append(Problem(Origin(self.doc.rel, problem.origin.line), more, worst))

    @property
    def has_errors(self) -> bool:
        return self.errors > 0

    def not_run(self, at: tuple[str | int, ...], reason: str) -> None:
        """Say first why nothing of the file runs: a result without a suite whose problems
        are only warnings is not run, and its first warning is the reason."""
        self.count += 1
        self.items.insert(0, Problem(self.origin(*at), f"not run: {reason}", Severity.WARNING))

    def mark(self) -> int:
        """Where the problems stand now, for `demote_since`."""
        return len(self.items)

    def demote_since(self, mark: int, consequence: str) -> int:
        """The errors added since `mark` become warnings ending in `consequence` (what is left
        out and what still runs): a part of a file that cannot run (one grader, one case) is
        left out with its reason while the rest of the file runs. Returns how many (under
        `--strict` none: the errors stay, and the file fails as a whole)."""
        if STRICT.get():
            return sum(p.severity is Severity.ERROR for p in self.items[mark:])
        demoted = 0
        for i in range(mark, len(self.items)):
            problem = self.items[i]
            kept = id(problem) in self._kept
            if problem.severity is Severity.ERROR and not kept and self.count <= MAX_PROBLEMS:
                message = f"{problem.message.rstrip('.')}: {consequence}"
                self.items[i] = Problem(problem.origin, message, Severity.WARNING)
                demoted += 1
        self.errors -= demoted
        self._shown_errors -= demoted
        return demoted

    def warnings(self) -> tuple[Problem, ...]:
        """The warnings kept, which a suite carries to the report."""
        return tuple(p for p in self.items if p.severity is Severity.WARNING)

    def result(self, fmt: Format, suite: Suite | None) -> LoadResult:
        """The load's outcome: a file with any error gives no suite, so nothing of it runs."""
        return LoadResult(self.doc.rel, fmt, None if self.has_errors else suite, tuple(self.items))
