"""The verdict's parts of the comment: the regressed rows (exactly the rows the check counts),
skills that regressed as a whole, drops that are not significant, and the evals whose runs
were too few to tell. Helpers of `render.build.assemble`; every claim is read from
`aggregate.verdict`, never recomputed here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from evolve_action.publish.render.build.cases import MAX_PHRASES, CaseIndex, counts, link, why
from evolve_action.publish.render.escape import cell, code
from evolve_action.publish.render.view import CaseRow
from evolve_action.util.text import pct, plural
from evolve_action.verdict.budget import CaseKey
from evolve_action.verdict.decide import Finding
from evolve_action.verdict.gate import runs_phrase
from evolve_action.verdict.significance import Label
from evolve_action.verdict.stats import CaseStats, GroupStats, SideStats

if TYPE_CHECKING:
    from evolve_action.publish.render.report import ReportInput

MAX_DROPS = 20  # past this the drops table reads as noise; results.json has them all


def points(delta: float) -> str:
    """A difference of rates in percentage points: "+8.3 pts", "−10 pts", "±0 pts"."""
    value = round(delta * 100, 1)
    if value == 0:
        return "±0 pts"
    text = f"{abs(value):.1f}".removesuffix(".0")
    return f"{'+' if value > 0 else '−'}{text} pts"


def p_text(p: float) -> str:
    if p < 0.001:
        return "<0.001"
    return f"{p:.3f}" if p < 0.01 else f"{p:.2f}"


def p_is(p: float) -> str:
    """The p-value as a claim: `p = 0.03`, `p < 0.001`."""
    text = p_text(p)
    return f"p {text[0]} {text[1:]}" if text.startswith("<") else f"p = {text}"


def shown(s: SideStats | None) -> str:
    """Passed of graded runs, and the errored ones beside them: they are neither."""
    text = counts(s)
    return f"{text} +{s.errored} errored" if s is not None and s.errored else text


def _row(report: ReportInput, index: CaseIndex, c: CaseStats, p_value: str) -> CaseRow:
    return CaseRow(
        case=index.name(c),
        link=link(report, index, c.suite, c.case_id),
        model=cell(c.model, 80),
        base=shown(c.base),
        head=shown(c.head),
        p_value=p_value,
        why=why(report, c) + on_main(report, c),
    )


def on_main(report: ReportInput, c: CaseStats) -> str:
    """ " · on main: passed 40 of the last 42 runs", when the default branch's history has
    enough runs of this very case to tell a flaky one from a regression."""
    found = report.main_record.get((c.suite, c.case_id, c.model))
    return f" · on main: {found.words()}" if found is not None and found.telling else ""


def regression_rows(report: ReportInput, index: CaseIndex) -> tuple[CaseRow, ...]:
    """The rows the check counts as regressed, with their adjusted p-values; a case that
    regressed the same way on every model is one row ("both models")."""
    found = [
        _row(report, index, c, p_text(c.adjusted_p if c.adjusted_p is not None else 1.0))
        for c in report.aggregate.cases
        if c.label is Label.REGRESSED
    ]
    return merged(index, found)


def merged(index: CaseIndex, found: list[CaseRow]) -> tuple[CaseRow, ...]:
    """Rows equal but for their model as one row naming the models, in first-seen order."""
    groups: dict[tuple[str, ...], list[CaseRow]] = {}
    for r in found:
        groups.setdefault((r.case, r.link, r.base, r.head, r.p_value, r.why), []).append(r)
    out = []
    for rows in groups.values():
        models = [r.model for r in rows]
        where = index.every_model(models) or ", ".join(models)  # already escaped
        out.append(replace(rows[0], model=where))
    return tuple(out)


def _dropped(c: CaseStats) -> bool:
    return c.label is Label.UNCHANGED and c.delta is not None and c.delta < 0


def drop_rows(report: ReportInput, index: CaseIndex) -> tuple[CaseRow, ...]:
    """Rows that fell without being significant once the whole pull request is counted."""
    found = [c for c in report.aggregate.cases if _dropped(c)]
    out = list(
        merged(
            index,
            [
                _row(report, index, c, f"{p_text(c.adjusted_p or 1.0)} · not significant")
                for c in found[:MAX_DROPS]
            ],
        )
    )
    if len(found) > MAX_DROPS:
        more = f"… {plural(len(found) - MAX_DROPS, 'more drop')} in results.json"
        out.append(CaseRow(more, "", "", "", "", "", ""))
    return tuple(out)


def regressed_skills(report: ReportInput, index: CaseIndex) -> tuple[str, ...]:
    """One sentence per skill whose pooled test fired: many small drops that add up."""
    agg = report.aggregate
    out = []
    for rel in agg.verdict.broad_suites:
        rows = [c for c in agg.cases if c.suite == rel and c.base and c.head]
        base = sum(c.base.passed for c in rows if c.base)
        head = sum(c.head.passed for c in rows if c.head)
        base_n = sum(c.base.graded for c in rows if c.base)
        head_n = sum(c.head.graded for c in rows if c.head)
        fell = len({c.case_id for c in rows if c.delta is not None and c.delta < 0})
        adjusted = agg.verdict.suites[rel].adjusted_p or 0.0
        alone = agg.verdict.cases
        lone = [k for k in alone if k[0] == rel and alone[k].finding is Finding.REGRESSED]
        tail = "" if lone else "; none of them is significant alone"
        out.append(
            f"{code(index.skill_label(rel), 60)}: {plural(fell, 'eval')} fell together"
            f" ({base}/{base_n} → {head}/{head_n} runs passed, {p_is(adjusted)} adjusted){tail}"
        )
    return tuple(out)


def _first(report: ReportInput, key: CaseKey) -> CaseStats:
    return next(c for c in report.aggregate.cases if (c.suite, c.case_id) == key)


def too_few(report: ReportInput, index: CaseIndex) -> tuple[str, ...]:
    """Where even a complete break could not have been flagged: which evals, why, what would do."""
    verdict = report.aggregate.verdict
    groups: dict[tuple[int, int, int | None], list[CaseKey]] = {}
    for key in verdict.too_few_runs:
        case = verdict.cases[key]
        groups.setdefault((case.runs, len(case.rows), case.runs_needed), []).append(key)
    compared = plural(len(verdict.cases), "eval")
    out = []
    for (runs, models, needed), keys in groups.items():
        names = [index.name(_first(report, k)) for k in keys[:MAX_PHRASES]]
        if len(keys) > MAX_PHRASES:
            names.append(f"and {len(keys) - MAX_PHRASES} more")
        where = "" if models == 1 else f" on each of {models} models"
        text = (
            f"{', '.join(names)}: with {plural(runs, 'graded run')} per side, even"
            f" {runs}/{runs} → 0/{runs}{where} could not be flagged among the {compared}"
            f" compared here; {runs_phrase(needed)} would do"
        )
        errored = sum(verdict.cases[k].errored for k in keys)
        if errored:
            text += f" ({plural(errored, 'run')} errored: errors count as neither pass nor fail)"
        out.append(text)
    return tuple(out)


def group_verdict(report: ReportInput, g: GroupStats) -> str:
    """The per-model table's verdict cell for a suite on one model."""
    parts = []
    verdict = report.aggregate.verdict
    pooled = verdict.suites.get(g.suite or "")
    direction = g.test.direction if g.test is not None else 0
    if pooled is not None and pooled.adjusted_p is not None and direction:
        if g.suite in verdict.broad_suites and direction < 0:
            parts.append(f"**regressed as a whole** ({p_is(pooled.adjusted_p)} adjusted)")
        if pooled.finding is Finding.IMPROVED and direction > 0:
            parts.append(f"**improved as a whole** ({p_is(pooled.adjusted_p)} adjusted)")
    rows = [c for c in report.aggregate.cases if (c.suite, c.model) == (g.suite, g.model)]
    dropped = sum(1 for c in rows if _dropped(c))
    for lab, word in (
        (Label.REGRESSED, "▼ {} regressed"),
        ("dropped", "▽ {} dropped (not significant)"),
        (Label.IMPROVED, "▲ {} improved"),
        (Label.NEW, "{} new"),
        (Label.REMOVED, "{} removed"),
        (Label.ERROR, "{} errored"),
        (Label.NOT_RUN, "{} not run on one side"),
        (Label.NOT_COMPARED, "{} changed by this PR, not compared"),
    ):
        n = dropped if lab == "dropped" else g.labels.get(str(lab), 0)
        if n:
            parts.append(word.format(n))
    return " · ".join(parts) or "no significant change"


def legend(report: ReportInput) -> str:
    """What the adjusted p-values mean, when the comment shows any."""
    alpha = report.aggregate.alpha
    return (
        f"p-values are adjusted for every eval, model and skill this pull request compared: a"
        f" row is regressed when its adjusted p is at most {alpha:g}, so a change that made"
        f" nothing worse turns the check red at most {pct(alpha)} of the time."
    )
