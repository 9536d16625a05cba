"""The verdict of the grader formats on one run: Vally's rule, which skill-validator (rubric
at 3/5), waza (graders weighed by `weight`), tessl (checklist points against 0.5) and
promptfoo (every assertion, or the score against `threshold`) load into.

Each grader scores in [0, 1]: a static grader 0 or 1, a `prompt` grader its judge score
normalized on its own scale (`(raw - low) / (high - low)`: 3/5 and 5.5/10 are 0.5) and passing
at its `threshold`. With `scoring.threshold` the run passes when the weighted mean of the
graders' scores (weights per grader type from `scoring.weights`, 1 for a type it does not
name) reaches it; without one Vally's verdict is binary: every grader passes. Constraints and
`expect_activation` are gates: one broken fails the run whatever the score.
"""

from __future__ import annotations

from collections.abc import Sequence

from evolve_action.model.evals import Case, Item, JudgeItem, Scale, Suite
from evolve_action.model.outcomes import ItemResult, JudgeReport, Status
from evolve_action.model.scoring import Verdict

GATES = ("constraint", "expect_activation")
_EPSILON = 1e-9
_BOUNDS = {Scale.LIKERT5: (1.0, 5.0), Scale.RANGE10: (1.0, 10.0)}  # Vally's 1-10, not 0-10


class GradersPolicy:
    def judge_needed(self, suite: Suite, case: Case, checks: Sequence[ItemResult]) -> bool:
        return bool(case.judge_items)

    def verdict(
        self, suite: Suite, case: Case, items: Sequence[ItemResult], judge: JudgeReport
    ) -> Verdict:
        results = {r.item_id: r for r in items}
        broken = [
            f"{item.id}: {results[item.id].evidence}" if item.id in results else item.id
            for item in case.items
            if item.source in GATES and _gate_broken(results.get(item.id))
        ]
        graded: list[tuple[float, float, bool]] = []
        weights = suite.policy.weights
        for item in case.items:
            if item.source in GATES:
                continue
            scored = _grader(item, results.get(item.id))
            if scored is not None:
                weight = weights.get(item.group, item.weight)
                graded.append((float(weight), *scored))
        score = _mean(graded)
        if broken:
            return Verdict(Status.FAIL, score, reason="; ".join(broken))
        threshold = case.extra.threshold
        if threshold is None:
            threshold = suite.policy.threshold
        if isinstance(threshold, int | float):
            if score + _EPSILON < threshold:
                said = f"score {score:.2f} is below the threshold {threshold:g}"
                return Verdict(Status.FAIL, score, reason=said)
            return Verdict(Status.PASS, score)
        failed = sum(1 for _, _, ok in graded if not ok)
        if failed:
            return Verdict(Status.FAIL, score, reason=f"{failed} of {len(graded)} graders failed")
        return Verdict(Status.PASS, score)


def _gate_broken(result: ItemResult | None) -> bool:
    return result is None or result.passed is False


def _grader(item: Item, result: ItemResult | None) -> tuple[float, bool] | None:
    """(score, passed), or None for a grader that was skipped."""
    if result is None:
        return 0.0, False  # should have been graded and was not: a lost verdict counts as 0
    if not isinstance(item, JudgeItem):
        if result.passed is None:
            return None
        return (1.0 if result.passed else 0.0), result.passed
    if result.passed is None:
        return None
    if item.scale is Scale.BINARY or result.raw_score is None:
        score = result.score if result.score is not None else float(result.passed)
    else:
        low, high = _BOUNDS.get(item.scale, (0.0, 1.0))
        score = min(max((result.raw_score - low) / (high - low), 0.0), 1.0)
    threshold = item.params.threshold if item.params.threshold is not None else 0.5
    return score, score + _EPSILON >= float(threshold)


def _mean(graded: Sequence[tuple[float, float, bool]]) -> float:
    if not graded:
        return 1.0
    total = sum(w for w, _, _ in graded)
    if total <= 0:
        return sum(s for _, s, _ in graded) / len(graded)
    return sum(w * s for w, s, _ in graded) / total


POLICY = GradersPolicy()
