"""skill-evaluator's verdict: the structural gate, the rubric threshold, overall_efficiency.

A run passes when every structural check passed (critical or not), every graded
skill-creator expectation passed, and the rubric's normalized weighted mean reaches the
suite's `rubric_threshold` (0.6). Its score is skill-evaluator's overall_efficiency,
0.4 × layer-1 pass rate + 0.6 × rubric normalized.

Decisions where skill-evaluator is silent or its tools disagree:

- The judge reports a LIKERT5 dimension as `ItemResult(raw_score=1..5)` (`judge_parse.py`
  also sets score=(raw-1)/4 and passed=raw>=3 for display); only `raw_score` is read here.
  normalized = Σ raw×weight / (5·Σ weight), so it lies in [0.2, 1], as skill-evaluator has it.
- A dimension with no usable score (judge error, missing or out of range) counts as 0 with
  its full weight: a judge failure lowers the score instead of being left out.
- When the gate closes (a critical check failed with `structural_gate` on), the judge is not
  called and the rubric counts as 0, so a gated run is scored, not dropped from the means.
- skill-creator `expectations` in a skill-evaluator file are pass/fail statements like the
  structural checks: they join the 0.4 layer's pass rate and must all pass, but are never
  critical (they are graded after the gate). A gated run leaves them ungraded and uncounted.
- A case with no rubric passes on its checks alone, and one with no checks on its rubric
  alone; the score then is that layer's value, not 0.4 or 0.6 of it, so a perfect run of a
  structural-only eval scores 1.0. (skill-evaluator would count the missing layer as 0.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evolve_action.model.evals import Case, Check, JudgeItem, Scale, Suite
from evolve_action.model.outcomes import ItemResult, JudgeReport, Status
from evolve_action.model.scoring import Verdict

STRUCTURAL_WEIGHT = 0.4
RUBRIC_WEIGHT = 0.6
DEFAULT_THRESHOLD = 0.6
_EPSILON = 1e-9  # weights 0.1/0.2/0.3 all at 3 give 0.5999999999999999, not 0.6


@dataclass(frozen=True)
class Breakdown:
    """One run's numbers, as skill-evaluator's structural.json and grading.json report them."""

    structural_passed: int
    structural_failed: int
    critical_failed: tuple[str, ...]  # ids
    gate_passed: bool
    expectations_passed: int
    expectations_failed: int
    rubric_scores: Mapping[str, float | None]  # dimension name → raw 1-5; None = unscored
    rubric_weighted_mean: float | None  # None when the case has no rubric
    rubric_normalized: float | None

    @property
    def structural_pass_rate(self) -> float:
        total = self.structural_passed + self.structural_failed
        return self.structural_passed / total if total else 0.0

    @property
    def layer1_counts(self) -> tuple[int, int]:
        return (
            self.structural_passed + self.expectations_passed,
            self.structural_failed + self.expectations_failed,
        )

    @property
    def overall_efficiency(self) -> float:
        passed, failed = self.layer1_counts
        layer1 = passed / (passed + failed) if passed + failed else None
        if layer1 is not None and self.rubric_normalized is not None:
            return STRUCTURAL_WEIGHT * layer1 + RUBRIC_WEIGHT * self.rubric_normalized
        if layer1 is not None:
            return layer1
        if self.rubric_normalized is not None:
            return self.rubric_normalized
        return 1.0


def gate_on(suite: Suite) -> bool:
    return suite.policy.structural_gate is not False


def critical_failures(case: Case, results: Sequence[ItemResult]) -> tuple[str, ...]:
    """Ids of critical checks that failed; a check with no result at all counts as failed."""
    by_id = {r.item_id: r for r in results}
    out = []
    for check in case.checks:
        result = by_id.get(check.id)
        if check.critical and (result is None or result.passed is False):
            out.append(check.id)
    return tuple(out)


def breakdown(suite: Suite, case: Case, items: Sequence[ItemResult]) -> Breakdown:
    by_id = {r.item_id: r for r in items}
    critical = critical_failures(case, items)
    gate_passed = not (gate_on(suite) and critical)
    s_pass, s_fail = _tally(case.checks, by_id)
    expectations = [j for j in case.judge_items if j.scale is not Scale.LIKERT5]
    e_pass, e_fail = _tally(expectations, by_id) if gate_passed else (0, 0)
    dims = [j for j in case.judge_items if j.scale is Scale.LIKERT5]
    scores = {d.id: (_raw(by_id.get(d.id)) if gate_passed else None) for d in dims}
    mean: float | None = None
    normalized: float | None = None
    if dims:
        total_weight = sum(d.weight for d in dims)
        mean = sum((scores[d.id] or 0.0) * d.weight for d in dims) / total_weight
        normalized = mean / 5.0
    return Breakdown(
        structural_passed=s_pass,
        structural_failed=s_fail,
        critical_failed=critical,
        gate_passed=gate_passed,
        expectations_passed=e_pass,
        expectations_failed=e_fail,
        rubric_scores=scores,
        rubric_weighted_mean=mean,
        rubric_normalized=normalized,
    )


def _tally(
    defined: Sequence[Check | JudgeItem], by_id: Mapping[str, ItemResult]
) -> tuple[int, int]:
    """(passed, failed); skips are left out, a missing result is a failure."""
    passed = failed = 0
    for item in defined:
        result = by_id.get(item.id)
        if result is None or result.passed is False:
            failed += 1
        elif result.passed:
            passed += 1
    return passed, failed


def _raw(result: ItemResult | None) -> float | None:
    if result is None or result.raw_score is None or not 1 <= result.raw_score <= 5:
        return None
    return float(result.raw_score)


class SkillEvaluatorPolicy:
    def judge_needed(self, suite: Suite, case: Case, checks: Sequence[ItemResult]) -> bool:
        if not case.judge_items:
            return False
        return not (gate_on(suite) and critical_failures(case, checks))

    def verdict(
        self, suite: Suite, case: Case, items: Sequence[ItemResult], judge: JudgeReport
    ) -> Verdict:
        b = breakdown(suite, case, items)
        set_threshold = suite.policy.rubric_threshold
        threshold = DEFAULT_THRESHOLD if set_threshold is None else set_threshold
        score = b.overall_efficiency
        if not b.gate_passed:
            ids = ", ".join(b.critical_failed)
            reason = f"structural gate closed: critical check {ids} failed, judge not called"
            return Verdict(Status.FAIL, score, reason=reason)
        _, failed = b.layer1_counts
        rubric_ok = b.rubric_normalized is None or b.rubric_normalized >= threshold - _EPSILON
        if failed or not rubric_ok:
            reason = ""
            if not rubric_ok:
                reason = f"rubric {b.rubric_normalized:.2f} is below {threshold:.2f}"
            return Verdict(Status.FAIL, score, reason=reason)
        return Verdict(Status.PASS, score)


POLICY = SkillEvaluatorPolicy()
