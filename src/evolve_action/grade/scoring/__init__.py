"""Verdict policies: how each format turns item results into a run's pass/fail and score.

docs/design.md §Pass rate gives one meaning of "pass rate" across formats; each format decides
when one run passes. A policy may also close the judge gate (skill-evaluator's structural gate)
and add item results derived after the judge (clauditor's Layer 2 field checks).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from evolve_action.model.evals import Case, Format, Suite
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


_POLICIES: dict[Format, Policy] = {}

MODULES = {
    Format.EVOLVE: "evolve",
    Format.TRIGGERS: "evolve",
    Format.SKILL_EVALUATOR: "skill_evaluator",
    Format.AGENTV: "agentv",
    Format.CLAUDITOR: "clauditor",
    Format.VALLY: "vally",
    Format.SKILL_VALIDATOR: "vally",  # the same verdict: graders and gates, rubric at 3/5
    Format.WAZA: "vally",  # every grader passes; the score weighs graders by their `weight`
    Format.TESSL: "vally",  # the checklist's points awarded over possible, against 0.5
    Format.PROMPTFOO: "vally",  # every assertion passes, or the score reaches `threshold`
}


def register(fmt: Format) -> Callable[[type[Policy]], type[Policy]]:
    def decorate(cls: type[Policy]) -> type[Policy]:
        _POLICIES[fmt] = cls()
        return cls

    return decorate


def policy_for(fmt: Format) -> Policy:
    if fmt not in _POLICIES:
        importlib.import_module(f"evolve_action.grade.scoring.{MODULES[fmt]}")
    return _POLICIES[fmt]
