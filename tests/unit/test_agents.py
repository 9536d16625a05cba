"""Several agents in one job (`agents`): the inputs, the plan's agent dimension, fingerprints,
the verdict's family, the comment's column groups, the judge's family, and a skill run on the
agent whose folder holds it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from evolve_action.model import lanes
from evolve_action.model.evals import Case, Format, Origin, Skill, Suite
from evolve_action.model.outcomes import RunResult, Side, Status
from evolve_action.model.records import run_doc, run_from_doc
from evolve_action.pipeline.agents import at_home, cannot_run, home_agent, job_agents
from evolve_action.plan.fingerprints import Fingerprinter
from evolve_action.plan.judge_family import judge_token
from evolve_action.plan.planning import plan_runs
from evolve_action.publish.render.build.assemble import build_view
from evolve_action.publish.render.comment import render
from evolve_action.settings.inputs import Harness, Settings, SettingsError, from_values
from tests.fakes.reports import M1, make_report, make_suite, outcome

MODELS = ["anthropic/claude-sonnet-4-6", "openai/gpt-5.4"]


def suite(rel: str = "evals/s/evals.json", *, agent: bool = True) -> Suite:
    case = Case(id="a", prompt="p", origin=Origin(rel, 3))
    return Suite(Format.EVOLVE, Path("/r") / rel, rel, Skill("s", None), (case,), runs=2,
                 agent=agent)  # fmt: skip


# --- inputs ----------------------------------------------------------------------------------


def test_agents_input_takes_a_comma_list_with_the_product_names_as_aliases() -> None:
    settings = from_values({"agents": "claude-code, Copilot,claude", "harness": "cli"})
    assert settings.agents == ("claude", "copilot")
    assert job_agents(settings) == ("claude", "copilot")
    assert from_values({"agent": "claude-code"}).agent == "claude"


def test_one_agent_in_agents_is_the_agent_and_no_dimension() -> None:
    settings = from_values({"agents": "copilot", "harness": "cli"})
    assert settings.agent == "copilot" and job_agents(settings) == ()


def test_a_misspelt_agent_is_refused_with_the_closest_name() -> None:
    expected = r"input agents: 'copilt' is not an agent CLI.*did you mean copilot\?"
    with pytest.raises(SettingsError, match=expected):
        from_values({"agents": "claude,copilt", "harness": "cli"})


def test_agents_with_the_sdk_harness_says_what_to_do() -> None:
    with pytest.raises(SettingsError, match="set `harness: cli`"):
        from_values({"agents": "claude,codex"})
    with pytest.raises(SettingsError, match="disagree"):
        from_values({"agents": "claude,codex", "agent": "copilot", "harness": "cli"})


def test_a_watch_with_several_agents_is_refused_saying_what_to_do() -> None:
    with pytest.raises(SettingsError, match=r"inputs mode \(watch\) and agents") as refused:
        from_values({"agents": "claude,copilot", "harness": "cli", "mode": "watch"})
    assert "`agent: <name>`" in str(refused.value) and "history-dir" in str(refused.value)
    watch_one = from_values({"agents": "copilot", "harness": "cli", "mode": "watch"})
    assert watch_one.agent == "copilot"  # one agent is no dimension: a watch as ever


# --- the plan --------------------------------------------------------------------------------


def test_each_case_runs_on_each_agent_that_speaks_its_provider() -> None:
    models = [*MODELS, "gemini/gemini-3-pro"]
    plan = plan_runs({Side.HEAD: [suite()]}, models, agents=("claude", "copilot"),
                     agent_check=cannot_run)  # fmt: skip
    made = sorted((r.model, r.agent, r.repetition) for r in plan.runs)
    # Claude Code runs Anthropic's models only, Copilot both: three pairs, two runs each.
    assert {(m, a) for m, a, _ in made} == {
        (MODELS[0], "claude"),
        (MODELS[0], "copilot"),
        (MODELS[1], "copilot"),
    }
    assert len(made) == 6
    assert len({r.key for r in plan.runs}) == len(plan.runs)
    notes = [s.reason for s in plan.skipped]
    assert any("Claude Code runs anthropic models, not openai" in n for n in notes)
    assert any("Claude Code runs anthropic models, not gemini" in n for n in notes)
    assert any("Copilot runs" in n and "not gemini" in n for n in notes)


def test_one_agent_plans_as_before() -> None:
    plan = plan_runs({Side.HEAD: [suite()]}, MODELS)
    assert {r.agent for r in plan.runs} == {""}
    assert all(r.key.count("|") == 4 for r in plan.runs)


def test_a_plain_prompt_suite_runs_once_whatever_the_agents() -> None:
    plan = plan_runs({Side.HEAD: [suite(agent=False)]}, MODELS[:1], agents=("claude", "codex"))
    assert [r.agent for r in plan.runs] == ["", ""]


def test_the_no_skill_arm_runs_per_agent_too() -> None:
    plan = plan_runs({Side.HEAD: [suite()], Side.NO_SKILL: [suite()]}, MODELS[:1],
                     agents=("claude", "copilot"), agent_check=cannot_run)  # fmt: skip
    arm = {(r.agent, r.repetition) for r in plan.runs if r.side is Side.NO_SKILL}
    assert arm == {("claude", 1), ("claude", 2), ("copilot", 1), ("copilot", 2)}


def test_fingerprints_differ_per_agent_and_stay_without_one() -> None:
    s = suite()
    f = Fingerprinter(
        "anthropic/j", "cli:claude 1", {"claude": "cli:claude 1", "codex": "cli:codex 2"}
    )
    plain = f.run(s, s.cases[0], model=MODELS[0], repetition=1)
    on = {
        a: f.run(s, s.cases[0], model=MODELS[0], repetition=1, agent=a) for a in ("claude", "codex")
    }
    assert len({plain, *on.values()}) == 3
    task = {
        a: f.task(s, s.cases[0], model=MODELS[0], repetition=1, agent=a)
        for a in ("claude", "codex")
    }
    assert task["claude"] != task["codex"]
    before = Fingerprinter("anthropic/j", "cli:claude 1")
    assert before.run(s, s.cases[0], model=MODELS[0], repetition=1) == plain


def test_a_skill_in_one_agents_folder_runs_on_that_agent() -> None:
    assert home_agent(".github/skills/foo/evals/evals.json") == "copilot"
    assert home_agent(".agents/skills/foo/evals/evals.json") == "codex"
    assert home_agent(".opencode/skills/foo/evals/evals.json") == "opencode"
    assert home_agent(".claude/skills/foo/evals/evals.json") == ""
    assert home_agent("evals/foo/evals.json") == ""
    plan = plan_runs({Side.HEAD: [suite(".github/skills/s/evals/evals.json"), suite()]}, MODELS[:1])
    moved = at_home(plan, Settings(harness=Harness.CLI))
    assert sorted({(r.suite.rel, r.agent) for r in moved.runs}) == [
        (".github/skills/s/evals/evals.json", "copilot"),
        ("evals/s/evals.json", ""),
    ]
    assert at_home(plan, Settings(harness=Harness.CLI, agent="claude")).runs == plan.runs
    assert at_home(plan, Settings()).runs == plan.runs  # the SDK loop: no agent to choose


# --- records, the verdict, the comment -------------------------------------------------------


def test_a_record_keeps_the_plain_model_and_the_agent() -> None:
    run = RunResult("s", "a", MODELS[0], Side.HEAD, 1, outcome_status(), agent="copilot")
    (labelled,) = lanes.relabel([run])
    assert labelled.model == f"{MODELS[0]} · Copilot"
    doc = run_doc(labelled)
    assert doc["model"] == MODELS[0] and doc["agent"] == "copilot"
    back = run_from_doc(doc)
    assert (back.model, back.agent) == (MODELS[0], "copilot")
    assert lanes.relabel([back])[0].model == labelled.model
    assert "agent" not in run_doc(replace(run, agent=""))


def outcome_status() -> Status:
    return Status.PASS


GREETER = make_suite("greeter", [("greets", 10), ("weather", 20)])


def on(agent: str, runs: list[RunResult]) -> list[RunResult]:
    return lanes.relabel([replace(r, agent=agent) for r in runs])


def test_each_model_agent_pair_is_a_member_of_the_family() -> None:
    runs = [
        *on("claude", outcome(GREETER, "greets", M1, base=(4, 0), head=(4, 0))),
        *on("copilot", outcome(GREETER, "greets", M1, base=(4, 0), head=(4, 0))),
    ]
    report = make_report([GREETER], runs)
    assert {c.model for c in report.aggregate.cases} == {f"{M1} · Claude Code", f"{M1} · Copilot"}
    rows = report.aggregate.verdict.cases[(GREETER.rel, "greets")].rows
    assert set(rows) == {f"{M1} · Claude Code", f"{M1} · Copilot"}


def test_the_comment_shows_a_column_group_per_agent_and_where_they_disagree() -> None:
    runs = [
        *on("claude", outcome(GREETER, "greets", M1, base=(0, 8), head=(8, 0))),
        *on("copilot", outcome(GREETER, "greets", M1, base=(4, 4), head=(4, 4))),
        *on("claude", outcome(GREETER, "weather", M1, base=(4, 0), head=(4, 0))),
        *on("copilot", outcome(GREETER, "weather", M1, base=(4, 0), head=(4, 0))),
    ]
    text = render(build_view(make_report([GREETER], runs)))
    assert "| skill | model | Claude Code | verdict | Copilot | verdict |" in text
    assert "2 cases × 1 model × 2 agents × 4–8 runs on base" in text
    assert "**The agents disagree**" in text
    assert "- `greets`: helps on Claude Code, no effect on Copilot." in text
    assert "`weather`: " not in text.split("**The agents disagree**")[1].split("\n\n")[1]


def test_one_agent_shows_no_agent_part() -> None:
    runs = outcome(GREETER, "greets", M1, base=(0, 8), head=(8, 0))
    text = render(build_view(make_report([GREETER], runs)))
    assert "Claude Code" not in text and "agents disagree" not in text


def test_the_footer_names_the_judge_and_its_family() -> None:
    runs = outcome(GREETER, "greets", M1, base=(4, 0), head=(4, 0))
    text = render(build_view(make_report([GREETER], runs, judge_model="openai/gpt-5.4")))
    assert "judge `openai/gpt-5.4` (openai family)" in text


# --- the judge's family ----------------------------------------------------------------------


def keyed(*providers: str) -> Callable[[str], bool]:
    return lambda p: p in providers


def test_judge_family_empty_is_todays_choice() -> None:
    assert judge_token("", "", MODELS[:1], keyed("anthropic")) == ""
    assert judge_token("", "openai/gpt-5.4", MODELS[:1], keyed()) == "openai/gpt-5.4"


def test_judge_family_other_picks_a_provider_none_of_the_models_comes_from() -> None:
    assert judge_token("other", "", MODELS[:1], keyed("anthropic", "openai")) == "openai/gpt-5.4"
    assert judge_token("other", "", MODELS[1:], keyed("anthropic", "openai")).startswith(
        "anthropic/"
    )


def test_judge_family_other_without_a_key_of_another_family_says_what_to_set() -> None:
    with pytest.raises(
        SettingsError, match="no such provider has a key; set one of openai-api-key"
    ):
        judge_token("other", "", MODELS[:1], keyed("anthropic"))
    with pytest.raises(SettingsError, match="the judge is of the models' own family"):
        judge_token("other", "anthropic/claude-opus-4-6", MODELS[:1], keyed("anthropic", "openai"))


def test_judge_family_a_provider_needs_its_key() -> None:
    assert judge_token("openai", "", MODELS[:1], keyed("openai")) == "openai/gpt-5.4"
    with pytest.raises(SettingsError, match="no openai key is set; set openai-api-key"):
        judge_token("openai", "", MODELS[:1], keyed("anthropic"))
    with pytest.raises(SettingsError, match="disagree"):
        judge_token("openai", "anthropic/claude-opus-4-6", MODELS[:1], keyed("openai"))
    assert from_values({"judge-family": "OpenAI"}).judge_family == "openai"
    with pytest.raises(SettingsError, match="input judge-family: 'mine' is neither `other`"):
        from_values({"judge-family": "mine"})


def test_the_cost_prior_follows_each_runs_agent() -> None:
    from evolve_action.plan import cost_prior
    from evolve_action.plan.projection import Pricing

    spec = plan_runs({Side.HEAD: [suite()]}, MODELS[:1]).runs[0]
    how = Pricing(lambda _m, _u: 0.0, "anthropic/j", "cli", runs_on=lambda _p: "claude")
    assert how.prior_harness(spec) == "claude"
    assert how.prior_harness(replace(spec, agent="copilot")) == "copilot"
    copilot = cost_prior.prior_for("anthropic", "copilot")
    assert copilot not in (cost_prior.FALLBACK, cost_prior.prior_for("anthropic", "claude"))
