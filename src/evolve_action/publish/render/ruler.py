"""The comment's word on the PR's changes to its own evals, from `RulerReport`.

Three parts, each a heading and its lines, escaped here:
- "▼ Regressed under the checks this PR removed or relaxed": the regressions base's checks
  show on head's runs, each with the checks the PR weakened, named with their diff;
- "Removed while passing": cases gone from the evals while their base runs passed, with the
  last base pass rate;
- "Eval changes": the other changed rulers (information: not regressed, or a PR that changed
  only evals, which is not tested this way) and the changed cases, which are not compared.
"""

from __future__ import annotations

from evolve_action.plan.ruler import CaseChange, CaseDiff
from evolve_action.publish.render.build.cases import CaseIndex
from evolve_action.publish.render.escape import cell, code, inline
from evolve_action.publish.render.names import markdown_name
from evolve_action.publish.render.report import ReportInput
from evolve_action.util.text import pct
from evolve_action.verdict.ruler import RulerRow
from evolve_action.verdict.ruler_cells import Tally

HIDDEN = "▼ Regressed under the checks this PR removed or relaxed"
MAX_DIFFS = 6  # per case; the rest are counted


def _case(index: CaseIndex, d: CaseDiff) -> str:
    where = cell(index.suite_label(d.suite), 40)
    name = markdown_name(index.case(d.suite, d.base_case), d.base_case)
    if d.change is CaseChange.RENAMED:
        return f"{where} / {name} (renamed {code(d.head_case)})"
    return f"{where} / {name}"


def _diffs(d: CaseDiff) -> str:
    shown = [inline(x, 160) for x in d.diffs[:MAX_DIFFS]]
    if len(d.diffs) > MAX_DIFFS:
        shown.append(f"{len(d.diffs) - MAX_DIFFS} more")
    return "; ".join(shown) or "the checks are the same (renamed only)"


def _tally(t: Tally) -> str:
    return f"{t[0]}/{t[1]}"


def _row(index: CaseIndex, r: RulerRow) -> str:
    p = f"; adjusted p {r.adjusted_p:.3g}" if r.adjusted_p is not None else ""
    return (
        f"{_case(index, r.diff)} on {cell(r.model, 60)}: {_tally(r.base)} → {_tally(r.ruled)}"
        f" under base's checks (head's own checks: {_tally(r.own)}{p}). {_diffs(r.diff)}"
    )


def hidden(report: ReportInput, index: CaseIndex) -> tuple[str, ...]:
    """One line per regression that base's checks show and head's do not."""
    return tuple(_row(index, r) for r in report.rulers.hidden)


def removed_while_passing(report: ReportInput, index: CaseIndex) -> tuple[str, ...]:
    out = []
    for r in report.rulers.removed_while_passing:
        rate = pct(r.rate) if r.rate is not None else "—"
        where = cell(index.suite_label(r.suite), 40)
        name = markdown_name(index.case(r.suite, r.case_id), r.case_id)
        out.append(f"{where} / {name} (base {_tally(r.base)} passed, {rate})")
    return tuple(out)


def notes(report: ReportInput, index: CaseIndex) -> tuple[str, ...]:
    """Changed rulers that did not regress (or were not tested), and changed cases."""
    rulers = report.rulers
    out: list[str] = []
    seen: set[tuple[str, str]] = set()
    for r in rulers.rows:
        if r.regressed:
            continue
        key = (r.diff.suite, r.diff.base_case)
        why = "not tested: the PR changed only evals" if not r.diff.gating else "no regression"
        p = f" {_tally(r.base)} → {_tally(r.ruled)} under base's checks"
        line = f"{_case(index, r.diff)} on {cell(r.model, 60)}:{p} ({why}). "
        out.append(line + (_diffs(r.diff) if key not in seen else "same changes"))
        seen.add(key)
    for d in rulers.changed_cases:
        what = inline(d.what, 80) or "the task"
        out.append(f"{_case(index, d)}: a changed case ({what} changed), not compared")
    return tuple(out)
