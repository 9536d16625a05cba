"""What a scoring policy is: how a format turns item results into a run's pass/fail and score.

docs/design.md §Pass rate gives one meaning of "pass rate" across formats; each format decides
when one run passes. A policy may also close the judge gate (skill-evaluator's structural gate)
and add item results derived after the judge (clauditor's Layer 2 field checks). A family's
policy is the `POLICY` of its `scoring` module; the contract sits in `model` so that a family
folder can hold it without importing `grade`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from evolve_action.model.evals import Case, Suite
from evolve_action.model.outcomes import ItemResult, JudgeReport, Status


@dataclass(frozen=True)
class Verdict:
    status: Status  # PASS or FAIL; errors are decided before grading
    score: float  # in [0, 1]
    extra_items: tuple[ItemResult, ...] = field(default=())  # derived after the judge
    reason: str = ""  # one line for the comment when the run failed on policy, not an item


class Policy(Protocol):
    def judge_needed(self, suite: Suite, case: Case, checks: Sequence[ItemResult]) -> bool:
        """False closes the judge gate: the judge is not called and its items are not graded."""
        ...

    def verdict(
        self, suite: Suite, case: Case, items: Sequence[ItemResult], judge: JudgeReport
    ) -> Verdict: ...
