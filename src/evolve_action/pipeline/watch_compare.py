"""Watch's comparison: this run's counts against the last recorded run of the same cell, decided
by the pull request's own verdict (`verdict.decide`).

A cell is (suite, case, model) and its fingerprint (`cell_fingerprints`): the case, the skill's
files, the model id, the judge and the tool's version, hashed as a run's fingerprint is, with
the repetition fixed and the agent CLI left out (a new CLI version is one of the changes watch
reports, so it must not make the history incomparable). Two runs of a cell with the same
fingerprint ran the same tree on the same model ids: the base of the comparison is the newest
recorded job that graded the cell, skipping jobs where the cell only errored (an error never
moves a baseline) and jobs that flagged the cell's suite (a drop is not the new normal until
someone changes the skill, which changes the fingerprint).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from evolve_action.model.evals import Suite
from evolve_action.model.outcomes import RunResult, Side, Status
from evolve_action.plan.fingerprints import Fingerprinter
from evolve_action.publish import history
from evolve_action.publish.history import CaseHistory, CellKey, Counts, Point, Record
from evolve_action.verdict.decide import Cell, Finding, Verdict, decide


def cell_fingerprints(
    suites: Iterable[Suite], models: Sequence[str], judge_model: str
) -> dict[CellKey, str]:
    """Each (suite, case, model) cell's fingerprint, the agent CLI left out."""
    printer = Fingerprinter(judge_model, "")
    return {
        (suite.rel, case.id, model): printer.run(suite, case, model=model, repetition=1)[:16]
        for suite in suites
        for case in suite.cases
        for model in models
    }


def counts_of(
    runs: Iterable[RunResult], fingerprints: Mapping[CellKey, str]
) -> dict[CellKey, Counts]:
    """The head side's runs counted per cell (the no-skill arm and a base side left out)."""
    tally: dict[CellKey, list[int]] = {}
    for run in runs:
        key = (run.suite, run.case_id, run.model)
        if run.side is not Side.HEAD or key not in fingerprints:
            continue
        slot = tally.setdefault(key, [0, 0, 0])
        slot[{Status.PASS: 0, Status.FAIL: 1}.get(run.status, 2)] += 1
    return {k: Counts(fingerprints[k], *v) for k, v in tally.items()}


@dataclass(frozen=True, slots=True)
class Baseline:
    counts: Counts
    record: Record


def baseline(history: Sequence[Record], key: CellKey, fingerprint: str) -> Baseline | None:
    """The newest recorded job that graded this very cell and did not flag its suite."""
    for record in reversed(history):
        counts = record.cells.get(key)
        if counts is None or counts.fingerprint != fingerprint or not counts.graded:
            continue
        if key[0] in record.flagged:
            continue
        return Baseline(counts, record)
    return None


@dataclass(frozen=True)
class Comparison:
    now: Mapping[CellKey, Counts]
    then: Mapping[CellKey, Baseline]  # the cells with a baseline
    verdict: Verdict | None  # None: no cell was graded on both sides

    @property
    def graded(self) -> int:
        return sum(c.graded for c in self.now.values())

    @property
    def errored(self) -> int:
        return sum(c.errored for c in self.now.values())

    @property
    def regressed_suites(self) -> list[str]:
        if self.verdict is None:
            return []
        named = {k[0] for k in self.verdict.regressed_cases} | set(self.verdict.regressed_suites)
        return sorted(named)

    def compared_suites(self) -> set[str]:
        return {k[0] for k, b in self.then.items() if self.now[k].graded}

    def dropped_cells(self, suite: str) -> list[CellKey]:
        """The suite's cells that fell (regressed or not significant alone), worst first."""
        if self.verdict is None:
            return []
        out = []
        for key in self.then:
            row = self.verdict.row(key)
            if key[0] == suite and row is not None and row.finding in _FELL:
                out.append((row.adjusted_p if row.adjusted_p is not None else 1.0, key))
        return [k for _, k in sorted(out)]


_FELL = (Finding.REGRESSED, Finding.DROPPED)


def compare(history: Sequence[Record], now: Mapping[CellKey, Counts], alpha: float) -> Comparison:
    """This run against each cell's baseline, through the pull request's verdict."""
    then: dict[CellKey, Baseline] = {}
    cells: dict[CellKey, Cell] = {}
    for key, counts in now.items():
        base = baseline(history, key, counts.fingerprint)
        if base is None:
            continue
        then[key] = base
        b = base.counts
        cells[key] = Cell(b.passed, b.failed, counts.passed, counts.failed, 0, counts.errored)
    graded = any(c.compared for c in cells.values())
    return Comparison(now, then, decide(cells, alpha) if graded else None)


@dataclass(frozen=True)
class MainRecord:
    """For a pull request's report: the base cells' record on the default branch."""

    counts: Mapping[CellKey, CaseHistory]  # the newest runs, in words for the comment
    series: Mapping[CellKey, tuple[Point, ...]]  # per recorded job, for the HTML report


NO_RECORD = MainRecord({}, {})
MAX_POINTS = 60  # recorded jobs drawn per case: the newest


def default_branch_records(
    directory: Path | None, suites: Iterable[Suite], models: Sequence[str], judge_model: str
) -> MainRecord:
    """Each base cell's record on the default branch (the very same cell: its fingerprint),
    read once from the history; empty without a history."""
    if directory is None or not models:
        return NO_RECORD
    records = history.read(directory)
    if not records:
        return NO_RECORD
    prints = cell_fingerprints(suites, models, judge_model)
    series = {}
    for key, fingerprint in prints.items():
        points = history.case_series(records, *key[:2], model=key[2], fingerprint=fingerprint)
        if points:
            series[key] = tuple(points[-MAX_POINTS:])
    return MainRecord(history.case_records(records, prints), series)
