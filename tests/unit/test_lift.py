"""The no-skill arm's verdict (`verdict.lift`), its gate (`fail-without-lift`), its planning
(`plan.no_skill`) and its fingerprint, on real counts and real files."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from evolve_action.model.evals import Case, CaseKind, Format, Origin, Skill, Suite, SuitePolicy
from evolve_action.model.outcomes import RunResult, Side, Status
from evolve_action.plan.no_skill import arm_suites, new_skills
from evolve_action.settings.config import load_config
from evolve_action.settings.inputs import Baseline, Settings
from evolve_action.verdict.gate import evaluate
from evolve_action.verdict.lift import frame_runs, measure
from evolve_action.verdict.stats import aggregate
from tests.unit.test_fingerprints import fp, make_tree

MODEL = "anthropic/claude-sonnet-4-6"
SUITE = "evals/poet/evals.json"


def runs(case: str, side: Side, passed: int, failed: int, *, suite: str = SUITE) -> list[RunResult]:
    statuses = [Status.PASS] * passed + [Status.FAIL] * failed
    return [
        RunResult(suite, case, MODEL, side, i + 1, s, float(s is Status.PASS), [])
        for i, s in enumerate(statuses)
    ]


def test_frame_puts_head_as_base_and_no_skill_as_head_only_where_the_arm_ran() -> None:
    made = [*runs("a", Side.HEAD, 2, 0), *runs("a", Side.NO_SKILL, 0, 2)]
    made += [*runs("b", Side.HEAD, 1, 0), *runs("a", Side.BASE, 2, 0)]
    frame = frame_runs(made)
    assert sorted((r.case_id, r.side.value) for r in frame) == [
        ("a", "base"),
        ("a", "base"),
        ("a", "head"),
        ("a", "head"),
    ]


def test_a_skill_that_solves_its_case_helps_with_its_adjusted_p() -> None:
    lift = measure([*runs("a", Side.HEAD, 5, 0), *runs("a", Side.NO_SKILL, 0, 5)])
    assert lift is not None
    (case,) = lift.cases
    assert case.helps and case.lift == 1.0
    # One case, one model: Fisher's one-sided p = 1 / C(10, 5); the case gets all of alpha.
    assert case.adjusted_p is not None and abs(case.adjusted_p - 1 / 252) < 1e-9
    (skill,) = lift.skills
    assert (skill.head_rate, skill.no_skill_rate, skill.lift) == (1.0, 0.0, 1.0)
    assert skill.helps and skill.adjusted_p == case.adjusted_p
    assert lift.helps(SUITE) and lift.measured == (SUITE,)


def test_no_lift_and_a_skill_that_hurts_are_not_helping() -> None:
    flat = measure([*runs("a", Side.HEAD, 3, 2), *runs("a", Side.NO_SKILL, 3, 2)])
    hurts = measure([*runs("a", Side.HEAD, 0, 5), *runs("a", Side.NO_SKILL, 5, 0)])
    assert flat is not None and hurts is not None
    assert not flat.helps(SUITE) and flat.skills[0].lift == 0.0
    assert not hurts.helps(SUITE) and hurts.skills[0].lift == -1.0
    assert hurts.cases[0].adjusted_p is None  # no p for a help it did not show


def test_many_small_lifts_add_up_at_the_skill_level() -> None:
    made = []
    for i in range(8):  # each case 4/5 with the skill, 1/5 without: none alone is enough
        made += [*runs(f"c{i}", Side.HEAD, 4, 1), *runs(f"c{i}", Side.NO_SKILL, 1, 4)]
    lift = measure(made)
    assert lift is not None and lift.helps(SUITE)


def test_no_arm_no_lift_and_the_regression_verdict_never_sees_the_arm() -> None:
    assert measure(runs("a", Side.HEAD, 3, 0)) is None
    made = [*runs("a", Side.BASE, 5, 0), *runs("a", Side.HEAD, 5, 0)]
    made += runs("a", Side.NO_SKILL, 0, 5)
    agg = aggregate(made)
    assert not agg.verdict.regressed
    assert set(agg.overall.runs) == {"base", "head"}
    (row,) = agg.cases
    assert (row.base.runs, row.head.runs) == (5, 5)  # type: ignore[union-attr]


def test_fail_without_lift_is_opt_in_and_names_the_skills_without_one() -> None:
    made = [*runs("a", Side.BASE, 3, 2), *runs("a", Side.HEAD, 3, 2)]
    made += runs("a", Side.NO_SKILL, 3, 2)
    agg, lift = aggregate(made), measure(made)
    assert evaluate(agg, Settings(), lift=lift).conclusion == "success"
    gate = evaluate(agg, Settings(fail_without_lift=True), lift=lift)
    assert gate.conclusion == "failure" and gate.exit_code == 1
    assert gate.reason == "1 skill not significantly better than no skill"
    helped = [*runs("a", Side.BASE, 5, 0), *runs("a", Side.HEAD, 5, 0)]
    helped += runs("a", Side.NO_SKILL, 0, 5)
    ok = evaluate(aggregate(helped), Settings(fail_without_lift=True), lift=measure(helped))
    assert ok.conclusion == "success"


def _suite(name: str, *, kinds: tuple[CaseKind, ...] = (CaseKind.TASK,), **policy: object) -> Suite:
    rel = f"evals/{name}/evals.json"
    cases = tuple(
        Case(id=f"c{i}", prompt="p", origin=Origin(rel, 1), kind=kind)
        for i, kind in enumerate(kinds)
    )
    skill = Skill(name, Path(f"/repo/skills/{name}"))
    return Suite(
        Format.EVOLVE, Path("/repo") / rel, rel, skill, cases, policy=SuitePolicy(**policy)
    )


def test_auto_arms_a_new_skill_and_a_file_that_asks_never_a_trigger_case() -> None:
    old, fresh = _suite("old"), _suite("fresh", kinds=(CaseKind.TASK, CaseKind.TRIGGER))
    asks = _suite("asks", baseline_comparison=True)
    chosen = [old, fresh, asks]
    base = [old, _suite("asks")]
    assert new_skills(chosen, base) == {"fresh"}
    armed = arm_suites(chosen, Baseline.AUTO, all_base=base)
    assert [s.rel for s in armed] == [fresh.rel, asks.rel]
    assert [c.id for c in armed[0].cases] == ["c0"]  # the trigger case is left out
    assert arm_suites(chosen, Baseline.NONE, all_base=base) == []
    assert len(arm_suites(chosen, Baseline.NO_SKILL, all_base=base)) == 3
    # No base tree: nothing is new in a change; only the file that asks runs the arm.
    assert [s.rel for s in arm_suites(chosen, Baseline.AUTO, all_base=None)] == [asks.rel]
    vally = _suite("vally", no_skill_arm=True)  # a Vally experiment's skill-free arm
    assert arm_suites([vally], Baseline.AUTO, all_base=[vally]) == [vally]
    model_only = replace(_suite("plain"), agent=False)
    assert arm_suites([model_only], Baseline.NO_SKILL, all_base=[]) == []


def test_the_no_skill_fingerprint_leaves_the_skill_out(tmp_path: Path) -> None:
    one, edited = make_tree(tmp_path / "a"), make_tree(tmp_path / "b", skill_text="B\n")
    assert fp(one, skill=False) == fp(edited, skill=False)  # editing the skill keeps it
    assert fp(one, skill=False) != fp(one)  # never served from a with-skill run
    assert fp(make_tree(tmp_path / "c", seed="x\n"), skill=False) != fp(one, skill=False)


def test_config_baseline_takes_ours_and_evolves_spelling(tmp_path: Path) -> None:
    def read(text: str) -> tuple[str | None, list[str]]:
        (tmp_path / ".evolve.yaml").write_text(text)
        loaded = load_config(tmp_path)
        return loaded.config.baseline, [p.message for p in loaded.problems]

    assert read("baseline: no-skill\n") == ("no-skill", [])
    assert read("baseline: true\n") == ("no-skill", [])  # evolve's own key: a no-skill run
    assert read("baseline: false\n") == ("none", [])
    value, problems = read("baseline: sometimes\n")
    assert value is None and "use one of no-skill, none, auto" in problems[0]
