"""`max-cost-usd` as a ceiling (`pipeline.ceiling.Budget`), on runs simulated with known costs:
a pair is admitted or refused as a whole, at the dearest run seen of its case, else of its
model, else its prior; a model's first pair goes alone; and the spend never passes the limit
by more than what admitted runs cost beyond their estimates."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import pytest

from evolve_action.model.outcomes import Side
from evolve_action.pipeline.ceiling import Budget, unit_of
from evolve_action.plan.planning import MAX_PLANNED_RUNS, Plan, PlanTooLarge, RunSpec, plan_runs
from evolve_action.settings.inputs import from_values
from evolve_action.settings.parsers import MAX_RUNS, SettingsError
from tests.unit.test_planning import make_case, make_suite

MODELS = ["anthropic/a", "openai/o"]


def _plan(runs: int = 3, cases: int = 3) -> Plan:
    suite = make_suite(*(make_case(f"c{i}") for i in range(cases)))
    return plan_runs({Side.BASE: [suite], Side.HEAD: [suite]}, MODELS, runs=runs)


async def _simulate(
    budget: Budget, specs: list[RunSpec], cost: Callable[[RunSpec], float], slots: int = 4
) -> list[RunSpec]:
    """Each run asks to start, then 'costs' `cost(spec)`, `slots` at a time; the ones made."""
    budget.expect(specs)
    gate = asyncio.Semaphore(slots)
    made: list[RunSpec] = []

    async def one(spec: RunSpec) -> None:
        async with gate:
            if not await budget.admit(spec):
                return
            await asyncio.sleep(random.random() / 1000)
            made.append(spec)
            await budget.settle(spec, cost(spec))

    await asyncio.gather(*(one(s) for s in specs))
    return made


def _pairs_whole(plan: Plan, made: list[RunSpec]) -> bool:
    sides: dict[tuple[str, str, str, int], set[Side]] = {}
    for spec in made:
        sides.setdefault(unit_of(spec), set()).add(spec.side)
    return all(s == {Side.BASE, Side.HEAD} for s in sides.values())


@pytest.mark.parametrize("seed", range(20))
def test_spend_stays_under_the_limit_plus_the_overrun_and_no_pair_is_split(seed: int) -> None:
    random.seed(seed)
    plan = _plan(runs=4, cases=5)
    true_cost = {s.key: random.uniform(0.5, 3.0) for s in plan.runs}
    limit = sum(true_cost.values()) / 3
    budget = Budget(limit_usd=limit, prior=lambda _s: 1.0)  # a prior far too low for some
    made = asyncio.run(_simulate(budget, list(plan.runs), lambda s: true_cost[s.key]))
    assert budget.spent_usd <= limit + budget.overrun_usd + 1e-9
    assert _pairs_whole(plan, made)
    assert made and budget.refused  # some ran, some were refused, as units
    refused = {s.key for members in budget.refused.values() for s in members}
    assert not refused & {s.key for s in made}


def test_runs_that_cost_what_was_seen_never_pass_the_limit() -> None:
    """No run costs more than its estimate (a prior above every run, runs of one model alike
    once seen): the overrun is nil, so the limit holds exactly."""
    plan = _plan(runs=4, cases=5)
    limit = 2.0 * len(plan.runs) / 3
    budget = Budget(limit_usd=limit, prior=lambda _s: 3.0)
    made = asyncio.run(_simulate(budget, list(plan.runs), lambda _s: 2.0))
    assert budget.overrun_usd == 0.0 and budget.spent_usd <= limit + 1e-9
    assert len(made) >= len(plan.runs) // 3 - 2  # the ceiling uses nearly all of it


def test_a_models_first_pair_goes_alone_then_its_measured_cost_is_the_estimate() -> None:
    plan = _plan(runs=1, cases=4)
    anthropic = [s for s in plan.runs if s.model == "anthropic/a"]
    order: list[tuple[str, str]] = []
    budget = Budget(limit_usd=100.0, prior=lambda _s: 10.0)

    async def go() -> None:
        budget.expect(anthropic)

        async def one(spec: RunSpec) -> None:
            assert await budget.admit(spec)
            order.append(("start", spec.case.id))
            await asyncio.sleep(0.001)
            order.append(("end", spec.case.id))
            await budget.settle(spec, 1.0)

        await asyncio.gather(*(one(s) for s in anthropic))

    asyncio.run(go())
    first_end = order.index(("end", "c0"))
    assert all(case == "c0" for _, case in order[:first_end])  # c0's pair alone at first
    assert budget.estimate(anthropic[-1]) == 1.0  # measured on c0: the model's dearest run


def test_without_a_limit_every_run_is_admitted_at_once() -> None:
    plan = _plan()
    budget = Budget()
    made = asyncio.run(_simulate(budget, list(plan.runs), lambda _s: 5.0))
    assert len(made) == len(plan.runs) and not budget.refused


@pytest.mark.parametrize(
    ("name", "raw", "words"),
    [
        ("runs", "99999999999999999999", "over the limit of 100 runs per case and side"),
        ("runs", "1000000", "over the limit of 100 runs per case and side"),
        ("runs", "9" * 5000, "over the limit of 100 runs"),
        ("max-runs", "101", "over the limit of 100"),
        ("max-concurrency", "100000", "over the limit of 64 runs in flight"),
        ("max-turns", "1e9", "is not a whole number"),
        ("timeout-seconds", "1e300", "over the limit of 21,600 seconds"),
        ("max-minutes", "inf", "must be a positive number"),
    ],
)
def test_numeric_inputs_have_upper_bounds_with_clear_messages(
    name: str, raw: str, words: str
) -> None:
    with pytest.raises(SettingsError, match=f"input {name}: .*{words}"):
        from_values({name: raw})


def test_a_plan_over_the_limit_is_refused_before_it_is_built() -> None:
    cases = [make_case(f"c{i}") for i in range(MAX_PLANNED_RUNS // (2 * MAX_RUNS) + 1)]
    suite = make_suite(*cases)
    with pytest.raises(PlanTooLarge, match="over the limit of 100,000"):
        plan_runs({Side.BASE: [suite], Side.HEAD: [suite]}, ["anthropic/a"], runs=MAX_RUNS)


def test_an_eval_files_own_runs_over_the_limit_skip_it_with_the_reason() -> None:
    suite = make_suite(make_case("c"), runs=10**9)
    plan = plan_runs({Side.HEAD: [suite]}, ["anthropic/a"])
    assert plan.runs == []
    assert "asks for 1,000,000,000 runs per case, over the limit of 100" in plan.skipped[0].reason
