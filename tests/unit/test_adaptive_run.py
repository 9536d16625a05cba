"""Waves of `runs: auto` over a stand-in for `run_plan`: which runs each wave asks for, the
budget and the clock, and the verdict and effort that come out."""

from __future__ import annotations

import asyncio

from evolve_action.model.outcomes import COMPARED, RunResult, Side, Status, Transcript, Usage
from evolve_action.pipeline.adaptive_run import Limits, run_waves
from evolve_action.pipeline.execution import Budget, Outcome
from evolve_action.plan.planning import Plan, plan_runs
from evolve_action.publish.results.record import JobRecord, adaptive_of, record_doc, record_from_doc
from evolve_action.verdict import stats
from evolve_action.verdict.adaptive import Design, Stop
from evolve_action.verdict.adaptive_verdict import cells_of, decider
from evolve_action.verdict.lift import measure
from evolve_action.verdict.significance import Label
from tests.unit.test_planning import make_case, make_suite

MODELS = ["anthropic/a", "openai/o"]
DESIGN = Design(start=2, max_runs=20, alpha=0.05)


def _plan() -> Plan:
    suite = make_suite(*(make_case(c) for c in ("greet", "bye", "hold", "quiet")))
    return plan_runs({Side.BASE: [suite], Side.HEAD: [suite]}, MODELS, runs="auto")


def _passes(case: str, side: Side) -> bool:
    """greet breaks on head; bye is fixed on head; hold always passes; quiet always fails."""
    if case == "greet":
        return side is Side.BASE
    if case == "bye":
        return side is Side.HEAD
    return case == "hold"


class FakeExecution:
    def __init__(self, cost: float = 0.0) -> None:
        self.waves: list[Plan] = []
        self.cost = cost

    async def __call__(self, plan: Plan) -> Outcome:
        self.waves.append(plan)
        results = []
        for spec in plan.runs:
            passed = _passes(spec.case.id, spec.side)
            results.append(
                RunResult(
                    suite=spec.suite.rel,
                    case_id=spec.case.id,
                    model=spec.model,
                    side=spec.side,
                    repetition=spec.repetition,
                    status=Status.PASS if passed else Status.FAIL,
                    score=float(passed),
                    transcript=Transcript(usage=Usage(output_tokens=100, cost_usd=self.cost)),
                )
            )
        return Outcome(results=results)


def _limits(budget: Budget | None = None, *, deadline: float = 1e9) -> Limits:
    return Limits(budget or Budget(), deadline, clock=lambda: 0.0)


def test_run_waves__only_the_broken_case_gets_waves_until_it_is_decided() -> None:
    fake = FakeExecution()
    outcome, effort = asyncio.run(run_waves(_plan(), fake, DESIGN, _limits()))
    assert len(fake.waves) >= 2
    for wave in fake.waves[1:]:
        assert {s.case.id for s in wave.runs} == {"greet"}
        assert {(s.side, s.model) for s in wave.runs} == {
            (side, m) for side in COMPARED for m in MODELS
        }
    greet = [c for c in effort.cells if c.key[1] == "greet"]
    assert {c.stop for c in greet} == {Stop.DECIDED}
    assert len({(c.base_runs, c.head_runs) for c in greet}) == 1 and greet[0].base_runs > 2
    stops = {c.key[1]: c.stop for c in effort.cells}
    assert stops["hold"] is Stop.STABLE and stops["quiet"] is Stop.STABLE
    assert stops["bye"] is Stop.SETTLED  # a rise: nothing to find
    assert effort.waves == len(fake.waves) - 1 and effort.most == greet[0].head_runs
    reps = sorted(r.repetition for r in outcome.results if r.case_id == "greet")
    assert reps == sorted(list(range(1, greet[0].head_runs + 1)) * 4)  # no repetition twice

    suites = [make_suite(*(make_case(c) for c in ("greet", "bye", "hold", "quiet")))]
    decide_with = decider(outcome.results, DESIGN.bounds)
    aggregate = stats.aggregate(outcome.results, suites, decide_with=decide_with)
    labels = {(c.case_id, c.model): c.label for c in aggregate.cases}
    assert {labels[("greet", m)] for m in MODELS} == {Label.REGRESSED}
    assert labels[("hold", MODELS[0])] is Label.UNCHANGED
    assert all(g.label is Label.REGRESSED for g in aggregate.suites)
    # results.json's one codec of the design gives `report` the same schedule to judge by
    doc = record_doc(JobRecord(runs="auto", adaptive=adaptive_of(effort)))
    kept = record_from_doc(doc).adaptive
    assert kept is not None and Design(kept.start, kept.max_runs).bounds == DESIGN.bounds


def test_run_waves__the_budget_stops_the_waves_and_says_so() -> None:
    fake = FakeExecution(cost=1.0)
    budget = Budget(limit_usd=35.0)

    async def charged(plan: Plan) -> Outcome:
        outcome = await fake(plan)
        for run in outcome.results:
            budget.charge(run)
        return outcome

    _, effort = asyncio.run(run_waves(_plan(), charged, DESIGN, _limits(budget)))
    greet = [c for c in effort.cells if c.key[1] == "greet"]
    assert budget.spent_usd == 32.0  # the start: 4 cases × 2 models × 2 sides × 2 runs
    assert {c.stop for c in greet} == {Stop.BUDGET}  # a cell's next wave ($4) does not fit in $3
    assert greet[0].head_runs == 2


def test_run_waves__the_clock_stops_new_waves() -> None:
    fake = FakeExecution()
    _, effort = asyncio.run(run_waves(_plan(), fake, DESIGN, _limits(deadline=0.0)))
    assert len(fake.waves) == 1
    assert {c.stop for c in effort.cells if c.key[1] == "greet"} == {Stop.TIME}
    assert effort.most == 2 and not effort.extended


def test_cells_of__places_runs_by_repetition_and_leaves_errors_out() -> None:
    runs = [
        RunResult("s", "c", "m", Side.BASE, 1, Status.PASS),
        RunResult("s", "c", "m", Side.BASE, 3, Status.ERROR),
        RunResult("s", "c", "m", Side.HEAD, 2, Status.FAIL),
        RunResult("s", "c", "m", Side.HEAD, 3, Status.FAIL),
    ]
    blocks = cells_of(runs, DESIGN.bounds)[("s", "c", "m")]
    assert [(t.base_passed, t.base_graded, t.head_passed, t.head_graded) for t in blocks] == [
        (1, 1, 0, 1),
        (0, 0, 0, 1),
    ]


def _lift_passes(case: str, side: Side) -> bool:
    """solves: only with the skill; always: with or without; never: neither."""
    return {"solves": side is Side.HEAD, "always": True}.get(case, False)


def test_run_waves__no_skill_runs_are_added_only_where_the_lift_is_still_open() -> None:
    suite = make_suite(*(make_case(c) for c in ("solves", "always", "never")))
    plan = plan_runs({Side.HEAD: [suite], Side.NO_SKILL: [suite]}, MODELS, runs="auto")
    waves: list[Plan] = []

    async def execute(wave: Plan) -> Outcome:
        waves.append(wave)
        return Outcome(
            results=[
                RunResult(
                    suite=s.suite.rel,
                    case_id=s.case.id,
                    model=s.model,
                    side=s.side,
                    repetition=s.repetition,
                    status=Status.PASS if _lift_passes(s.case.id, s.side) else Status.FAIL,
                )
                for s in wave.runs
            ]
        )

    outcome, effort = asyncio.run(run_waves(plan, execute, DESIGN, _limits()))
    assert len(waves) >= 2
    for wave in waves[1:]:
        assert {s.case.id for s in wave.runs} == {"solves"}
        assert {s.side for s in wave.runs} == {Side.HEAD, Side.NO_SKILL}
    extra = [r for r in outcome.results if r.case_id == "solves" and r.side is Side.NO_SKILL]
    assert len(extra) > 2 * len(MODELS)
    # Head's extra runs serve the lift, and the effort counts them; the arm's are not its.
    solves = [c for c in effort.cells if c.key[1] == "solves"]
    assert {c.head_runs for c in solves} == {len(extra) // len(MODELS)}
    assert {c.base_runs for c in solves} == {0}
    # Decided as the report decides it under `auto`: sequentially, in the lift's frame.
    lift = measure(outcome.results, alpha=0.05, decider_for=lambda f: decider(f, DESIGN.bounds))
    assert lift is not None and lift.helps(suite.rel)
    assert {c.case_id for c in lift.cases if c.helps} == {"solves"}
