"""The comment's headline rates and what to do next.

A rate beside another compares like with like (`verdict.paired`): base and head over the
cases graded on both sides; when a case was not graded on one side the delta cell says the
data is incomplete instead of giving a number. The same rule makes the per-skill rows, the
step outputs and the `min-pass-rate` floor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evolve_action.publish.render.build.verdict import points
from evolve_action.publish.render.names import CaseIndex
from evolve_action.util.text import pct, plural
from evolve_action.verdict.paired import MISSING, paired_rates
from evolve_action.verdict.significance import Label
from evolve_action.verdict.stats import CaseStats

if TYPE_CHECKING:
    from evolve_action.publish.render.report import ReportInput


@dataclass(frozen=True, slots=True)
class Rates:
    base: str  # "85.7%", "—"
    head: str
    delta: str  # "−5.7 pts", "incomplete: …", "—"
    paired: int  # cases graded on both sides
    missing: tuple[str, ...]  # "head", "base": sides a compared case was not graded on
    missing_cases: int
    base_rate: float | None = None  # the figures behind `base` and `head`, for step outputs
    head_rate: float | None = None

    @property
    def delta_rate(self) -> float | None:
        """Head minus base, or None when a side is missing or a case was not graded."""
        if self.missing or self.base_rate is None or self.head_rate is None:
            return None
        return self.head_rate - self.base_rate

    def cell(self) -> str:
        """One table cell: "100% → 33.3% (−66.7 pts)"."""
        if self.missing:
            if not self.paired:
                return f"not graded on {' or '.join(self.missing)}"
            return f"{self.base} → {self.head} (incomplete)"
        return f"{self.base} → {self.head} ({self.delta})"


def _text(rate: float | None) -> str:
    return "—" if rate is None else pct(rate)


def rates(rows: Sequence[CaseStats]) -> Rates:
    """Base and head over the rows graded on both sides; incomplete when one side is missing."""
    found = paired_rates(rows)
    paired, base, head = found.paired, found.base, found.head
    gone = [c for c in rows if c.label in MISSING]
    sides = []
    if any(c.base is None or not c.base.graded for c in gone):
        sides.append("base")
    if any(c.head is None or not c.head.graded for c in gone):
        sides.append("head")
    cases = len({(c.suite, c.case_id) for c in gone})
    if gone:
        delta = f"incomplete: {plural(cases, 'eval')} not graded on {' and '.join(sides)}"
    elif base is None or head is None:
        delta = "—"
    else:
        delta = points(head - base)
    n = len({(c.suite, c.case_id) for c in paired})
    return Rates(_text(base), _text(head), delta, n, tuple(sides), cases, base, head)


def overall(report: ReportInput) -> tuple[str, Rates]:
    """(what the headline row covers, its rates)."""
    rows = report.aggregate.cases
    if not report.has_base:
        head = paired_rates(rows, has_base=False).head
        alone = Rates("—", _text(head), "—", 0, (), 0, None, head)
        return "**all affected evals** (head only)", alone
    found = rates(rows)
    every = len({(c.suite, c.case_id) for c in rows})
    if found.paired == every:
        return "**all affected evals**", found
    return f"**the {plural(found.paired, 'eval')} graded on both sides**", found


def next_steps(report: ReportInput, index: CaseIndex, found: Rates) -> tuple[str, ...]:
    """What the author can do about what the comment says, most pressing first."""
    out = []
    agg = report.aggregate
    regressed = dict.fromkeys(index.name(c) for c in agg.cases if c.label is Label.REGRESSED)
    if regressed or agg.verdict.broad_suites:
        names = list(regressed)[:3] + ([f"{len(regressed) - 3} more"] if len(regressed) > 3 else [])
        which = ", ".join(names) if names else "the skills that regressed as a whole"
        out.append(
            f"Fix the skill for {which}: “why” names the check that now fails, and “Failed"
            " checks” how often. If the change is meant, update those checks instead."
        )
    if report.rulers.hidden:
        out.append(
            "Put back the checks this PR removed or relaxed, or fix the skill: under base's"
            " checks, head's runs regressed (see below)."
        )
    if any(d.flagged for d in report.cost_deltas):
        out.append(
            "Bring down the cost per passing run of the rows marked ⚠️ under “Cost and"
            " behaviour”, or raise `max-cost-increase` if the cost is meant."
        )
    if found.missing:
        out.append(
            f"Run the job again: {plural(found.missing_cases, 'eval')} could not be graded on"
            f" {' and '.join(found.missing)} (see “Errors”), so nothing is claimed about them."
        )
    if any(r.failed for r in report.invalid):  # a file not surely ours is only not run
        out.append(
            "Fix the invalid eval files listed below: `evolve-action validate` shows each"
            " problem at its line."
        )
    if agg.verdict.too_few_runs:
        out.append("Raise `runs` where “Too few runs to tell” says, to be able to flag a break.")
    return tuple(out)
