"""Verdict policies of evolve evals (and skill-creator files) and of trigger sets.

evolve: a run passes when no item failed; skips never fail it; the score is the share of
graded items that passed (1.0 when nothing was graded, as evolve passes a case with nothing to
grade). Triggers: one run passes when its `triggers.fired` check passed; the across-runs rule
(hit rate ≥ 0.5 when the skill should fire, < 0.5 when not) belongs to the statistics.
"""

from __future__ import annotations

from collections.abc import Sequence

from evolve_action.model.evals import Case, Check, Format, Suite
from evolve_action.model.outcomes import ItemResult, JudgeReport, Status
from evolve_action.model.scoring import Verdict


def item_score(items: Sequence[ItemResult]) -> float:
    passed = sum(1 for i in items if i.passed is True)
    failed = sum(1 for i in items if i.passed is False)
    return passed / (passed + failed) if passed + failed else 1.0


def _ungraded(case: Case, items: Sequence[ItemResult]) -> tuple[ItemResult, ...]:
    """Authored items with no verdict at all: a bug upstream, never a silent pass."""
    graded = {i.item_id for i in items}
    return tuple(
        ItemResult(
            item.id,
            item.text,
            False,
            "not graded: no verdict was recorded for this item",
            kind=item.kind if isinstance(item, Check) else "judge",
            source=item.source,
        )
        for item in case.items
        if item.id not in graded
    )


class EvolvePolicy:
    def judge_needed(self, suite: Suite, case: Case, checks: Sequence[ItemResult]) -> bool:
        return bool(case.judge_items)

    def verdict(
        self, suite: Suite, case: Case, items: Sequence[ItemResult], judge: JudgeReport
    ) -> Verdict:
        extra = _ungraded(case, items)
        every = (*items, *extra)
        failed = any(i.passed is False for i in every)
        status = Status.FAIL if failed else Status.PASS
        return Verdict(status, item_score(every), extra_items=extra)


class TriggersPolicy:
    def judge_needed(self, suite: Suite, case: Case, checks: Sequence[ItemResult]) -> bool:
        return False

    def verdict(
        self, suite: Suite, case: Case, items: Sequence[ItemResult], judge: JudgeReport
    ) -> Verdict:
        fired = [i for i in items if i.kind == "triggers.fired"]
        if not fired:
            return Verdict(Status.FAIL, 0.0, reason="the trigger check did not run")
        if fired[0].passed is None:
            reason = "cannot tell whether the skill fired: the transcript has no tool calls"
            return Verdict(Status.FAIL, 0.0, reason=reason)
        ok = fired[0].passed
        return Verdict(Status.PASS if ok else Status.FAIL, 1.0 if ok else 0.0)


POLICY = {Format.EVOLVE: EvolvePolicy(), Format.TRIGGERS: TriggersPolicy()}
