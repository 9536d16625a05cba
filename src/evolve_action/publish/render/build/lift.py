"""The comment's no-skill parts: the per-skill table's "no skill" and lift cells, the lift's
legend, the "Checks that cannot tell" section and the one line near the top for a skill
whose evals mostly cannot tell (`verdict.lift`, `verdict.discrimination`)."""

from __future__ import annotations

from dataclasses import dataclass

from evolve_action.model.evals import Case, CaseKind
from evolve_action.model.outcomes import Side
from evolve_action.publish.render.build.cases import CaseIndex
from evolve_action.publish.render.build.verdict import p_is, points
from evolve_action.publish.render.escape import cell, code
from evolve_action.publish.render.report import ReportInput
from evolve_action.publish.render.view import CannotTell
from evolve_action.util.text import pct, plural
from evolve_action.verdict.discrimination import Discrimination, ItemRecord, shares

MAX_ITEMS = 30  # rows; past this the section is noise; results.json has every record
SHOWN = 3  # checks named in one grouped row; the rest are counted
SHORT = 44  # characters per check in a grouped row, so its cell stays within four lines
ARM_NAMES = {Side.BASE: "base", Side.HEAD: "head", Side.NO_SKILL: "no skill"}


@dataclass(frozen=True, slots=True)
class LiftCells:
    no_skill: str  # "20%", "—"
    lift: str  # "+60 pts ▲ p = 0.012", "+10 pts (p = 0.41)", "—"

    @property
    def cell(self) -> str:
        """The per-skill table's one no-skill cell: "0%, lift +33 pts ▲ p = 0.005"."""
        if self.no_skill == "—":
            return "—"
        return f"{self.no_skill}, lift {self.lift}" if self.lift != "—" else self.no_skill


def cells(report: ReportInput, rel: str, model: str) -> LiftCells:
    """The per-skill row's no-skill rate and lift; dashes where it had no no-skill arm."""
    found = report.lift.of(rel, model) if report.lift is not None else None
    if found is None:
        return LiftCells("—", "—")
    rate = "—" if found.no_skill_rate is None else pct(found.no_skill_rate)
    if found.lift is None:
        return LiftCells(rate, "—")
    text = points(found.lift)
    if found.helps and found.adjusted_p is not None:
        text += f" ▲ {p_is(found.adjusted_p)}"
    elif found.adjusted_p is not None:
        text += f" ({p_is(found.adjusted_p)}, not significant)"
    return LiftCells(rate, text)


def legend(report: ReportInput) -> str:
    if report.lift is None:
        return ""
    alpha = report.lift.alpha
    gate = (
        " `fail-without-lift` fails the check for a skill without one."
        if report.settings.fail_without_lift
        else " It never fails the check."
    )
    return (
        "Lift: head's pass rate minus the same cases run without the skill. ▲: the skill helps,"
        f" its p adjusted over every skill and case with a no-skill run (a family of its own at"
        f" {alpha:g}, apart from the regression verdict's).{gate}"
    )


def counts(record: ItemRecord) -> str:
    parts = []
    for side, c in record.arms.items():
        parts.append(f"{ARM_NAMES[side]} {c.passed}/{c.passed + c.failed}")
    return " · ".join(parts)


def rows(report: ReportInput, index: CaseIndex) -> tuple[CannotTell, ...]:
    """One row per case, finding and counts: a case whose five checks all pass without the
    skill is one row naming the five, as a failure on twelve runs is one row."""
    groups: dict[tuple[str, str, str, str], list[str]] = {}
    for r in report.discrimination:
        if not r.finding.cannot_tell:
            continue
        why = blame(index.case(r.suite, r.case_id), r.finding)
        if r.unstable_on:
            why += f" ({', '.join(ARM_NAMES[s] for s in r.unstable_on)})"
        groups.setdefault((r.suite, r.case_id, why, counts(r)), []).append(r.text)
    out = []
    for (rel, case_id, why, seen), texts in groups.items():
        named = index.named(rel, case_id)
        out.append(CannotTell(named, checks_cell(texts), cell(why), seen, len(texts)))
    return tuple(out[:MAX_ITEMS])


def checks_cell(texts: list[str]) -> str:
    """The checks of one row, each cut short enough that the cell stays a few lines."""
    if len(texts) == 1:
        return cell(texts[0], 120)
    shown = [cell(t, SHORT) for t in texts[:SHOWN]]
    more = len(texts) - len(shown)
    tail = f"; and {more} more" if more else ""
    return f"{len(texts)} checks: " + "; ".join(shown) + tail


def blame(case: Case | None, finding: Discrimination) -> str:
    """What a finding says, naming what failed: a trigger check that fails everywhere is the
    skill's description at fault, not the check, which only asks whether the skill fired."""
    if case is None or case.kind is not CaseKind.TRIGGER or finding is not Discrimination.BROKEN:
        return finding.why
    if case.should_trigger is False:
        return "the skill fires on a prompt it must not fire on: its description is too broad"
    return "the skill never fires on a prompt it should: its description does not cover it"


def skill_lines(report: ReportInput, index: CaseIndex) -> tuple[str, ...]:
    """One line per skill most of whose check items cannot tell."""
    out = []
    for share in shares(report.discrimination):
        if share.mostly:
            out.append(
                f"⚠️ {code(index.suite_label(share.suite), 60)}: {share.cannot_tell} of"
                f" {plural(share.items, 'check')} cannot tell a good skill from a bad one"
                " (see “Checks that cannot tell”)."
            )
    return tuple(out)
