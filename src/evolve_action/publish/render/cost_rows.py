"""The comment's "cost and behaviour" table: per eval and per skill, base → head, with ratios.

Rows come from `ReportInput.cost_deltas` (`verdict.cost_delta`): the flagged evals first,
then the evals and skills whose cost per run moved most, at most `MAX_ROWS` of them.
"""

from __future__ import annotations

from collections.abc import Callable

from evolve_action.model.spend import cents
from evolve_action.publish.render.escape import cell, code
from evolve_action.publish.render.report import ReportInput, tokens
from evolve_action.publish.render.view import CostRow
from evolve_action.verdict.cost_delta import CostDelta, SideCost, rule

MAX_ROWS = 20
SAME = 0.05  # a ratio within 5% of 1 is shown without its ratio: noise, not news


def _pair(base: float | None, head: float | None, fmt: Callable[[float], str]) -> str:
    if base is None or head is None:
        return "—"
    text = f"{fmt(base)} → {fmt(head)}"
    if base > 0 and abs(head / base - 1) > SAME:
        text += f" (×{head / base:.2f})"
    return text


def _movement(d: CostDelta) -> float:
    b, h = d.base.cost_usd, d.head.cost_usd
    return abs(h / b - 1) if b and h is not None else abs(d.head.tokens / max(d.base.tokens, 1) - 1)


def _row(d: CostDelta, label: str) -> CostRow:
    b, h = d.base, d.head

    def per_pass(s: SideCost) -> float | None:
        return s.per_pass

    return CostRow(
        what=label,
        model=cell(d.model, 60),
        tokens=_pair(b.tokens, h.tokens, lambda v: tokens(round(v))),
        cost=_pair(b.cost_usd, h.cost_usd, cents),
        per_pass=_pair(per_pass(b), per_pass(h), cents),
        turns=_pair(b.turns, h.turns, lambda v: f"{v:.1f}".removesuffix(".0")),
        # Wall time, marked as such (⏱): the one figure that differs between two equal runs.
        duration="⏱ " + _pair(b.duration_s, h.duration_s, lambda v: f"{v:.1f}s"),
        flagged="⚠️ over max-cost-increase" if d.flagged else "",
    )


def cost_rows(report: ReportInput) -> tuple[tuple[CostRow, ...], str]:
    """(rows, the rule in words when `max-cost-increase` is set)."""
    found = sorted(
        report.cost_deltas,
        key=lambda d: (not d.flagged, -round(_movement(d), 6), d.suite, d.case_id, d.model),
    )
    rows = []
    for d in found[:MAX_ROWS]:
        label = code(d.case_id, 60) if d.case_id else f"skill {code(d.suite, 80)}"
        rows.append(_row(d, label))
    limit = report.settings.max_cost_increase
    return tuple(rows), (rule(limit) if limit is not None else "")
