"""Base's ruler: base runs against head runs, both graded with base's checks (issue 26).

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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from evolve_action.model.outcomes import RunResult, Side, Status
from evolve_action.plan.ruler import CaseChange, CaseDiff
from evolve_action.verdict.decide import Finding, Verdict

RULER = "\u27c2 "  # prefixes the case id of a ruler cell; no eval id starts with it


def ruler_id(diff: CaseDiff) -> str:
    return f"{RULER}{diff.base_case}"


def is_ruler(case_id: str) -> bool:
    return case_id.startswith(RULER)


Tally = tuple[int, int]  # (passed, graded)


def _tally(statuses: Iterable[Status]) -> Tally:
    graded = [s for s in statuses if s is not Status.ERROR]
    return sum(s is Status.PASS for s in graded), len(graded)


def ruler_runs(runs: Iterable[RunResult], diffs: Sequence[CaseDiff]) -> list[RunResult]:
    """The runs of every ruler cell the verdict tests: base's runs of base's case, and head's
    runs as graded with base's checks. Only for PRs that touched the skill (`gating`)."""
    tested = {(d.suite, d.base_case): d for d in diffs if d.compared and d.gating}
    heads = {(d.suite, d.head_case): d for d in tested.values()}
    out: list[RunResult] = []
    for run in runs:
        key = (run.suite, run.case_id)
        if run.side is Side.BASE and key in tested:
            out.append(replace(run, case_id=ruler_id(tested[key])))
        elif run.side is Side.HEAD and key in heads:
            diff, grade = heads[key], run.ruler
            if run.status is Status.ERROR:
                out.append(replace(run, case_id=ruler_id(diff)))
            elif grade is not None and grade.case_id == diff.base_case:
                ruled = replace(run, case_id=ruler_id(diff), status=grade.status)
                out.append(replace(ruled, score=grade.score, items=list(grade.items)))
    return out


def not_compared(diffs: Iterable[CaseDiff]) -> set[tuple[str, str]]:
    """(suite, case id) whose own base-against-head comparison is not tested: a changed case
    (another task on head), and a changed ruler, whose sides were graded with different
    checks (a stricter check would read as a regression; base's ruler tests it instead)."""
    apart = (CaseChange.CHANGED_CASE, CaseChange.CHANGED_RULER)
    return {(d.suite, d.base_case) for d in diffs if d.change in apart}


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
            continue
        own.setdefault(key, []).append(run.status)
        status = run.ruler.status if run.ruler is not None else None
        ruled.setdefault(key, []).append(Status.ERROR if status is None else status)
    rows: list[RulerRow] = []
    removed: list[Removed] = []
    models = sorted({m for *_, m in base} | {m for *_, m in own})
    for d in diffs:
        if d.change is CaseChange.REMOVED:
            statuses = [s for m in models for s in base.get((d.suite, d.base_case, m), [])]
            removed.append(Removed(d.suite, d.base_case, _tally(statuses)))
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
                    d, m, _tally(b), _tally(ruled[(d.suite, d.head_case, m)]), _tally(h),
                    decision.finding if decision else None,
                    decision.adjusted_p if decision else None,
                )
            )  # fmt: skip
    return RulerReport(tuple(diffs), tuple(rows), tuple(removed))
