"""What the check run, the commit status, the step outputs and the log annotations say.

Pure functions from a report to plain data, so `publish` only moves it to GitHub. Check-run
annotations are plain text (GitHub does not render Markdown in them), so they quote eval
and model text unescaped but cut short. Their number is capped: each batch of 50 is one more
write, and GitHub's secondary rate limits count writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from evolve_action.model.evals import LoadResult
from evolve_action.model.outcomes import Side, Status
from evolve_action.model.spend import spend_of
from evolve_action.publish.annotations import annotate
from evolve_action.publish.render import headline
from evolve_action.publish.render.build.cases import CaseIndex, counts
from evolve_action.publish.render.comment import fit_comment
from evolve_action.publish.render.report import ReportInput
from evolve_action.publish.render.view import CommentView
from evolve_action.verdict.gate import Gate
from evolve_action.verdict.significance import Label

MAX_CHECK_ANNOTATIONS = 150  # three requests of 50
MAX_LOG_PER_LEVEL = 10  # GitHub shows at most 10 errors and 10 warnings per step
SUMMARY_MAX = 65_535
TEXT_MAX = 1000


@dataclass(frozen=True, slots=True)
class Note:
    """One finding at a file and line, for a check annotation and a log annotation."""

    level: str  # "failure" | "warning"
    path: str
    line: int
    title: str
    message: str

    def as_check(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "start_line": self.line,
            "end_line": self.line,
            "annotation_level": self.level,
            "title": self.title[:255],
            "message": self.message[:TEXT_MAX],
        }

    def as_command(self) -> str:
        level = "error" if self.level == "failure" else "warning"
        return annotate(
            level, self.message[:TEXT_MAX], file=self.path, line=self.line, title=self.title
        )


def check_annotations(found: Sequence[Note]) -> list[dict[str, Any]]:
    """The notes a check run carries: the first `MAX_CHECK_ANNOTATIONS`, as its API takes them."""
    return [n.as_check() for n in found[:MAX_CHECK_ANNOTATIONS]]


def notes(report: ReportInput) -> list[Note]:
    """Regressions (failure), then failed items and invalid files (warning)."""
    index = CaseIndex.of(report)
    out: list[Note] = []
    for c in report.aggregate.cases:
        origin = index.origin(c.suite, c.case_id)
        if c.label is Label.REGRESSED and origin is not None:
            title = f"{index.plain(c.suite, c.case_id)} regressed on {c.model}"
            text = f"{counts(c.base)} → {counts(c.head)} runs passed (base → head)"
            out.append(Note("failure", origin.path, origin.line or 1, title, text))
    failed: dict[tuple[str, str, str], list[str]] = {}  # one note per item, not per run
    evidence: dict[tuple[str, str, str], str] = {}
    for run in report.runs:
        if run.side is not Side.HEAD or run.status is not Status.FAIL:
            continue
        for item in run.items:
            if item.passed is False:
                key = (run.suite, run.case_id, item.item_id)
                failed.setdefault(key, []).append(run.model)
                evidence.setdefault(key, f"{item.text} → {item.evidence}".strip(" →"))
    for (rel, case_id, item_id), models in failed.items():
        origin = index.origin(rel, case_id, item_id)
        if origin is None:
            continue
        where = ", ".join(dict.fromkeys(models))
        title = f"{index.plain(rel, case_id)}: failed in {len(models)} head run(s) on {where}"
        key = (rel, case_id, item_id)
        out.append(Note("warning", origin.path, origin.line or 1, title, evidence[key]))
    out.extend(invalid_notes(report.invalid))
    return out


def invalid_notes(invalid: Sequence[LoadResult]) -> list[Note]:
    out = []
    for result in invalid:
        for p in result.errors or result.problems:
            title = p.field or "invalid eval file"
            out.append(Note("warning", p.origin.path, p.origin.line or 1, title, p.message))
    return out


def log_commands(found: Sequence[Note], problems: Sequence[str] = ()) -> list[str]:
    """Workflow-command lines: GitHub failures first, then ≤10 errors and ≤10 warnings."""
    lines = [annotate("error", p, title="evolve could not write to GitHub") for p in problems]
    errors = [n for n in found if n.level == "failure"][: max(0, MAX_LOG_PER_LEVEL - len(lines))]
    warnings = [n for n in found if n.level != "failure"][:MAX_LOG_PER_LEVEL]
    return lines + [n.as_command() for n in (*errors, *warnings)]


def title(view: CommentView) -> str:
    return view.headline[:255]


def summary(view: CommentView) -> str:
    """The comment, ranked and cut like it, within the check's 65,535 characters."""
    return fit_comment(replace(view, marker=""), limit=SUMMARY_MAX)


def status(gate: Gate, headline: str) -> tuple[str, str]:
    """(state, description) of a commit status; statuses have no "neutral" and no
    "cancelled" (`error` is GitHub's state for a check that could not finish)."""
    if gate.conclusion == "neutral":
        return "success", f"neutral: {headline}"
    if gate.conclusion == "cancelled":
        return "error", f"cancelled: {headline}"
    return gate.conclusion, headline


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def outputs(report: ReportInput, gate: Gate, comment_url: str) -> dict[str, str]:
    """The step outputs. The rates are the comment's headline figures: over the cases graded
    on both sides, with no delta while a compared case went ungraded on a side."""
    _, found = headline.overall(report)
    paid = spend_of(report.runs)  # what this job paid: cache hits are no spend of its own
    return {
        "pass-rate": _number(found.head_rate),
        "base-pass-rate": _number(found.base_rate),
        "delta": _number(found.delta_rate),
        "regressions": str(gate.regressions),
        "conclusion": gate.conclusion,
        "results-dir": str(report.settings.results_dir),
        "comment-url": comment_url,
        "cost-usd": f"{paid.paid_usd:.4f}" if paid.known else "",
    }
