"""Runs → the blocks `sequential` reads, and the aggregate the report shows, judged by it.

Under `runs: auto` the fixed-N exact tests of `stats` no longer hold their false-alarm rate
(the runs were added because of what was seen), so the labels the comment, the check and
the exit code read are replaced by the sequential verdict: a row is *regressed* exactly when
its case (or its cell on that model) is rejected, a suite on a model when its suite is or one
of its rows is. Everything else in the aggregate (rates, deltas, counts) stays as computed.

This is the bridge to today's `gate`; the verdict of issue 11 takes the same inputs (counts
per cell) and can read `sequential.Verdict` directly instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from evolve_action.adaptive import Design, Effort
from evolve_action.outcomes import RunResult, Side, Status
from evolve_action.sequential import CellKey, Hypothesis, Kind, Tally, Verdict, tallies
from evolve_action.significance import Label, TestResult
from evolve_action.stats import Aggregate, CaseStats, GroupStats

METHOD = "sequential e-value"


def cells_of(runs: Iterable[RunResult], bounds: Sequence[int]) -> dict[CellKey, tuple[Tally, ...]]:
    """Every (suite, case, model)'s blocks: its runs placed by repetition on the schedule."""
    outcomes: dict[CellKey, dict[str, list[tuple[int, bool | None]]]] = {}
    for run in runs:
        passed = None if run.status is Status.ERROR else run.status is Status.PASS
        side = "base" if run.side is Side.BASE else "head"
        key = (run.suite, run.case_id, run.model)
        outcomes.setdefault(key, {}).setdefault(side, []).append((run.repetition, passed))
    return {key: tallies(sides, bounds) for key, sides in outcomes.items()}


def _test(h: Hypothesis, direction: int, strata: int) -> TestResult:
    return TestResult(h.adjusted_p, h.adjusted_p, direction, METHOD, strata)


Index = dict[tuple[str, ...], Hypothesis]  # (direction, kind, suite, case, model) → hypothesis


def _case_label(c: CaseStats, index: Index) -> CaseStats:
    if c.label in (Label.NEW, Label.REMOVED, Label.ERROR):
        return c
    cell = index.get(("drop", Kind.CELL, c.suite, c.case_id, c.model))
    case = index.get(("drop", Kind.CASE, c.suite, c.case_id, ""))
    down = c.delta is not None and c.delta < 0
    up = c.delta is not None and c.delta > 0
    drops = [h for h in (cell, case) if h is not None]
    rises = [
        h
        for h in (
            index.get(("rise", Kind.CELL, c.suite, c.case_id, c.model)),
            index.get(("rise", Kind.CASE, c.suite, c.case_id, "")),
        )
        if h is not None
    ]
    regressed = [h for h in drops if h.rejected and (h.kind is Kind.CELL or down)]
    improved = [h for h in rises if h.rejected and (h.kind is Kind.CELL or up)]
    label, direction = Label.UNCHANGED, (-1 if down else 1 if up else 0)
    pool = drops if down else rises
    if regressed:
        label, direction, pool = Label.REGRESSED, -1, regressed
    elif improved and not down:
        label, direction, pool = Label.IMPROVED, 1, improved
    shown: Hypothesis | None = min(pool, key=lambda h: h.adjusted_p) if pool else None
    test = _test(shown, direction, 1) if shown is not None else c.test
    return replace(c, label=label, test=test)


def _group_label(g: GroupStats, members: list[CaseStats], suite_fell: bool) -> GroupStats:
    labels: dict[str, int] = {}
    for c in members:
        labels[c.label.value] = labels.get(c.label.value, 0) + 1
    if suite_fell or labels.get(Label.REGRESSED.value):
        label = Label.REGRESSED
    elif labels.get(Label.IMPROVED.value):
        label = Label.IMPROVED
    elif g.label in (Label.NEW, Label.REMOVED, Label.ERROR):
        label = g.label
    else:
        label = Label.UNCHANGED
    return replace(g, label=label, labels=labels)


def relabel(aggregate: Aggregate, verdict: Verdict) -> Aggregate:
    """The aggregate with every label and shown p-value taken from the sequential verdict."""
    index: Index = {}
    for direction, family in (("drop", verdict.drops), ("rise", verdict.rises)):
        for h in family:
            index[(direction, h.kind, h.suite, h.case, h.model)] = h
    cases = [_case_label(c, index) for c in aggregate.cases]
    fell = verdict.regressed_suites
    # A suite's drop is over all its models: shown on the models where it fell (all if none).
    falling = {
        (g.suite, g.model) for g in aggregate.suites if g.suite in fell and (g.delta or 0) < 0
    }
    falling |= {
        (g.suite, g.model)
        for g in aggregate.suites
        if g.suite in fell and not any(s == g.suite for s, _ in falling)
    }

    def members(g: GroupStats) -> list[CaseStats]:
        return [
            c
            for c in cases
            if (g.suite is None or c.suite == g.suite) and (g.model is None or c.model == g.model)
        ]

    def suite_row(g: GroupStats) -> GroupStats:
        out = _group_label(g, members(g), (g.suite, g.model) in falling)
        suite = index.get(("drop", Kind.SUITE, g.suite or "", "", ""))
        if suite is None:
            return out
        return replace(out, test=_test(suite, -1 if (g.delta or 0) < 0 else 1, len(members(g))))

    def pooled(g: GroupStats) -> GroupStats:
        # No hypothesis spans a model or the whole PR: their rows show the change, no verdict.
        label = g.label if g.label in (Label.NEW, Label.REMOVED, Label.ERROR) else Label.UNCHANGED
        return replace(_group_label(g, members(g), False), label=label, test=None)

    return replace(
        aggregate,
        cases=cases,
        suites=[suite_row(g) for g in aggregate.suites],
        models=[pooled(g) for g in aggregate.models],
        overall=pooled(aggregate.overall),
    )


def settings_entry(effort: Effort | None) -> dict[str, object]:
    """What results.json records of the design, so `report` can judge the runs the same way."""
    if effort is None:
        return {}
    design = effort.design
    return {"adaptive": {"start": design.start, "max_runs": design.max_runs, "waves": effort.waves}}


def bounds_of(entry: object) -> tuple[int, ...] | None:
    """The schedule recorded by `settings_entry`, or None (fixed runs, or an unreadable entry)."""
    if not isinstance(entry, dict):
        return None
    start, max_runs = entry.get("start"), entry.get("max_runs")
    if not isinstance(start, int) or not isinstance(max_runs, int) or not 1 <= start <= max_runs:
        return None
    return Design(start, max_runs).bounds


def judged(aggregate: Aggregate, runs: Sequence[RunResult], bounds: Sequence[int]) -> Aggregate:
    """`aggregate` judged sequentially, from the runs it was computed from."""
    from evolve_action.sequential import decide

    return relabel(aggregate, decide(cells_of(runs, bounds), aggregate.alpha))
