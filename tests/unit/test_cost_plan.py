"""The cost work's rules one by one: the projection, the budget's cut order, prices and their
overrides, what a job paid against what its cache saved, the PR's running total, and
`max-cost-increase`."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import pytest

from evolve_action.model.evals import Case, Format, JudgeItem, Origin, Skill, Suite
from evolve_action.model.outcomes import RunResult, Side, Status, Transcript, Usage
from evolve_action.model.spend import spend_of, spend_text
from evolve_action.pipeline.pricing import Prices
from evolve_action.plan.budget_cut import cut_to_budget
from evolve_action.plan.cost_history import Seen
from evolve_action.plan.cost_words import cut_lines, harness_warning
from evolve_action.plan.planning import Plan, RunSpec, plan_runs
from evolve_action.plan.projection import Projection, project
from evolve_action.publish import spend_history
from evolve_action.publish.spend_history import PrSpend
from evolve_action.settings.config import ModelPrice
from evolve_action.verdict.cost_delta import deltas, with_cost_rule
from evolve_action.verdict.gate import Gate

SONNET = "anthropic/claude-sonnet-4-6"
UNPRICED = "openai/gpt-5.3-codex-spark"  # a model the price table does not list
ORIGIN = Origin("evals/s/evals.json", 1)


def suite(*ids: str, rel: str = "evals/s/evals.json", judged: bool = False) -> Suite:
    items = (JudgeItem("j", "The answer greets Ada.", ORIGIN),) if judged else ()
    cases = tuple(Case(i, f"Greet Ada ({i}).", ORIGIN, items=items) for i in ids)
    return Suite(Format.EVOLVE, Path("/r") / rel, rel, Skill("s", None), cases)


def both_sides(s: Suite, runs: int, model: str = SONNET) -> Plan:
    return plan_runs({Side.HEAD: [s], Side.BASE: [s]}, [model], runs=runs)


def projection(plan: Plan, **kw: object) -> Projection:
    options: dict[str, object] = {
        "cached": (),
        "history": {},
        "price": Prices({}).cost,
        "judge_model": SONNET,
        "harness": "sdk",
        "max_runs": 20,
    }
    options.update(kw)
    return project(plan, **options)  # type: ignore[arg-type]


def projected(plan: Plan, **kw: object) -> float:
    return projection(plan, **kw).total_usd


# --- the projection --------------------------------------------------------------------------


def test_projection__cached_runs_are_free_and_history_beats_the_prior() -> None:
    plan = both_sides(suite("a"), 2)
    prior = projected(plan)
    assert prior > 0
    one = plan.runs[0].key
    assert projected(plan, cached={one}) == pytest.approx(prior * 3 / 4)
    big = Seen(3, Usage(100_000, 1_000, 0, 0, None, 10), Usage())
    seen = projected(plan, history={("evals/s/evals.json", "a", SONNET): big})
    assert seen == pytest.approx(4 * (100_000 * 3 + 1_000 * 15) / 1e6)


def test_projection__the_judge_is_projected_only_for_judged_cases_and_cli_costs_more() -> None:
    plain, judged = both_sides(suite("a"), 1), both_sides(suite("a", judged=True), 1)
    assert projected(judged) > projected(plain)
    # Under `cli` the pipeline names the CLI that runs the provider (the prior's key).
    assert projected(plain, harness="cli", runs_on=lambda _provider: "claude") > 10 * projected(
        plain
    )
    assert "17×" in harness_warning("cli") and harness_warning("sdk") == ""


def test_projection__a_model_with_no_price_is_unknown_never_zero() -> None:
    plan = both_sides(suite("a"), 2, model=UNPRICED)
    p = project(
        plan, cached=(), history={}, price=Prices({}).cost, judge_model=SONNET,
        harness="sdk", max_runs=20,
    )  # fmt: skip
    assert p.unpriced == 4 and p.total_usd == 0.0
    priced = Prices({UNPRICED: ModelPrice(0.4, 1.6)}).cost
    p = project(
        plan, cached=(), history={}, price=priced, judge_model=SONNET, harness="sdk", max_runs=20
    )
    assert p.unpriced == 0 and p.total_usd > 0


def test_projection__runs_auto_gives_the_least_and_the_most() -> None:
    s = suite("a", "b")
    plan = plan_runs({Side.HEAD: [s], Side.BASE: [s]}, [SONNET])  # auto: 2 start runs
    p = project(
        plan, cached=(), history={}, price=Prices({}).cost, judge_model=SONNET,
        harness="sdk", max_runs=10,
    )  # fmt: skip
    assert len(p.runs) == 8 and p.extra_runs == 4 * 8
    assert p.most_usd == pytest.approx(p.total_usd * 10 / 2)


# --- the budget's cut ------------------------------------------------------------------------


def test_cut__fewer_runs_first_unchanged_cases_before_changed_never_half_a_pair() -> None:
    plan = both_sides(suite("changed", "same"), 3)
    cut = cut_to_budget(
        plan, lambda s: 1.0, 8.0, changed={("evals/s/evals.json", "changed", SONNET)}
    )
    kept = {(s.case.id, s.side, s.repetition) for s in cut.kept}
    # 12 runs at $1 → 8: `same` loses repetition 3, then `changed` does (4 runs, one pair each).
    assert {(c, r) for c, _, r in kept} == {
        ("changed", 1),
        ("changed", 2),
        ("same", 1),
        ("same", 2),
    }
    assert all((c, Side.BASE, r) in kept and (c, Side.HEAD, r) in kept for c, _, r in kept)
    assert cut.kept_usd == 8.0 and cut.projected_usd == 12.0
    cut = cut_to_budget(
        plan, lambda s: 1.0, 3.0, changed={("evals/s/evals.json", "changed", SONNET)}
    )
    assert {s.case.id for s in cut.kept} == {"changed"}  # then whole cases, unchanged first
    assert cut.removed == (("evals/s/evals.json", "same", SONNET),)
    lines = cut_lines(cut)
    assert "max-cost-usd ($3.00) is below the projected $12.00" in lines[0]
    assert any("same on anthropic/claude-sonnet-4-6: not run" in line for line in lines)


def test_cut__a_unit_the_cache_answers_is_free_and_never_cut() -> None:
    plan = both_sides(suite("a"), 2)
    free = {s.key for s in plan.runs if s.repetition == 2}
    cut = cut_to_budget(plan, lambda s: 0.0 if s.key in free else 1.0, 1.0, changed=set())
    assert {s.repetition for s in cut.kept} == {2}  # the paid pair went; the free one stays


# --- prices, spend, the PR's total -----------------------------------------------------------


def _run(cost: float | None, *, cached: bool = False, calls: int = 1, side: Side = Side.HEAD,
         status: Status = Status.PASS, case: str = "a", turns: int = 3) -> RunResult:  # fmt: skip
    usage = Usage(1000, 100, 0, 0, cost, calls)
    transcript = Transcript(final_text="", tool_calls=[], turns=turns, usage=usage)
    return RunResult("evals/s/evals.json", case, SONNET, side, 1, status, 1.0,
                     transcript=transcript, cached=cached)  # fmt: skip


def test_spend__cache_hits_are_saved_not_spent_and_unpriced_is_said() -> None:
    spend = spend_of([_run(0.5), _run(0.49, cached=True), _run(None)])
    assert (spend.paid_usd, spend.saved_usd, spend.unpriced) == (0.5, 0.49, 1)
    assert spend_text(spend) == "$0.50 + price unknown for 1 run"
    assert spend_text(spend_of([_run(None)])) == "price unknown"


def test_prices__an_override_reprices_a_run_and_is_dated() -> None:
    prices = Prices(MappingProxyType({SONNET: ModelPrice(1.0, 1.0)}))
    assert prices.reprice(_run(0.5)).transcript.usage.cost_usd == pytest.approx(1100 / 1e6)
    assert "priced by .evolve.yaml" in prices.as_of()
    assert Prices({}).reprice(run := _run(0.5)) is run


def test_pr_total__parsed_only_when_well_formed_and_a_push_counts_once() -> None:
    total = spend_history.add(None, spend_of([_run(0.5)]), "a" * 40)
    again = spend_history.add(total, spend_of([_run(0.25)]), "a" * 40)  # a re-run: no new push
    later = spend_history.add(again, spend_of([_run(0.25)]), "b" * 40)
    assert (later.usd, later.pushes) == (1.0, 2)
    assert spend_history.parse("x " + spend_history.hidden(later)) == later
    assert spend_history.words(later) == "PR so far: $1.00 over 2 pushes"
    for bad in ('{"usd":-1,"pushes":1}', '{"usd":"1e400","pushes":1}', '{"usd":1}', "{]"):
        assert spend_history.parse(f"<!-- evolve-spend {bad} -->") is None
    assert spend_history.parse("no data") is None
    assert spend_history.add(PrSpend(1.0, 1, "", False), spend_of([_run(None)]), "c" * 40).unknown


# --- max-cost-increase -----------------------------------------------------------------------


def test_cost_increase__flagged_over_the_ratio_only_with_enough_passing_runs() -> None:
    base = [_run(0.1, side=Side.BASE), _run(0.1, side=Side.BASE)]
    head = [_run(0.2, turns=6), _run(0.2, turns=6)]
    (case, skill) = deltas([*base, *head], 1.5)
    assert case.flagged and case.ratio == pytest.approx(2.0) and not skill.flagged
    assert not deltas([*base, *head], 2.5)[0].flagged
    assert not deltas([base[0], head[0]], 1.5)[0].flagged  # one passing run a side: too few
    gate = with_cost_rule(Gate("success", "no significant change", 0), [case], 1.5)
    assert (gate.conclusion, gate.exit_code) == ("failure", 1)
    assert "1 eval cost more than 1.5× per passing run (up to ×2.00)" == gate.reason
    stopped = Gate("cancelled", "stopped", 143)
    assert with_cost_rule(stopped, [case], 1.5) is stopped


def test_cost_increase__a_head_that_passes_less_costs_more_per_success() -> None:
    base = [_run(0.1, side=Side.BASE) for _ in range(4)]
    head = [_run(0.1), _run(0.1), _run(0.1, status=Status.FAIL), _run(0.1, status=Status.FAIL)]
    (case, _) = deltas([*base, *head], 1.5)
    assert case.ratio == pytest.approx(2.0) and case.flagged


def test_run_spec_keys_are_what_the_projection_is_keyed_by() -> None:
    spec = both_sides(suite("a"), 1).runs[0]
    assert isinstance(spec, RunSpec) and spec.key.endswith("|1")
