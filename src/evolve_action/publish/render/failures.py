"""The comment's failed checks: one row per check that failed, however many runs it failed in.

A check that failed the same way on 12 head runs is one row, "12 of 12 runs, both models",
not twelve: the repetition is a count, and the count is the information. Rows are grouped by
case and check text; the evidence shown is the one most runs gave, with how many runs gave
another. Regressed cases come first, then the cases in the report's order, then the checks
that failed most.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from evolve_action.model.outcomes import RunResult, Side, Status
from evolve_action.publish.render.build.cases import evidence_cell, link
from evolve_action.publish.render.escape import cell
from evolve_action.publish.render.names import CaseIndex
from evolve_action.publish.render.view import FailureRow
from evolve_action.util.text import plural
from evolve_action.verdict.significance import Label

if TYPE_CHECKING:
    from evolve_action.publish.render.report import ReportInput

THRESHOLD = "(the run as a whole)"  # failed by the format's score threshold, not by one check


@dataclass
class _Group:
    suite: str
    case_id: str
    text: str
    models: list[str] = field(default_factory=list)
    evidence: Counter[str] = field(default_factory=Counter)
    runs: int = 0


def _failed_checks(run: RunResult) -> list[tuple[str, str]]:
    items = [(i.text, i.evidence.strip()) for i in run.items if i.passed is False]
    return items or [(THRESHOLD, f"score {run.score:.2f}, below the pass threshold")]


def _groups(report: ReportInput) -> list[_Group]:
    found: dict[tuple[str, str, str], _Group] = {}
    for run in report.runs:
        if run.side is not Side.HEAD or run.status is not Status.FAIL:
            continue
        for text, evidence in _failed_checks(run):
            key = (run.suite, run.case_id, text)
            group = found.setdefault(key, _Group(run.suite, run.case_id, text))
            group.runs += 1
            group.evidence[" ".join(evidence.split())] += 1
            if run.model not in group.models:
                group.models.append(run.model)
    return list(found.values())


def _graded_head_runs(report: ReportInput) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    for c in report.aggregate.cases:
        if c.head is not None:
            out[(c.suite, c.case_id)] = out.get((c.suite, c.case_id), 0) + c.head.graded
    return out


def models_phrase(index: CaseIndex, models: list[str]) -> str:
    """ "both models", "all 3 models", or the models named."""
    return index.every_model(models) or ", ".join(cell(m, 40) for m in models)


def _evidence(counts: Counter[str]) -> str:
    (shown, _), *others = counts.most_common()
    text = evidence_cell(shown, 160) if shown else "(no evidence given)"
    if others:
        rest = sum(c for _, c in others)
        text += f" (another evidence on {plural(rest, 'run')})"
    return text


def failure_rows(report: ReportInput, index: CaseIndex) -> tuple[FailureRow, ...]:
    """One row per (case, failed check) over every head run; regressed cases first."""
    order = {(c.suite, c.case_id): i for i, c in reversed(list(enumerate(report.aggregate.cases)))}
    regressed = {(c.suite, c.case_id) for c in report.aggregate.cases if c.label is Label.REGRESSED}
    graded = _graded_head_runs(report)
    groups = sorted(
        _groups(report),
        key=lambda g: (
            (g.suite, g.case_id) not in regressed,
            order.get((g.suite, g.case_id), len(order)),
            -g.runs,
        ),
    )
    rows = []
    for g in groups:
        total = graded.get((g.suite, g.case_id), g.runs)
        where = models_phrase(index, g.models)
        rows.append(
            FailureRow(
                case=index.named(g.suite, g.case_id),
                model=where,
                runs=f"{g.runs} of {plural(total, 'run')}, {where}",
                failed=g.runs,
                assertion=cell(g.text, 120),
                evidence=_evidence(g.evidence),
                link=link(report, index, g.suite, g.case_id),
            )
        )
    return tuple(rows)
