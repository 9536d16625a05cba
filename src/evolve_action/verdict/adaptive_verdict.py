"""Runs → the blocks `sequential` reads, and its decisions in the shape of `verdict.Verdict`.

Under `runs: auto` the fixed-N exact tests of `verdict.decide` no longer hold their
false-alarm rate (the runs were added because of what was seen), so `stats.aggregate` is
handed this module's decider instead: the sequential verdict, converted into the same
`Verdict` the table, the headline, the check, the outputs and the exit code read. A row is
*regressed* exactly when its cell, or its case pooled over models where that model fell, is
rejected; a drop that is not is shown as dropped with its adjusted p; a suite is regressed
when its own sequential test is rejected. Rates, deltas and counts are computed as always.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from evolve_action.model.outcomes import RunResult, Side, Status
from evolve_action.verdict.budget import CaseKey
from evolve_action.verdict.decide import (
    CaseVerdict,
    Cell,
    Decision,
    Finding,
    SuiteVerdict,
    Verdict,
    combine,
)
from evolve_action.verdict.sequential import (
    CASE_SHARE,
    CellKey,
    Hypothesis,
    Kind,
    Tally,
    decide,
    tallies,
)
from evolve_action.verdict.sequential import Verdict as SeqVerdict

Decider = Callable[[Mapping[CellKey, Cell], float], Verdict]


def cells_of(runs: Iterable[RunResult], bounds: Sequence[int]) -> dict[CellKey, tuple[Tally, ...]]:
    """Every (suite, case, model)'s blocks: its runs placed by repetition on the schedule."""
    outcomes: dict[CellKey, dict[str, list[tuple[int, bool | None]]]] = {}
    for run in runs:
        if run.side is Side.NO_SKILL:
            continue  # measured apart, in `verdict.lift`'s frame
        passed = None if run.status is Status.ERROR else run.status is Status.PASS
        side = "base" if run.side is Side.BASE else "head"
        key = (run.suite, run.case_id, run.model)
        outcomes.setdefault(key, {}).setdefault(side, []).append((run.repetition, passed))
    return {key: tallies(sides, bounds) for key, sides in outcomes.items()}


Index = dict[tuple[str, ...], Hypothesis]  # (direction, kind, suite, case, model) → hypothesis


def _index(seq: SeqVerdict) -> Index:
    index: Index = {}
    for direction, family in (("drop", seq.drops), ("rise", seq.rises)):
        for h in family:
            index[(direction, h.kind, h.suite, h.case, h.model)] = h
    return index


def _least(hs: Iterable[Hypothesis | None]) -> Hypothesis | None:
    present = [h for h in hs if h is not None]
    return min(present, key=lambda h: h.adjusted_p) if present else None


def _row(key: CellKey, cell: Cell, index: Index) -> Decision:
    suite, case, model = key
    down = [index.get(("drop", Kind.CELL, suite, case, model))]
    up = [index.get(("rise", Kind.CELL, suite, case, model))]
    if cell.shift < 0:  # the pooled case speaks for a model only where that model fell
        down.append(index.get(("drop", Kind.CASE, suite, case, "")))
    if cell.shift > 0:
        up.append(index.get(("rise", Kind.CASE, suite, case, "")))
    fell, rose = _least(down), _least(up)
    if any(h is not None and h.rejected for h in down):
        return Decision(Finding.REGRESSED, fell.adjusted_p if fell else None)
    if cell.shift < 0:
        return Decision(Finding.DROPPED, fell.adjusted_p if fell else 1.0)
    if any(h is not None and h.rejected for h in up):
        return Decision(Finding.IMPROVED, rose.adjusted_p if rose else None)
    return Decision(Finding.UNCHANGED, rose.adjusted_p if rose else None)


def _case(key: CaseKey, cells: Mapping[str, Cell], index: Index) -> CaseVerdict:
    rows = {model: _row((*key, model), c, index) for model, c in cells.items()}
    pooled = index.get(("drop", Kind.CASE, *key, ""))
    rejected = pooled is not None and pooled.rejected
    fell = (Finding.REGRESSED, Finding.DROPPED)
    downs = [r.adjusted_p for r in rows.values() if r.finding in fell and r.adjusted_p is not None]
    if pooled is not None and rejected:
        downs.append(pooled.adjusted_p)
    return combine(rows, cells, regressed=rejected, down=min(downs or [1.0]))


def to_verdict(seq: SeqVerdict, cells: Mapping[CellKey, Cell], alpha: float) -> Verdict:
    """The sequential decisions in the shape every output reads (`verdict.Verdict`), so the
    table, the headline, the check and the exit code show them exactly as they show the
    fixed-N verdict. Waves keep every case detectable: runs are added up to `max-runs`."""
    index = _index(seq)
    cases: dict[CaseKey, dict[str, Cell]] = {}
    for (suite, case_id, model), c in cells.items():
        if c.compared:
            cases.setdefault((suite, case_id), {})[model] = c
    verdicts = {k: _case(k, v, index) for k, v in cases.items()}
    suites: dict[str, SuiteVerdict] = {}
    for h in seq.drops:
        if h.kind is not Kind.SUITE:
            continue
        rise = index.get(("rise", Kind.SUITE, h.suite, "", ""))
        finding, shown = Finding.UNCHANGED, h.adjusted_p
        if h.rejected:
            finding = Finding.REGRESSED
        elif rise is not None and rise.rejected:
            finding, shown = Finding.IMPROVED, rise.adjusted_p
        members = sum(1 for k in cases if k[0] == h.suite)
        suites[h.suite] = SuiteVerdict(finding, shown, members)
    return Verdict(alpha, CASE_SHARE, verdicts, suites)


def decider(runs: Sequence[RunResult], bounds: Sequence[int]) -> Decider:
    """`stats.aggregate`'s decision under `runs: auto`: the sequential verdict on `runs`."""

    def decide_sequentially(cells: Mapping[CellKey, Cell], alpha: float) -> Verdict:
        return to_verdict(decide(cells_of(runs, bounds), alpha), cells, alpha)

    return decide_sequentially
