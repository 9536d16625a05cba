"""clauditor's layered verdict (docs/design.md §Pass rate).

A run passes when every L1 assertion passes (skips never fail), every L2 check derived from
the judge's extraction passes, and the L3 criteria meet the thresholds: pass rate (criteria
passed ÷ criteria) ≥ `min_pass_rate` and mean score ≥ `min_mean_score`. The run's score is
the L3 mean score. Without criteria, L3 holds vacuously and the score is the share of L1 and
L2 checks passed (1.0 when there are none), so a suite of assertions still has a useful score.

clauditor itself calls the judge whatever L1 says, so the judge gate stays open whenever the
case has judge items. Variance (`min_stability` in `Suite.policy`) is a property across runs,
applied by the statistics stage, not here. Trigger cases pass when their checks pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evolve_action.formats.clauditor.layer2 import derived
from evolve_action.model.evals import CLAUDITOR_MIN_MEAN_SCORE as MIN_MEAN_SCORE
from evolve_action.model.evals import CLAUDITOR_MIN_PASS_RATE as MIN_PASS_RATE
from evolve_action.model.evals import Case, CaseKind, Suite
from evolve_action.model.outcomes import ItemResult, JudgeReport, Status
from evolve_action.model.scoring import Verdict

EPSILON = 1e-9  # a mean of 0.6, 0.4, 0.5 must meet a 0.5 threshold despite float sums


@dataclass(frozen=True)
class Rubric:
    """The L3 metrics of one run."""

    pass_rate: float
    mean_score: float
    count: int

    def meets(self, min_pass_rate: float, min_mean_score: float) -> bool:
        if self.count == 0:
            return True
        return (
            self.pass_rate + EPSILON >= min_pass_rate
            and self.mean_score + EPSILON >= min_mean_score
        )


class ClauditorPolicy:
    def judge_needed(self, suite: Suite, case: Case, checks: Sequence[ItemResult]) -> bool:
        return bool(case.judge_items)

    def verdict(
        self, suite: Suite, case: Case, items: Sequence[ItemResult], judge: JudgeReport
    ) -> Verdict:
        by_id = {r.item_id: r for r in items}
        l1 = [by_id[c.id] for c in case.checks if c.id in by_id]
        if case.kind is CaseKind.TRIGGER:
            return _all_checks(l1)
        extra: list[ItemResult] = []
        for item in case.judge_items:
            if item.kind == "extract":
                extra += derived(item, judge.extractions.get(item.id))
        rubric, unanswered = _rubric(case, by_id)
        extra += unanswered
        policy = suite.policy
        min_pass_rate = MIN_PASS_RATE if policy.min_pass_rate is None else policy.min_pass_rate
        min_mean_score = MIN_MEAN_SCORE if policy.min_mean_score is None else policy.min_mean_score
        reasons = _reasons(l1, extra, rubric, min_pass_rate, min_mean_score)
        if rubric.count:
            score = rubric.mean_score
        else:
            score = _share_passed([*l1, *(r for r in extra if r.kind == "clauditor.l2")])
        status = Status.FAIL if reasons else Status.PASS
        return Verdict(status, score, tuple(extra), "; ".join(reasons))


def _rubric(case: Case, by_id: dict[str, ItemResult]) -> tuple[Rubric, list[ItemResult]]:
    """L3 metrics; a criterion the judge did not answer counts as failed with score 0."""
    criteria = [j for j in case.judge_items if j.kind == "criterion"]
    passed, scores, unanswered = 0, [], []
    for criterion in criteria:
        result = by_id.get(criterion.id)
        if result is None:
            unanswered.append(
                ItemResult(
                    criterion.id,
                    criterion.text,
                    False,
                    "judge error: no verdict for this criterion",
                    score=0.0,
                    kind="judge",
                    source="criterion",
                )
            )
            scores.append(0.0)
            continue
        passed += result.passed is True
        if result.score is not None:
            scores.append(min(1.0, max(0.0, result.score)))
        else:
            scores.append(1.0 if result.passed else 0.0)
    if not criteria:
        return Rubric(0.0, 0.0, 0), unanswered
    return Rubric(passed / len(criteria), sum(scores) / len(criteria), len(criteria)), unanswered


def _reasons(
    l1: list[ItemResult],
    extra: list[ItemResult],
    rubric: Rubric,
    min_pass_rate: float,
    min_mean_score: float,
) -> list[str]:
    reasons = []
    failed_l1 = sum(1 for r in l1 if r.passed is False)
    if failed_l1:
        reasons.append(f"L1: {failed_l1} of {len(l1)} assertions failed")
    l2 = [r for r in extra if r.kind == "clauditor.l2"]
    failed_l2 = sum(1 for r in l2 if r.passed is False)
    if failed_l2:
        reasons.append(f"L2: {failed_l2} of {len(l2)} field checks failed")
    if not rubric.meets(min_pass_rate, min_mean_score):
        reasons.append(
            f"L3: pass rate {rubric.pass_rate:.2f} (needs {min_pass_rate:.2f}),"
            f" mean score {rubric.mean_score:.2f} (needs {min_mean_score:.2f})"
        )
    return reasons


def _share_passed(results: list[ItemResult]) -> float:
    graded = [r for r in results if r.passed is not None]
    if not graded:
        return 1.0
    return sum(1 for r in graded if r.passed) / len(graded)


def _all_checks(results: list[ItemResult]) -> Verdict:
    failed = [r for r in results if r.passed is False]
    reason = f"{len(failed)} of {len(results)} checks failed" if failed else ""
    status = Status.FAIL if failed else Status.PASS
    return Verdict(status, _share_passed(results), (), reason)


POLICY = ClauditorPolicy()
