"""Base's ruler as cells of the verdict: which runs they hold, under which key.

Light on purpose: `runs: auto` reads it to send its waves where base's ruler is open, before
the first answer, when nothing of the verdict's tests may load yet (`pipeline.job`'s
`pipeline.first_request`). `verdict.ruler` says the rule and makes the report.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from evolve_action.model.outcomes import RunResult, Side, Status
from evolve_action.plan.ruler import CaseChange, CaseDiff

RULER = "\u27c2 "  # prefixes the case id of a ruler cell; no eval id starts with it


def ruler_id(diff: CaseDiff) -> str:
    return f"{RULER}{diff.base_case}"


def is_ruler(case_id: str) -> bool:
    return case_id.startswith(RULER)


Tally = tuple[int, int]  # (passed, graded)


def tally(statuses: Iterable[Status]) -> Tally:
    graded = [s for s in statuses if s is not Status.ERROR]
    return sum(s is Status.PASS for s in graded), len(graded)


def ruler_runs(runs: Iterable[RunResult], diffs: Sequence[CaseDiff]) -> list[RunResult]:
    """The runs of every ruler cell the verdict tests: base's runs of base's case, and head's
    runs as graded with base's checks. Only for PRs that touched the skill (`gating`)."""
    tested = {(d.suite, d.base_case): d for d in diffs if d.compared and d.gating}
    heads = {(d.suite, d.head_case): d for d in tested.values()}
    out: list[RunResult] = []
    for run in runs:
        key = (run.suite, run.case_id)
        if run.side is Side.BASE and key in tested:
            out.append(replace(run, case_id=ruler_id(tested[key])))
        elif run.side is Side.HEAD and key in heads:
            diff, grade = heads[key], run.ruler
            if run.status is Status.ERROR:
                out.append(replace(run, case_id=ruler_id(diff)))
            elif grade is not None and grade.case_id == diff.base_case:
                ruled = replace(run, case_id=ruler_id(diff), status=grade.status)
                out.append(replace(ruled, score=grade.score, items=list(grade.items)))
    return out


def not_compared(diffs: Iterable[CaseDiff]) -> set[tuple[str, str]]:
    """(suite, case id) whose own base-against-head comparison is not tested: a changed case
    (another task on head), and a changed ruler, whose sides were graded with different
    checks (a stricter check would read as a regression; base's ruler tests it instead)."""
    apart = (CaseChange.CHANGED_CASE, CaseChange.CHANGED_RULER)
    return {(d.suite, d.base_case) for d in diffs if d.change in apart}
