"""The per-case parts of the comment: short phrases, suggestions, errors, invalid files and
what was not run. Helpers of `render.build.assemble` (the verdict's parts, the regressed and dropped
rows, are in `render.build.verdict`; the failed checks in `render.failures`; each case's one
name in `render.names`).

Every string returned here is ready for Markdown: ids go through `code`, table cells through
`cell`, prose through `inline`. Nothing quoted from a model or an eval file leaves unescaped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from evolve_action.model.evals import LoadResult
from evolve_action.model.outcomes import ErrorKind, RunResult, Side, Status
from evolve_action.model.spend import money
from evolve_action.model.trajectory import conclusion
from evolve_action.publish.render.escape import cell, code, inline
from evolve_action.publish.render.names import CaseIndex as CaseIndex
from evolve_action.publish.render.view import Problem, Suggestion
from evolve_action.publish.results.skill_creator import aggregate_feedback
from evolve_action.util.text import plural
from evolve_action.verdict.significance import Label
from evolve_action.verdict.stats import CaseStats, SideStats

if TYPE_CHECKING:
    from evolve_action.publish.render.report import ReportInput

MAX_SKIPS = 10  # skip reasons repeat; a few examples say enough
MAX_PHRASES = 20  # per list (improved, new, ...): past this a list reads as noise


def evidence_cell(text: str, limit: int) -> str:
    """A check's evidence as one escaped cell of at most about `limit` characters. A
    trajectory check's conclusion (where the observed calls parted from the expected ones)
    is kept whole, up to half the room; the expected and observed sequences share the rest."""
    flat = " ".join(text.split())
    expected, observed, tail = conclusion(flat)
    if not tail or len(flat) <= limit:
        return cell(flat, limit)
    room = min(len(tail), limit // 2)
    rest = limit - room - len("; observed: ; ")
    # Each sequence gets half of the rest, and what the other one does not need.
    own = min(len(expected), max(rest // 2, rest - len(observed)))
    sequences = f"{cell(expected, own)}; observed: {cell(observed, rest - own)}"
    return f"{sequences}; {cell(tail, room)}"


def link(report: ReportInput, index: CaseIndex, rel: str, case_id: str) -> str:
    entry = index.cases.get((rel, case_id))
    if entry is None or not entry[2]:
        return ""
    return report.event.blob_url(entry[2], rel, entry[1].origin.line)


def counts(s: SideStats | None) -> str:
    return f"{s.passed}/{s.graded}" if s is not None and s.graded else "—"


def _runs_of(report: ReportInput, c: CaseStats, side: Side) -> list[RunResult]:
    key = (c.suite, c.case_id, c.model, side)
    found = [r for r in report.runs if (r.suite, r.case_id, r.model, r.side) == key]
    return sorted(found, key=lambda r: r.repetition)


def why(report: ReportInput, c: CaseStats) -> str:
    """The first failed item of the first failed head run: "text → evidence"."""
    for run in _runs_of(report, c, Side.HEAD):
        if run.status is not Status.FAIL:
            continue
        for item in run.items:
            if item.passed is False:
                said = evidence_cell(item.evidence, 100)
                evidence = f" → {said}" if item.evidence.strip() else ""
                return cell(item.text, 100) + evidence
        return f"score {run.score:.2f}, below the pass threshold"
    return ""


def _by_case(items: Iterable[CaseStats]) -> dict[tuple[str, str], list[CaseStats]]:
    out: dict[tuple[str, str], list[CaseStats]] = {}
    for c in items:
        out.setdefault((c.suite, c.case_id), []).append(c)
    return out


def _where(index: CaseIndex, models: Sequence[str]) -> str:
    if len(index.models) <= 1:
        return ""
    if set(models) == set(index.models):
        return " on both models" if len(models) == 2 else f" on all {len(models)} models"
    return " on " + ", ".join(cell(m, 60) for m in models)


def _phrase(index: CaseIndex, group: list[CaseStats], label: Label) -> str:
    def shown(c: CaseStats) -> str:
        if label is Label.NEW:
            return counts(c.head)
        if label is Label.REMOVED:
            return ""
        return f"{counts(c.base)} → {counts(c.head)}"

    texts = [shown(c) for c in group]
    name = index.name(group[0]) + _where(index, [c.model for c in group])
    if not any(texts):
        return name
    if len(set(texts)) == 1:
        return f"{name} ({texts[0]})"
    detail = ", ".join(f"{cell(c.model, 60)}: {t}" for c, t in zip(group, texts, strict=True))
    return f"{name} ({detail})"


def _capped(index: CaseIndex, chosen: Iterable[CaseStats], label: Label) -> tuple[str, ...]:
    groups = list(_by_case(chosen).values())
    out = [_phrase(index, g, label) for g in groups[:MAX_PHRASES]]
    if len(groups) > MAX_PHRASES:
        out.append(f"and {len(groups) - MAX_PHRASES} more in results.json")
    return tuple(out)


def phrases(report: ReportInput, index: CaseIndex, label: Label) -> tuple[str, ...]:
    """Rows with this label, one phrase per case (its models named when not all)."""
    return _capped(index, (c for c in report.aggregate.cases if c.label is label), label)


def unchanged_failures(report: ReportInput, index: CaseIndex) -> tuple[str, ...]:
    """Failing on both sides and not lower on head (a drop is listed with the drops)."""
    chosen = (
        c
        for c in report.aggregate.cases
        if c.label is Label.UNCHANGED
        and c.base
        and c.head
        and c.base.failed
        and c.head.failed
        and not (c.delta is not None and c.delta < 0)
    )
    return _capped(index, chosen, Label.UNCHANGED)


def suggestions(report: ReportInput, index: CaseIndex) -> tuple[Suggestion, ...]:
    suite_of = {r.case_id: r.suite for r in report.runs}
    out = []
    for entry in aggregate_feedback(report.runs):
        names = [index.named(suite_of.get(i, ""), i) for i in entry.case_ids[:3]]
        if len(entry.case_ids) > 3:
            names.append(f"+{len(entry.case_ids) - 3}")
        target = ", ".join(names)
        if entry.assertion:
            target = f"{target} / {code(entry.assertion, 80)}" if target else code(entry.assertion)
        reason = _unprefixed(entry.reason, entry.case_ids)
        out.append(Suggestion(entry.frequency, target, inline(reason, 300)))
    return tuple(out)


def _unprefixed(reason: str, case_ids: Sequence[str]) -> str:
    """The reason without a leading "<case id>:" that the line already names before it."""
    for case_id in case_ids:
        for lead in (f"{case_id}:", f"`{case_id}`:", f"{case_id} -", f"`{case_id}` -"):
            if reason.lower().startswith(lead.lower()) and reason[len(lead) :].strip():
                return reason[len(lead) :].strip()
    return reason


def errors(report: ReportInput, index: CaseIndex) -> tuple[Problem, ...]:
    """Errored runs by kind, most frequent first, each with one example message."""
    kinds: dict[ErrorKind, list[RunResult]] = {}
    for run in report.runs:
        if run.status is Status.ERROR:
            kinds.setdefault(run.error_kind or ErrorKind.INTERNAL, []).append(run)
    out = []
    for kind, runs in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        first = runs[0]
        example = inline(first.error or "no message", 200)
        name = index.named(first.suite, first.case_id)
        where = f"{name} on {cell(first.model, 60)}, {first.side.value}"
        out.append(Problem(f"{kind.value} ({plural(len(runs), 'run')})", f"{example} ({where})"))
    return tuple(out)


def invalid_files(invalid: Sequence[LoadResult]) -> tuple[Problem, ...]:
    out = []
    for result in (r for r in invalid if r.failed):
        problems = result.errors or (result.problems if result.suite is None else ())
        for p in problems:
            text = f"{p.field}: {p.message}" if p.field else p.message
            out.append(Problem(inline(str(p.origin), 200), inline(text, 300)))
        if not problems and result.suite is None:
            out.append(Problem(inline(result.rel, 200), "could not be loaded"))
    return tuple(out)


def not_run(report: ReportInput, index: CaseIndex) -> tuple[str, ...]:
    out = [
        f"{code(r.rel, 80)}: {inline(r.problems[0].message, 300)}"
        for r in report.invalid[:MAX_SKIPS]
        if not r.failed and r.suite is None and r.problems
    ]
    for skip in report.skipped[:MAX_SKIPS]:
        what = index.named(skip.suite, skip.case) if skip.case else code(skip.suite, 60)
        out.append(f"{what} on {cell(skip.model, 60)}: {inline(skip.reason, 160)}")
    if len(report.skipped) > MAX_SKIPS:
        out.append(f"{plural(len(report.skipped) - MAX_SKIPS, 'more skip')} in results.json")
    if report.not_started:
        budget = report.settings.max_cost_usd
        spent = f"the cost budget ({money(budget)}) was spent" if budget else "the budget was spent"
        out.append(f"{plural(len(report.not_started), 'run')} never started: {spent}")
    return tuple(out)
