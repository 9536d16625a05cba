"""Cost is behaviour: tokens, dollars, turns and time per eval and per skill, base → head, and
`max-cost-increase`'s rule over them.

A skill change that doubles the turns of every run costs twice as much on every future use,
even when every run still passes. Per eval (case on a model) and per skill (eval file on a
model) each side's runs give their mean tokens, cost, turns and duration; cached runs count
here (they are what the skill *does*, whoever paid for them).

The rule of `max-cost-increase: R`: an eval is flagged when head's cost per passing run is
more than R × base's, and each side has at least `MIN_PASSING` passing runs with a known
cost (fewer say too little: one lucky short run is not a trend). Cost per passing run is the
side's total cost over its passing runs, so a head that costs the same but passes less also
costs more per success. A flagged eval fails the check (`with_cost_rule`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from evolve_action.model.outcomes import RunResult, Side, Status
from evolve_action.model.records import run_cost
from evolve_action.util.text import plural
from evolve_action.verdict.gate import Gate

MIN_PASSING = 2


@dataclass(frozen=True, slots=True)
class SideCost:
    runs: int
    passing: int
    tokens: float  # means per run
    cost_usd: float | None  # None: some run had no price
    turns: float
    duration_s: float

    @property
    def per_pass(self) -> float | None:
        if self.cost_usd is None or not self.passing:
            return None
        return self.cost_usd * self.runs / self.passing


@dataclass(frozen=True, slots=True)
class CostDelta:
    suite: str
    case_id: str  # "" for the skill (the whole eval file on the model)
    model: str
    base: SideCost
    head: SideCost
    flagged: bool = False

    @property
    def ratio(self) -> float | None:
        """Head's cost per passing run over base's; None when either is unknown."""
        b, h = self.base.per_pass, self.head.per_pass
        return h / b if b and h is not None else None


def _side(runs: Sequence[RunResult]) -> SideCost:
    n = len(runs)
    costs = [run_cost(r) for r in runs]
    known = [c for c in costs if c is not None]
    return SideCost(
        runs=n,
        passing=sum(1 for r in runs if r.status is Status.PASS),
        tokens=math.fsum(r.transcript.usage.total_tokens + r.judge.usage.total_tokens for r in runs)
        / n,
        cost_usd=math.fsum(known) / n if len(known) == n else None,
        turns=math.fsum(r.transcript.turns for r in runs) / n,
        duration_s=math.fsum(r.transcript.duration_s for r in runs) / n,
    )


def _flag(base: SideCost, head: SideCost, limit: float | None) -> bool:
    if limit is None or min(base.passing, head.passing) < MIN_PASSING:
        return False
    b, h = base.per_pass, head.per_pass
    return b is not None and h is not None and b > 0 and h > b * limit


def deltas(runs: Iterable[RunResult], limit: float | None = None) -> tuple[CostDelta, ...]:
    """Per eval, then per skill, every (suite, case, model) with runs on base and head."""
    by_case: dict[tuple[str, str, str], dict[Side, list[RunResult]]] = {}
    by_skill: dict[tuple[str, str, str], dict[Side, list[RunResult]]] = {}
    for run in runs:
        if run.status is Status.ERROR or run.side not in (Side.BASE, Side.HEAD):
            continue
        by_case.setdefault((run.suite, run.case_id, run.model), {}).setdefault(run.side, []).append(
            run
        )
        by_skill.setdefault((run.suite, "", run.model), {}).setdefault(run.side, []).append(run)
    out = []
    for groups in (by_case, by_skill):
        for (suite, case, model), sides in groups.items():
            if Side.BASE not in sides or Side.HEAD not in sides:
                continue
            base, head = _side(sides[Side.BASE]), _side(sides[Side.HEAD])
            flagged = bool(case) and _flag(base, head, limit)
            out.append(CostDelta(suite, case, model, base, head, flagged))
    return tuple(out)


def rule(limit: float) -> str:
    return (
        f"max-cost-increase {limit:g}: an eval fails when head's cost per passing run is more"
        f" than {limit:g}× base's, with at least {MIN_PASSING} passing runs on each side"
    )


def with_cost_rule(gate: Gate, found: Sequence[CostDelta], limit: float | None) -> Gate:
    """The gate, failed when `max-cost-increase` flags an eval (a stopped job stays so)."""
    flagged = [d for d in found if d.flagged]
    if limit is None or not flagged or gate.conclusion == "cancelled":
        return gate
    worst = max(d.ratio or 0.0 for d in flagged)
    words = (
        f"{plural(len(flagged), 'eval')} cost more than {limit:g}× per passing run"
        f" (up to ×{worst:.2f})"
    )
    reason = words if gate.conclusion != "failure" else f"{gate.reason}; {words}"
    return replace(gate, conclusion="failure", reason=reason, exit_code=1)
