"""A skill's lift: head with the skill against the same case without it (the no-skill arm).

"The skill helps" is decided by the regression rule itself, read in a swapped frame: the
with-skill runs (head) take the place of base and the no-skill runs the place of head, so a
skill that helps is a *drop* of the no-skill arm below head. `stats.aggregate` and
`decide.decide` (or the sequential decider under `runs: auto`) then test it exactly as they
test a regression: a one-sided exact test per case pooled over its models (and per model
when two or more are informative), discrete Holm within the family at the cases' share of
`alpha`, and a pooled test per skill (eval file) at the suites' share. Nothing is written
twice, and the simulation of `bench/lift.py` runs this very function.

It is its own family at `alpha`: it spends none of the regression verdict's, and it never
concludes the check by itself (`fail-without-lift` opts in: `gate.evaluate`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from evolve_action.model.evals import Suite
from evolve_action.model.outcomes import RunResult, Side
from evolve_action.verdict.decide import Finding
from evolve_action.verdict.significance import DEFAULT_ALPHA, Label
from evolve_action.verdict.stats import Aggregate, CaseStats, Decider, SideStats, aggregate

# A decider for the frame's runs: the fixed-N one (None) or the sequential one under `auto`.
DeciderFor = Callable[[Sequence[RunResult]], Decider | None]


@dataclass(frozen=True, slots=True)
class CaseLift:
    """One case on one model: head against no skill (graded runs only)."""

    suite: str
    case_id: str
    name: str
    model: str
    head: SideStats | None
    no_skill: SideStats | None
    lift: float | None  # head pass rate − no-skill pass rate
    helps: bool  # significantly better with the skill, within the lift family
    adjusted_p: float | None  # of "the skill helps"; None: not tested (or it fell)


@dataclass(frozen=True, slots=True)
class SkillLift:
    """One skill (eval file) on one model: the per-skill table's "no skill" and lift."""

    suite: str
    model: str
    head_rate: float | None  # mean of its cases' pass rates with the skill
    no_skill_rate: float | None
    lift: float | None
    helps: bool  # the skill's pooled test, or one of its cases on this model
    adjusted_p: float | None  # the smallest adjusted p of "helps" shown for it


@dataclass(frozen=True)
class Lift:
    alpha: float
    cases: tuple[CaseLift, ...]
    skills: tuple[SkillLift, ...]
    frame: Aggregate  # the swapped-frame aggregate the findings come from

    def helps(self, suite: str) -> bool:
        """The skill beats having no skill on its own evals (any model)."""
        return any(s.helps for s in self.skills if s.suite == suite)

    @property
    def measured(self) -> tuple[str, ...]:
        """Suites with a no-skill arm, in table order."""
        return tuple(dict.fromkeys(s.suite for s in self.skills))

    def of(self, suite: str, model: str) -> SkillLift | None:
        return next((s for s in self.skills if (s.suite, s.model) == (suite, model)), None)


def frame_runs(runs: Iterable[RunResult]) -> list[RunResult]:
    """Head's runs as `base` and the no-skill arm's as `head`, for the cells that have a
    no-skill arm; every other run is left out."""
    runs = list(runs)
    armed = {(r.suite, r.case_id, r.model) for r in runs if r.side is Side.NO_SKILL}
    out = []
    for run in runs:
        if (run.suite, run.case_id, run.model) not in armed:
            continue
        if run.side is Side.HEAD:
            out.append(replace(run, side=Side.BASE))
        elif run.side is Side.NO_SKILL:
            out.append(replace(run, side=Side.HEAD))
    return out


def measure(
    runs: Iterable[RunResult],
    suites: Iterable[Suite] = (),
    *,
    alpha: float = DEFAULT_ALPHA,
    decider_for: DeciderFor | None = None,
) -> Lift | None:
    """The lift of every skill that has a no-skill arm among `runs`; None when none has."""
    frame = frame_runs(runs)
    if not frame:
        return None
    decide_with = decider_for(frame) if decider_for is not None else None
    agg = aggregate(frame, suites, alpha=alpha, decide_with=decide_with)
    cases = tuple(_case(c) for c in agg.cases)
    skills = []
    for group in agg.suites:
        rel, model = group.suite or "", group.model or ""
        members = [c for c in cases if (c.suite, c.model) == (rel, model)]
        pooled = agg.verdict.suites.get(rel)
        pooled_helps = pooled is not None and pooled.finding is Finding.REGRESSED
        ps = [c.adjusted_p for c in members if c.helps and c.adjusted_p is not None]
        if pooled_helps and pooled is not None and pooled.adjusted_p is not None:
            ps.append(pooled.adjusted_p)
        if not ps:  # nothing significant: the closest it came
            ps = [c.adjusted_p for c in members if c.adjusted_p is not None]
            if pooled is not None and pooled.adjusted_p is not None and group.delta is not None:
                ps += [pooled.adjusted_p] if group.delta < 0 else []
        skills.append(
            SkillLift(
                suite=rel,
                model=model,
                head_rate=group.base_rate,
                no_skill_rate=group.head_rate,
                lift=-group.delta if group.delta is not None else None,
                helps=pooled_helps or any(c.helps for c in members),
                adjusted_p=min(ps) if ps else None,
            )
        )
    return Lift(alpha, cases, tuple(skills), agg)


def _case(c: CaseStats) -> CaseLift:
    fell = c.delta is not None and c.delta < 0  # no skill below head: the skill's side rose
    return CaseLift(
        suite=c.suite,
        case_id=c.case_id,
        name=c.name,
        model=c.model,
        head=c.base,
        no_skill=c.head,
        lift=-c.delta if c.delta is not None else None,
        helps=c.label is Label.REGRESSED,
        adjusted_p=c.adjusted_p if fell else None,
    )
