"""The comment's "cost and behaviour" table: per case and per skill, base → head.

Rows come from `ReportInput.cost_deltas` (`verdict.cost_delta`): the flagged cases first,
then the cases and skills whose cost per run moved most, at most `MAX_ROWS` of them. Every
cell is short enough not to wrap at GitHub's width: money per run in cents, a change as a
percentage only when it is more than noise, wall time in seconds without a ratio (a replayed
run takes milliseconds, and a ratio of two of those says nothing).
"""

from __future__ import annotations

from collections.abc import Callable

from evolve_action.publish.render.escape import cell
from evolve_action.publish.render.names import CaseIndex
from evolve_action.publish.render.report import ReportInput, tokens
from evolve_action.publish.render.view import CostRow
from evolve_action.verdict.cost_delta import CostDelta, SideCost, rule

MAX_ROWS = 20
SAME = 0.05  # a change within 5% is shown without its percentage: noise, not news
SECOND = 1.0  # wall time under this is "<1s"


def per_run(usd: float) -> str:
    """A cost per run people can compare at a glance: "0.71¢", "12¢", "$1.40"."""
    if usd >= 1:
        return f"${usd:.2f}"
    return f"{usd * 100:.2g}¢"


def change(base: float, head: float) -> str:
    """ "+19%", "−41%", "×20": empty within `SAME` of no change."""
    if base <= 0 or abs(head / base - 1) <= SAME:
        return ""
    ratio = head / base
    if ratio >= 3:
        return f"×{ratio:.0f}"
    percent = round((ratio - 1) * 100)
    return f"+{percent}%" if percent > 0 else f"−{-percent}%"


def _pair(base: float | None, head: float | None, fmt: Callable[[float], str]) -> str:
    if base is None or head is None:
        return "—"
    moved = change(base, head)
    return f"{fmt(base)} → {fmt(head)}" + (f" {moved}" if moved else "")


def _seconds(value: float) -> str:
    if value < SECOND:
        return "<1s"
    s = round(value)
    return f"{s // 60}m {s % 60}s" if s >= 60 else f"{s}s"


def _movement(d: CostDelta) -> float:
    b, h = d.base.cost_usd, d.head.cost_usd
    return abs(h / b - 1) if b and h is not None else abs(d.head.tokens / max(d.base.tokens, 1) - 1)


def _row(d: CostDelta, label: str) -> CostRow:
    b, h = d.base, d.head

    def per_pass(s: SideCost) -> float | None:
        return s.per_pass

    return CostRow(
        what=("⚠️ " if d.flagged else "") + label,
        model=cell(d.model, 60),
        tokens=_pair(b.tokens, h.tokens, lambda v: tokens(round(v))),
        cost=_pair(b.cost_usd, h.cost_usd, per_run),
        per_pass=_pair(per_pass(b), per_pass(h), per_run),
        turns=_pair(b.turns, h.turns, lambda v: f"{v:.1f}".removesuffix(".0")),
        # Wall time, marked (⏱) and without a ratio: the one figure that differs between two
        # equal runs, and a ratio of two replayed runs' milliseconds is noise.
        duration=f"⏱ {_seconds(b.duration_s)} → {_seconds(h.duration_s)}",
        flagged="over max-cost-increase" if d.flagged else "",
    )


def cost_rows(report: ReportInput, index: CaseIndex) -> tuple[tuple[CostRow, ...], str]:
    """(rows, the rule in words when `max-cost-increase` is set)."""
    found = sorted(
        report.cost_deltas,
        key=lambda d: (not d.flagged, -round(_movement(d), 6), d.suite, d.case_id, d.model),
    )
    rows = []
    for d in found[:MAX_ROWS]:
        if d.case_id:
            label = index.named(d.suite, d.case_id)
        else:
            label = f"{cell(index.suite_label(d.suite), 40)}, all cases"
        rows.append(_row(d, label))
    limit = report.settings.max_cost_increase
    text = rule(limit) if limit is not None else ""
    if any(r.flagged for r in rows):
        text = (text + ". " if text else "") + "⚠️ marks a row over `max-cost-increase`"
    return tuple(rows), text
