"""The user's own A/A: what the verdict made of two independent runs of one unchanged tree.

`evolve-action calibrate` (and the input `mode: calibrate`) runs every eval of the current
tree as two sides, A (labelled base) and B (labelled head), with the same models, judge and
harness, and sends them through the one verdict a pull request gets (`stats.aggregate`,
`decide`). Nothing changed between the sides, so:

- every eval the verdict flags is a **false alarm**; alpha promises that a calibration (one
  "pull request" of these evals) has one at most alpha of the time;
- an eval **moved** when its pass rate differs between the sides (noise, run to run);
- an eval **flipped** when its own pass/fail verdict across runs (`SideStats.verdict`) differs
  between the sides; the **flip rate** is the share of compared rows that flipped — what
  users measure when they rerun byte-identical inputs;
- its **spread** is one standard error of one side's pass rate at the runs made,
  √(p(1−p)/n), from the pass rate p over both sides: how far a side's rate wanders alone;
- `runs_needed` is the fewest graded runs per side at which the verdict would flag a
  complete break of that eval (`break_cell`): the rule below, written once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from evolve_action.util.text import pct, plural
from evolve_action.verdict.budget import MAX_RUNS, at_level
from evolve_action.verdict.decide import Cell, Finding, decide
from evolve_action.verdict.gate import Gate
from evolve_action.verdict.sequential import CellKey
from evolve_action.verdict.significance import Label
from evolve_action.verdict.stats import Aggregate, CaseStats
from evolve_action.verdict.tails import tail


def break_cell(pass_rate: float, runs: int) -> Cell:
    """A complete break of an eval that passes at `pass_rate`, seen with `runs` graded runs per
    side: the unbroken side passes ⌊rate·runs⌋ of them (rounded down, so the figure holds for
    any rate at least the one observed), the broken side none."""
    passed = math.floor(pass_rate * runs + 1e-9)
    return Cell(base_passed=passed, base_failed=runs - passed, head_passed=0, head_failed=runs)


def runs_needed(
    key: CellKey, pass_rate: float, cells: Mapping[CellKey, Cell], alpha: float
) -> int | None:
    """The fewest graded runs per side at which the verdict flags a complete break of `key`
    (`break_cell`), its other cells as observed in `cells`; None when it never passes (there
    is nothing to break) or past `MAX_RUNS`.

    Each candidate is first tested alone, by the verdict's one-sided exact test (`tail`): the
    correction over the other evals only raises a p-value, so a break that is not significant
    alone cannot be flagged in company. Only a candidate that passes alone goes through the
    whole verdict (`decide`), which counts every other eval the way a pull request would.
    """
    for n in range(1, MAX_RUNS + 1):
        broken = break_cell(pass_rate, n)
        if not broken.base_passed or not at_level(tail([broken.margins], 0).p, alpha):
            continue
        verdict = decide({**cells, key: broken}, alpha, detail=False)
        row = verdict.row(key)
        if row is not None and row.finding is Finding.REGRESSED:
            return n
    return None


@dataclass(frozen=True, slots=True)
class Row:
    """One eval on one model: side A (base) against side B (head) of the same tree."""

    suite: str
    case_id: str
    name: str
    model: str
    a_passed: int
    a_graded: int
    b_passed: int
    b_graded: int
    pass_rate: float | None  # over both sides' graded runs; None when none was graded
    spread: float | None  # one standard error of one side's pass rate at these runs
    moved: bool  # the two sides' pass rates differ
    flipped: bool  # the eval's own pass/fail verdict differs between the sides
    flagged: bool  # the verdict called it regressed: a false alarm
    improved: bool  # the verdict called it improved: as false, though it never gates
    runs_needed: int | None  # per side, to flag a complete break (`runs_needed`)


@dataclass(frozen=True, slots=True)
class Calibration:
    alpha: float
    rows: tuple[Row, ...]
    false_alarms: int  # evals, plus skills whose many small drops were flagged together
    flagged_skills: tuple[str, ...]

    @property
    def compared(self) -> list[Row]:
        return [r for r in self.rows if r.a_graded and r.b_graded]

    @property
    def flip_rate(self) -> float | None:
        rows = self.compared
        return sum(r.flipped for r in rows) / len(rows) if rows else None

    @property
    def moved(self) -> list[Row]:
        return [r for r in self.compared if r.moved]


def _row(case: CaseStats, cells: Mapping[CellKey, Cell], alpha: float, flagged: bool) -> Row:
    """`flagged`: the verdict flagged this row's eval, and this row is where it fell."""
    a, b = case.base, case.head
    a_passed, a_graded = (a.passed, a.graded) if a else (0, 0)
    b_passed, b_graded = (b.passed, b.graded) if b else (0, 0)
    graded = a_graded + b_graded
    rate = (a_passed + b_passed) / graded if graded else None
    per_side = min(a_graded, b_graded) or max(a_graded, b_graded)
    spread = math.sqrt(rate * (1 - rate) / per_side) if rate is not None else None
    key = (case.suite, case.case_id, case.model)
    compared = a is not None and b is not None and bool(a_graded and b_graded)
    needed = runs_needed(key, rate, cells, alpha) if rate else None
    return Row(
        suite=case.suite,
        case_id=case.case_id,
        name=case.name,
        model=case.model,
        a_passed=a_passed,
        a_graded=a_graded,
        b_passed=b_passed,
        b_graded=b_graded,
        pass_rate=rate,
        spread=spread,
        moved=compared and a_passed * b_graded != b_passed * a_graded,
        flipped=compared and a is not None and b is not None and a.verdict != b.verdict,
        flagged=flagged,
        improved=case.label is Label.IMPROVED,
        runs_needed=needed,
    )


def _fell(case: CaseStats) -> bool:
    """A row of a flagged eval that carries the flag: regressed itself, or fell (an eval can
    be flagged by the test pooled over its models with no one model's drop flagged alone)."""
    return case.label is Label.REGRESSED or (case.delta is not None and case.delta < 0)


def calibrate(aggregate: Aggregate) -> Calibration:
    """The calibration of an aggregate whose base is side A and whose head is side B."""
    cells = {
        (c.suite, c.case_id, c.model): Cell(
            c.base.passed if c.base else 0,
            c.base.failed if c.base else 0,
            c.head.passed if c.head else 0,
            c.head.failed if c.head else 0,
        )
        for c in aggregate.cases
    }
    verdict = aggregate.verdict
    evals = set(verdict.regressed_cases)
    rows = tuple(
        _row(c, cells, aggregate.alpha, _fell(c) and (c.suite, c.case_id) in evals)
        for c in aggregate.cases
    )
    skills = tuple(verdict.broad_suites)
    return Calibration(aggregate.alpha, rows, len(verdict.regressed_cases) + len(skills), skills)


def calibration_gate(gate: Gate, calibration: Calibration) -> Gate:
    """The check of a calibration. A job that did not make every run keeps the job's gate
    (cancelled, or neutral saying what is missing): a calibration is never green without its
    runs. A complete one is green when nothing was flagged, and neutral with a false alarm:
    alpha allows one in that share of calibrations, so it is news, not a failure."""
    if gate.conclusion != "success":
        return gate
    flips = calibration.flip_rate
    flip = f"flip rate {pct(flips)}" if flips is not None else "nothing compared"
    if calibration.false_alarms:
        alarms = plural(calibration.false_alarms, "false alarm")
        reason = (
            f"{alarms} on an unchanged tree (alpha {calibration.alpha:g}: at most"
            f" {pct(calibration.alpha)} of calibrations have one); {flip}"
        )
        return replace(gate, conclusion="neutral", reason=reason, exit_code=0)
    return replace(gate, reason=f"no false alarm; {flip}", regressions=0)
