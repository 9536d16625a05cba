"""Base's ruler: base runs against head runs, both graded with base's checks.

When a pull request changed a case's checks (or renamed the case), head's runs were graded
with base's checks as well (`RunResult.ruler`). Here those gradings become one more test in
the regression family: the cell (suite, `RULER` + base's id, model) holds base's runs as its
base side and head's runs under base's checks as its head side, and goes into the same
`decide` call (or the sequential decider) as every other cell, under the same family-wise
alpha. So a drop that base's checks show is caught even when head's relaxed checks hide it.

The case's own comparison (base's runs under base's checks, head's under head's) measures
with two rulers, so for a changed ruler it is not tested: base's ruler is. A PR that touched
no file of the skill (it changed only evals) is not tested this way either: its rows are
reported as information and cannot turn the check red, and a stricter check is never
flagged. A removed case is listed with its last base pass rate; a changed case (another task)
is not compared at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evolve_action.model.outcomes import RunResult, Side, Status
from evolve_action.plan.ruler import CaseChange, CaseDiff
from evolve_action.verdict.decide import Finding, Verdict
from evolve_action.verdict.ruler_cells import Tally, ruler_id, tally


@dataclass(frozen=True, slots=True)
class RulerRow:
    """One changed ruler on one model: base's runs, head's under base's checks, head's own."""

    diff: CaseDiff
    model: str
    base: Tally
    ruled: Tally  # head's runs graded with base's checks
    own: Tally  # head's runs graded with head's checks
    finding: Finding | None = None  # None: not tested (the PR changed only evals)
    adjusted_p: float | None = None

    @property
    def regressed(self) -> bool:
        return self.finding is Finding.REGRESSED


@dataclass(frozen=True, slots=True)
class Removed:
    suite: str
    case_id: str
    base: Tally  # its base runs, pooled over models

    @property
    def rate(self) -> float | None:
        return self.base[0] / self.base[1] if self.base[1] else None


@dataclass(frozen=True, slots=True)
class RulerReport:
    diffs: tuple[CaseDiff, ...] = ()
    rows: tuple[RulerRow, ...] = ()
    removed: tuple[Removed, ...] = ()

    @property
    def hidden(self) -> tuple[RulerRow, ...]:
        """Regressed under base's checks: the regressions this PR's own checks do not show."""
        return tuple(r for r in self.rows if r.regressed)

    @property
    def removed_while_passing(self) -> tuple[Removed, ...]:
        return tuple(r for r in self.removed if r.base[0] > 0)

    @property
    def changed_cases(self) -> tuple[CaseDiff, ...]:
        return tuple(d for d in self.diffs if d.change is CaseChange.CHANGED_CASE)


def report(runs: Sequence[RunResult], diffs: Sequence[CaseDiff], verdict: Verdict) -> RulerReport:
    """What the comment and results.json say about the PR's changes to its own evals."""
    base: dict[tuple[str, str, str], list[Status]] = {}
    ruled: dict[tuple[str, str, str], list[Status]] = {}
    own: dict[tuple[str, str, str], list[Status]] = {}
    for run in runs:
        key = (run.suite, run.case_id, run.model)
        if run.side is Side.BASE:
            base.setdefault(key, []).append(run.status)
        elif run.side is Side.HEAD:  # only head's: another arm would have no ruler of its own
            own.setdefault(key, []).append(run.status)
            status = run.ruler.status if run.ruler is not None else None
            ruled.setdefault(key, []).append(Status.ERROR if status is None else status)
    rows: list[RulerRow] = []
    removed: list[Removed] = []
    models = sorted({m for *_, m in base} | {m for *_, m in own})
    for d in diffs:
        if d.change is CaseChange.REMOVED:
            statuses = [s for m in models for s in base.get((d.suite, d.base_case, m), [])]
            removed.append(Removed(d.suite, d.base_case, tally(statuses)))
        if not d.compared:
            continue
        for m in models:
            b = base.get((d.suite, d.base_case, m))
            h = own.get((d.suite, d.head_case, m))
            if b is None or h is None:
                continue
            decision = verdict.row((d.suite, ruler_id(d), m)) if d.gating else None
            rows.append(
                RulerRow(
                    d, m, tally(b), tally(ruled[(d.suite, d.head_case, m)]), tally(h),
                    decision.finding if decision else None,
                    decision.adjusted_p if decision else None,
                )
            )  # fmt: skip
    return RulerReport(tuple(diffs), tuple(rows), tuple(removed))
