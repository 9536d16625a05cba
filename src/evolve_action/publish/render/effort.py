"""The effort part of the comment under `runs: auto`: where the runs went, and what was not run.

One summary line (the start runs, how many cases got more, in how many waves), a table of
the cases whose runs differ from the start, one line per reason runs were cut ("3 cases
stopped at 4 runs: budget"), and the tokens saved against the fixed design that would give
every case as many runs as the most-run one got. Ids pass through `code`, cells through `cell`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from evolve_action.publish.render.escape import cell, code
from evolve_action.publish.render.names import CaseIndex
from evolve_action.publish.render.view import EffortRow
from evolve_action.util.text import plural
from evolve_action.verdict.adaptive import Effort, Stop

if TYPE_CHECKING:
    from evolve_action.publish.render.report import ReportInput

MAX_ROWS = 20
CUT = (Stop.BUDGET, Stop.TIME, Stop.CAP, Stop.STOPPED)  # stopped while the verdict was open
_WHY = {
    Stop.BUDGET: "budget",
    Stop.TIME: "max-minutes",
    Stop.CAP: "max-runs (still open)",
    Stop.STOPPED: "the job was stopped",
}


def summary(effort: Effort) -> str:
    start = effort.design.start
    cases = {c.key[:2] for c in effort.extended}
    if not cases and any(c.stop in CUT for c in effort.cells):
        return f"`runs: auto`: {plural(start, 'run')} per side; no wave of extra runs started."
    if not cases:
        return (
            f"`runs: auto`: every case settled at its {plural(start, 'start run')} per side;"
            " no verdict was open."
        )
    waves = plural(effort.waves, "wave")
    return (
        f"`runs: auto`: {plural(start, 'run')} per side to start, then {waves} of extra runs"
        f" where the verdict was still open: {plural(len(cases), 'case')} got more."
    )


def rows(effort: Effort, index: CaseIndex | None = None) -> tuple[EffortRow, ...]:
    """Cells whose runs differ from the start (or between sides), most runs first."""
    start = effort.design.start
    shown = [
        c
        for c in effort.cells
        if c.stop is not Stop.ONE_SIDE
        and (max(c.base_runs, c.head_runs) > start or c.base_runs != c.head_runs)
    ]
    shown.sort(key=lambda c: (-max(c.base_runs, c.head_runs), c.key))
    return tuple(
        EffortRow(
            case=index.named(c.key[0], c.key[1]) if index is not None else code(c.key[1], 60),
            model=cell(c.key[2], 60),
            base=c.base_runs,
            head=c.head_runs,
            stopped=cell(c.stop.value, 60),
        )
        for c in shown[:MAX_ROWS]
    )


def cut(effort: Effort) -> tuple[str, ...]:
    """Lines like "3 cases stopped at 4 runs: budget", per reason and run count."""
    groups: dict[tuple[Stop, int], set[tuple[str, str]]] = {}
    for c in effort.cells:
        if c.stop in CUT:
            runs = min(c.base_runs, c.head_runs)
            groups.setdefault((c.stop, runs), set()).add(c.key[:2])
    return tuple(
        f"{plural(len(cases), 'case')} stopped at {plural(runs, 'run')}: {_WHY[stop]}"
        for (stop, runs), cases in sorted(groups.items(), key=lambda kv: (kv[0][0], -kv[0][1]))
    )


def saved(report: ReportInput, effort: Effort) -> str:
    """Runs and tokens a fixed design with the most-run cell's runs everywhere would add."""
    most = effort.most
    if most <= effort.design.start:
        return ""
    tokens: dict[tuple[str, str, str, str], list[int]] = {}
    for run in report.runs:
        used = run.transcript.usage.total_tokens + run.judge.usage.total_tokens
        tokens.setdefault((run.suite, run.case_id, run.model, run.side.value), []).append(used)
    every = [t for ts in tokens.values() for t in ts]
    overall = math.fsum(every) / len(every) if every else 0.0
    runs = 0
    spared = 0.0
    for c in effort.cells:
        for side, count in (("base", c.base_runs), ("head", c.head_runs)):
            if count == 0:
                continue
            known = tokens.get((*c.key, side))
            per_run = math.fsum(known) / len(known) if known else overall
            runs += most - count
            spared += (most - count) * per_run
    if runs <= 0:
        return ""
    from evolve_action.publish.render.report import tokens as in_tokens

    return (
        f"Against a fixed {plural(most, 'run')} per side for every case, this saved"
        f" {plural(runs, 'run')} (≈{in_tokens(round(spared))} tokens)."
    )


def lines(report: ReportInput) -> tuple[tuple[str, ...], tuple[EffortRow, ...]]:
    """(the effort sentences, the table of cases whose runs differ); empty for fixed runs."""
    effort = report.effort
    if effort is None:
        return (), ()
    text = [summary(effort), *cut(effort)]
    if note := saved(report, effort):
        text.append(note)
    return tuple(text), rows(effort, CaseIndex.of(report))
