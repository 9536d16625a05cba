from __future__ import annotations

from pathlib import Path

from evolve_action.model.evals import Case, Format, Origin, Skill, Suite
from evolve_action.model.outcomes import Side
from evolve_action.plan.planning import plan_runs, runs_for, token_matches

MODELS = ["anthropic/claude-sonnet-4-6", "openai/gpt-5.4"]


def make_suite(*cases: Case, models: tuple[str, ...] = (), runs: int | None = None) -> Suite:
    return Suite(
        format=Format.EVOLVE,
        path=Path("/r/evals/s/evals.json"),
        rel="evals/s/evals.json",
        skill=Skill("s", None),
        cases=cases,
        models=models,
        runs=runs,
    )


def make_case(case_id: str, **kw: object) -> Case:
    return Case(id=case_id, prompt="p", origin=Origin("evals/s/evals.json", 3), **kw)  # type: ignore[arg-type]


def test_token_matches__evolve_token_rules() -> None:
    model = "anthropic/claude-sonnet-4-6"
    for token in ("all", "anthropic", model, "claude-sonnet-4-6", " anthropic "):
        assert token_matches(token, model)
    for token in ("openai", "claude", "anthropic/claude-haiku-4-5"):
        assert not token_matches(token, model)


def test_plan__models_restriction_and_skip_providers_are_explained() -> None:
    suite = make_suite(
        make_case("a"),
        make_case("b", skip_providers=frozenset({"anthropic"})),
        models=("anthropic", "openai"),
        runs=2,
    )
    narrowed = make_suite(make_case("c"), models=("openai/gpt-5.4",))
    plan = plan_runs({Side.HEAD: [suite, narrowed]}, MODELS)
    keys = sorted((r.case.id, r.model, r.repetition) for r in plan.runs)
    assert keys == [
        ("a", MODELS[0], 1),
        ("a", MODELS[0], 2),
        ("a", MODELS[1], 1),
        ("a", MODELS[1], 2),
        ("b", MODELS[1], 1),
        ("b", MODELS[1], 2),
        ("c", MODELS[1], 1),  # no runs setting: `auto`, which starts with 2
        ("c", MODELS[1], 2),
    ]
    assert plan.adaptive == {narrowed.rel}
    reasons = {(s.case, s.model): s.reason for s in plan.skipped}
    assert reasons[("b", MODELS[0])] == "skip_providers lists anthropic"
    assert "excludes it" in reasons[("", MODELS[0])]


def test_plan__same_skip_on_both_sides_is_listed_once() -> None:
    suite = make_suite(make_case("b", skip_providers=frozenset({"openai"})))
    plan = plan_runs({Side.BASE: [suite], Side.HEAD: [suite]}, MODELS, runs=1)
    assert len(plan.skipped) == 1
    assert {r.side for r in plan.runs} == {Side.BASE, Side.HEAD}


def test_runs_for__input_then_file_then_auto() -> None:
    assert runs_for(make_suite(runs=5), 2) == 2
    assert runs_for(make_suite(runs=5), "auto") == "auto"
    assert runs_for(make_suite(runs=5), None) == 5
    assert runs_for(make_suite(), None) == "auto"


def test_plan__auto_starts_small_and_without_waves_means_a_fixed_three() -> None:
    suite = make_suite(make_case("a"))
    adaptive = plan_runs({Side.HEAD: [suite]}, MODELS[:1], runs="auto")
    assert [r.repetition for r in adaptive.runs] == [1, 2]
    assert adaptive.adaptive == {suite.rel}
    sharded = plan_runs({Side.HEAD: [suite]}, MODELS[:1], runs="auto", start=None)
    assert [r.repetition for r in sharded.runs] == [1, 2, 3]
    assert not sharded.adaptive
