"""From runs to numbers: per case and side, per suite, per model, overall; deltas; verdicts.

One meaning of "pass rate" everywhere (docs/design.md §Pass rate): passed / (passed + failed)
runs, errors counted and shown but never folded in. A suite's (model's, the whole PR's) pass
rate is the mean of its cases' pass rates, so a case with many runs weighs no more than one
with few. Deltas are head minus base. Every "regressed" and "improved" comes from one decision
over the whole pull request (`verdict.decide`, on the counts gathered here); the per-case
Fisher test and the per-group stratified test (`significance`) are kept as descriptive figures
only.

Trigger runs pass when the skill behaved as it should (fired, or stayed quiet), so a trigger
case's pass rate is evolve's correctness rate; its verdict is evolve's hit-rate rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from evolve_action.model.evals import Case, Suite
from evolve_action.model.outcomes import COMPARED, RunResult, Side
from evolve_action.verdict.decide import Cell, Finding, Verdict, decide
from evolve_action.verdict.sequential import CellKey  # (suite, case id, model)
from evolve_action.verdict.side_stats import (
    TRIGGER_THRESHOLD,
    SideStats,
    Summary,
    consistency,
    side_stats,
    summarize,
)
from evolve_action.verdict.significance import (
    DEFAULT_ALPHA,
    Counts,
    Label,
    TestResult,
    fisher_exact,
    stratified_exact,
)

# What callers read from here; a case's side over its runs is `side_stats`'.
__all__ = [
    "TRIGGER_THRESHOLD",
    "Aggregate",
    "CaseStats",
    "Decider",
    "GroupStats",
    "SideStats",
    "Summary",
    "aggregate",
    "consistency",
    "side_stats",
    "summarize",
]


@dataclass(frozen=True)
class CaseStats:
    suite: str
    case_id: str
    name: str
    model: str
    base: SideStats | None
    head: SideStats | None
    delta: float | None  # head pass rate - base pass rate
    test: TestResult | None  # Fisher's test on this row alone: descriptive, uncorrected
    label: Label  # from the verdict: regressed exactly when the check counts this row
    adjusted_p: float | None = None  # the verdict's, comparable with alpha; None: not tested


@dataclass(frozen=True)
class GroupStats:
    """A suite on one model (`suite` and `model` set), a model, or everything (neither)."""

    suite: str | None
    model: str | None
    base_rate: float | None  # mean of the cases' base pass rates
    head_rate: float | None
    delta: float | None  # head_rate - base_rate, the two numbers a reader sees
    paired_delta: float | None  # mean of per-case deltas over cases graded on both sides
    test: TestResult | None
    label: Label
    labels: Mapping[str, int]  # case label → number of cases
    runs: Mapping[str, Mapping[str, int]]  # side → {passed, failed, errored}


@dataclass(frozen=True)
class Aggregate:
    alpha: float
    cases: list[CaseStats]
    suites: list[GroupStats]
    models: list[GroupStats]
    overall: GroupStats
    verdict: Verdict = field(default_factory=lambda: Verdict(DEFAULT_ALPHA))


def _case_label(
    base: SideStats | None, head: SideStats | None, finding: Finding | None, planned: set[Side]
) -> Label:
    # A side with no run is new or removed only if no run was planned there: a job stopped
    # or cut before making them has not seen the case change.
    if base is None:
        return Label.NOT_RUN if Side.BASE in planned else Label.NEW
    if head is None:
        return Label.NOT_RUN if Side.HEAD in planned else Label.REMOVED
    if not base.graded or not head.graded:
        return Label.ERROR
    return _LABELS.get(finding, Label.UNCHANGED) if finding else Label.UNCHANGED


_LABELS = {Finding.REGRESSED: Label.REGRESSED, Finding.IMPROVED: Label.IMPROVED}


def _cell(base: SideStats | None, head: SideStats | None) -> Cell:
    b = (base.passed, base.failed, base.errored) if base else (0, 0, 0)
    h = (head.passed, head.failed, head.errored) if head else (0, 0, 0)
    return Cell(b[0], b[1], h[0], h[1], b[2], h[2])


def _counts(base: SideStats | None, head: SideStats | None) -> Counts | None:
    if base is None or head is None or not base.graded or not head.graded:
        return None
    return Counts(head.passed, head.failed, base.passed, base.failed)


def _mean(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return math.fsum(known) / len(known) if known else None


def _diff(head: float | None, base: float | None) -> float | None:
    return None if head is None or base is None else head - base


def _group(
    cases: Sequence[CaseStats],
    suite: str | None,
    model: str | None,
    verdict: Verdict,
    parts: Sequence[GroupStats] = (),
) -> GroupStats:
    strata = [c for case in cases if (c := _counts(case.base, case.head)) is not None]
    test = stratified_exact(strata) if strata else None
    labels: dict[str, int] = {}
    for case in cases:
        labels[case.label.value] = labels.get(case.label.value, 0) + 1
    # A group is regressed when anything in it is: one of its rows, or the pooled test of a
    # suite whose part on this model fell (a suite on one model is its own part).
    pooled = verdict.suites.get(suite) if suite is not None else None
    direction = test.direction if test is not None else 0
    found = {p.label for p in parts}
    if pooled is not None and direction < 0 and pooled.finding is Finding.REGRESSED:
        found.add(Label.REGRESSED)
    if pooled is not None and direction > 0 and pooled.finding is Finding.IMPROVED:
        found.add(Label.IMPROVED)
    if labels.get(Label.REGRESSED.value) or Label.REGRESSED in found:
        label = Label.REGRESSED
    elif labels.get(Label.IMPROVED.value) or Label.IMPROVED in found:
        label = Label.IMPROVED
    elif test is not None:
        label = Label.UNCHANGED
    elif cases and all(c.label is Label.NEW for c in cases):
        label = Label.NEW
    elif cases and all(c.label is Label.REMOVED for c in cases):
        label = Label.REMOVED
    else:
        label = Label.ERROR if labels.get(Label.ERROR.value) else Label.UNCHANGED
    runs: dict[str, dict[str, int]] = {}
    for side in COMPARED:
        stats = [s for c in cases if (s := c.base if side is Side.BASE else c.head) is not None]
        runs[side.value] = {
            "passed": sum(s.passed for s in stats),
            "failed": sum(s.failed for s in stats),
            "errored": sum(s.errored for s in stats),
        }
    base_rate = _mean(c.base.pass_rate for c in cases if c.base is not None)
    head_rate = _mean(c.head.pass_rate for c in cases if c.head is not None)
    return GroupStats(
        suite=suite,
        model=model,
        base_rate=base_rate,
        head_rate=head_rate,
        delta=_diff(head_rate, base_rate),
        paired_delta=_mean(c.delta for c in cases),
        test=test,
        label=label,
        labels=labels,
        runs=runs,
    )


Decider = Callable[[Mapping[tuple[str, str, str], Cell], float], Verdict]


def aggregate(
    runs: Iterable[RunResult],
    suites: Iterable[Suite] = (),
    *,
    alpha: float = DEFAULT_ALPHA,
    decide_with: Decider | None = None,
    planned: Collection[tuple[str, str, str, Side]] = (),
    verdict_only: Iterable[RunResult] = (),
    not_compared: Collection[tuple[str, str]] = (),
) -> Aggregate:
    """Everything the comment, the gate and the results files report about `runs`.

    `planned`: (suite, case id, model, side) of every run the job planned, made or not; a
    side planned and never run makes its case "not run" rather than new or removed.

    `decide_with` makes the verdict from the counts: the fixed-N exact tests when None; the
    sequential one (`adaptive_verdict.decider`) when runs were added because of what was seen.

    `verdict_only`: runs the verdict tests and no row shows (base's checks on head's runs,
    `verdict.ruler`); `not_compared`: (suite, case id) whose task the PR changed, shown and
    never tested.

    `suites` supplies case names, kinds and policies; pass head suites before base suites so
    a case changed by the PR is described as it is on head.
    """
    by_rel, known = _known(suites)
    rows = _rows(_by_cell(r for r in runs if r.side in COMPARED), by_rel, known)
    cells = {k: _cell(b, h) for k, _, b, h in rows if k[:2] not in not_compared}
    for key, by_side in _by_cell(verdict_only).items():
        b, h = (side_stats(by_side.get(s, []), None, None) for s in (Side.BASE, Side.HEAD))
        cells[key] = _cell(b, h)
    verdict = (decide_with or decide)(cells, alpha)
    sides_planned: dict[CellKey, set[Side]] = {}
    for rel, case_id, model, side in planned:
        sides_planned.setdefault((rel, case_id, model), set()).add(side)
    cases = [_case_stats(row, verdict, not_compared, sides_planned) for row in rows]
    groups, per_model = _groups(cases, verdict)
    return Aggregate(
        alpha=alpha,
        cases=cases,
        suites=groups,
        models=per_model,
        overall=_group(cases, None, None, verdict, groups),
        verdict=verdict,
    )


Known = dict[tuple[str, str], tuple[int, Case]]  # (suite, case id) → its place and the case
Row = tuple[CellKey, Case | None, SideStats | None, SideStats | None]


def _known(suites: Iterable[Suite]) -> tuple[dict[str, Suite], Known]:
    """Each suite by its path, and each case by (suite, id); the first suite given wins."""
    by_rel: dict[str, Suite] = {}
    known: Known = {}  # a removed case is only on base
    for s in suites:
        by_rel.setdefault(s.rel, s)
        for index, c in enumerate(s.cases):
            known.setdefault((s.rel, c.id), (index, c))
    return by_rel, known


def _by_cell(runs: Iterable[RunResult]) -> dict[CellKey, dict[Side, list[RunResult]]]:
    grouped: dict[CellKey, dict[Side, list[RunResult]]] = {}
    for run in runs:
        key = (run.suite, run.case_id, run.model)
        grouped.setdefault(key, {}).setdefault(run.side, []).append(run)
    return grouped


def _rows(
    grouped: Mapping[CellKey, Mapping[Side, list[RunResult]]],
    by_rel: Mapping[str, Suite],
    known: Known,
) -> list[Row]:
    """One row per cell with each side's statistics, by suite, then model, then the case's
    place in its file. The no-skill arm is not here: it is measured apart (`verdict.lift`)."""

    def order(key: CellKey) -> tuple[str, str, float, str]:
        rel, case_id, model = key
        index = known[(rel, case_id)][0] if (rel, case_id) in known else math.inf
        return (rel, model, index, case_id)

    rows: list[Row] = []
    for key in sorted(grouped, key=order):
        rel, case_id, _ = key
        suite = by_rel.get(rel)
        case = known[(rel, case_id)][1] if (rel, case_id) in known else None
        sides = {
            side: side_stats(sorted(r, key=lambda x: x.repetition), case, suite)
            for side, r in grouped[key].items()
        }
        rows.append((key, case, sides.get(Side.BASE), sides.get(Side.HEAD)))
    return rows


def _case_stats(
    row: Row,
    verdict: Verdict,
    not_compared: Collection[tuple[str, str]],
    sides_planned: Mapping[CellKey, set[Side]],
) -> CaseStats:
    (rel, case_id, model), case, base, head = row
    delta = _diff(head.pass_rate if head else None, base.pass_rate if base else None)
    counts = _counts(base, head)
    test = fisher_exact(counts) if counts is not None else None
    decision = verdict.row((rel, case_id, model))
    finding = decision.finding if decision else None
    if base and head and (rel, case_id) in not_compared:
        label = Label.NOT_COMPARED
    else:
        label = _case_label(base, head, finding, sides_planned.get((rel, case_id, model), set()))
    name = case.label if case else case_id
    adjusted = decision.adjusted_p if decision else None
    return CaseStats(rel, case_id, name, model, base, head, delta, test, label, adjusted)


def _groups(
    cases: Sequence[CaseStats], verdict: Verdict
) -> tuple[list[GroupStats], list[GroupStats]]:
    """Per suite and model, and per model (over its suites' groups)."""
    pairs = sorted({(c.suite, c.model) for c in cases})
    models = sorted({c.model for c in cases})
    groups = [_group([c for c in cases if (c.suite, c.model) == p], *p, verdict) for p in pairs]
    per_model = [
        _group(
            [c for c in cases if c.model == m],
            None,
            m,
            verdict,
            [g for g in groups if g.model == m],
        )
        for m in models
    ]
    return groups, per_model
