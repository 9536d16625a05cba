"""The calibration's Markdown: the job summary, the check run's text and the local printout.

One page, read top to bottom: the headline (the gate's reason), the measured flip rate and
the false alarms in a sentence each, then one row per eval and model with both sides' passes,
the spread and the runs per side a complete break would need. Eval names come from the PR's
files, so they go through `escape` like every other quoted text.
"""

from __future__ import annotations

from collections.abc import Sequence

from evolve_action.publish.render.build.assemble import points
from evolve_action.publish.render.escape import cell, code
from evolve_action.publish.render.names import NAME_LIMIT
from evolve_action.util.text import pct, plural
from evolve_action.verdict.budget import MAX_RUNS
from evolve_action.verdict.calibration import Calibration, Row
from evolve_action.verdict.gate import Gate

TITLE = "evolve calibration"


def headline(gate: Gate) -> str:
    return f"{gate.icon} {TITLE}: {gate.reason}"


def flip_sentence(calibration: Calibration) -> str:
    rows = calibration.compared
    if not rows:
        return "No eval was graded on both sides: nothing to compare, no flip rate."
    flips = sum(r.flipped for r in rows)
    rate = calibration.flip_rate or 0.0
    moved = len(calibration.moved)
    return (
        f"**Flip rate {pct(rate)}**: {flips} of {plural(len(rows), 'eval')} changed their own"
        f" pass/fail verdict between two runs of the same tree; {moved} moved their pass rate."
    )


def alarm_sentence(calibration: Calibration, *, complete: bool = True) -> str:
    alpha = pct(calibration.alpha)
    if not calibration.false_alarms and not complete:
        return (
            "**No false alarm in the runs made**; with runs missing, that says less than a"
            " whole calibration would."
        )
    if not calibration.false_alarms:
        return (
            f"**No false alarm**: the verdict flagged nothing. It promises a false alarm in at"
            f" most {alpha} of calibrations like this one."
        ) + _improved(calibration)
    named = [f"{_name(r)} on {code(r.model, 40)}" for r in calibration.rows if r.flagged]
    named += [f"skill {code(s, 60)} (many small drops)" for s in calibration.flagged_skills]
    return (
        f"**{plural(calibration.false_alarms, 'false alarm')}**: {', '.join(named)}. Nothing"
        f" changed, so each is false; alpha allows this in {alpha} of calibrations. If it"
        f" recurs on later calibrations, these evals are less stable than their runs show."
    ) + _improved(calibration)


def _improved(calibration: Calibration) -> str:
    """Improvements never change a check, but in an A/A they are as false: say so."""
    up = [r for r in calibration.rows if r.improved]
    if not up:
        return ""
    return f" Called improved, as falsely (an improvement never changes the check): {len(up)}."


def _name(row: Row) -> str:
    """The eval's one name, as the comment writes it: its name, with its id where they differ."""
    if row.name and row.name != row.case_id:
        return f"{cell(row.name, NAME_LIMIT)} {code(row.case_id, NAME_LIMIT)}"
    return code(row.case_id, NAME_LIMIT)


def _needed(row: Row) -> str:
    if not row.pass_rate:
        return "— (never passes)" if row.pass_rate == 0 else "—"
    return str(row.runs_needed) if row.runs_needed else f"more than {MAX_RUNS}"


def _side(passed: int, graded: int) -> str:
    return f"{passed}/{graded}" if graded else "—"


def _spread(row: Row) -> str:
    if row.spread is None:
        return "—"
    return points(row.spread).replace("+", "±").replace("±0 pts", "0 pts")


def table(calibration: Calibration) -> list[str]:
    lines = [
        "| eval | model | side A | side B | moved | spread | runs per side to catch a break |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in calibration.rows:
        moved = "flagged ❗" if r.flagged else ("moved" if r.moved else "")
        if r.improved:
            moved = "called improved"
        if r.flipped:
            moved = f"{moved}, flipped" if moved else "flipped"
        lines.append(
            f"| {_name(r)} | {code(r.model, 40)} | {_side(r.a_passed, r.a_graded)}"
            f" | {_side(r.b_passed, r.b_graded)} | {moved} | {_spread(r)} | {_needed(r)} |"
        )
    return lines


def markdown(
    calibration: Calibration, gate: Gate, *, notices: Sequence[str] = (), complete: bool = True
) -> str:
    """The whole calibration report; `complete`: every planned run was made and graded."""
    lines = [f"### {headline(gate)}", ""]
    lines += [f"> {n}" for n in notices] + ([""] if notices else [])
    lines += [flip_sentence(calibration), "", alarm_sentence(calibration, complete=complete), ""]
    lines += table(calibration)
    lines += [
        "",
        "<sub>Both sides ran this tree with the same models, judge and harness, and nothing"
        " from the run cache. Spread: one standard error of one side's pass rate at these"
        " runs. Runs per side to catch a break: the fewest at which the verdict would flag"
        " this eval falling from its pass rate here to 0, next to the other evals as"
        " measured.</sub>",
    ]
    return "\n".join(lines) + "\n"
