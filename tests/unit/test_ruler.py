"""What a PR changed in its own evals (issue 26): classification by task, the differences in
words, one judge call for both rulers, and base's ruler as a test of the regression family."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from evolve_action.formats import load_all
from evolve_action.formats.evolve.params import RegexParams
from evolve_action.grade.grading import JudgeSetup, grade_run
from evolve_action.model.evals import (
    Case,
    Check,
    Fixture,
    Format,
    Item,
    JudgeItem,
    Message,
    Origin,
    Skill,
    Suite,
    SuitePolicy,
)
from evolve_action.model.outcomes import RulerGrade, RunResult, Side, Status
from evolve_action.model.provider import ChatRequest, ChatResponse
from evolve_action.plan.planning import plan_runs
from evolve_action.plan.ruler import (
    CaseChange,
    classify,
    describe,
    item_key,
    skill_touched,
    with_rulers,
)
from evolve_action.verdict import ruler, ruler_cells
from evolve_action.verdict.decide import decide
from evolve_action.verdict.stats import aggregate
from tests.unit import test_format_tessl as tessl
from tests.unit.judge_fakes import ScriptedProvider, submit
from tests.unit.test_grade import GatePolicy, _no_command, verdict_check

AT = Origin("evals/s/evals.json", 1)
REL = "evals/s/evals.json"


def regex(pattern: str, item_id: str = "a1", path: str = "greetings/ana.txt") -> Check:
    text = f"{path} matches /{pattern}/"
    return Check(item_id, "evolve.regex", text, AT, RegexParams(pattern, path))


def suite(*cases: Case, policy: SuitePolicy | None = None, fmt: Format = Format.EVOLVE) -> Suite:
    return Suite(
        fmt, Path("/x") / REL, REL, Skill("s", None), cases, policy=policy or SuitePolicy()
    )


def case(case_id: str, *items: Item, prompt: str = "Greet Ana.", **kw: Any) -> Case:
    return Case(case_id, prompt, AT, items=items, **kw)


def kinds(base: Suite, head: Suite) -> dict[str, tuple[CaseChange, str]]:
    return {d.base_case: (d.change, d.head_case) for d in classify(base, head, gating=True)}


def test_cases_are_matched_by_task_never_by_id() -> None:
    base = suite(
        case("same", regex("^Hello")),
        case("ruler", regex("^Hello")),
        case("task", regex("^Hello")),
        case("old-name", regex("^Hello"), prompt="Greet Bob."),
        case("gone", regex("^Hello"), prompt="Greet Carl."),
    )
    head = suite(
        case("same", regex("^Hello")),
        case("ruler", regex(".*")),
        case("task", regex("^Hello"), prompt="Greet Ana warmly."),
        case("new-name", regex("^Hello"), prompt="Greet Bob."),
    )
    assert kinds(base, head) == {
        "ruler": (CaseChange.CHANGED_RULER, "ruler"),
        "task": (CaseChange.CHANGED_CASE, "task"),
        "old-name": (CaseChange.RENAMED, "new-name"),
        "gone": (CaseChange.REMOVED, ""),
    }


def test_a_conversation_or_an_input_file_is_part_of_the_task(tmp_path: Path) -> None:
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    one.write_text("Ana")
    two.write_text("Bob")
    base = suite(
        case("files", files=(Fixture(one, "in.txt", AT),)),
        case("talk", messages=(Message("user", "hi"),)),
    )
    head = suite(
        case("files", files=(Fixture(two, "in.txt", AT),)),
        case("talk", messages=(Message("user", "hello"),)),
    )
    diffs = {d.base_case: d for d in classify(base, head, gating=True)}
    assert diffs["files"].change is CaseChange.CHANGED_CASE and diffs["files"].what == "input files"
    assert diffs["talk"].change is CaseChange.CHANGED_CASE and diffs["talk"].what == "messages"


def test_each_weakened_check_is_named_with_its_diff() -> None:
    ana = regex("^Hello, Ana!$")
    required = JudgeItem("j1", "The greeting is polite.", AT, required=1.0)
    base = suite(
        case(
            "c", ana, regex("^Hello", "a2", "out.txt"), required, JudgeItem("j2", "Names Ana.", AT)
        ),
        policy=SuitePolicy(min_pass_rate=0.8),
    )
    head = suite(
        case(
            "c",
            regex(".*", "a2", "out.txt"),
            JudgeItem("j1", "The greeting is polite.", AT),
            JudgeItem("j2", "Says something.", AT),
        ),
        policy=SuitePolicy(min_pass_rate=0.2),
    )
    said = describe(base, base.cases[0], head, head.cases[0])
    assert "removed: `greetings/ana.txt matches /^Hello, Ana!$/`" in said
    assert "`out.txt matches /^Hello/`: regex /^Hello/ → /.*/" in said
    assert "“The greeting is polite.”: required 1.0 → optional" in said
    assert "“Names Ana.” → “Says something.”" in said
    assert "min_pass_rate 0.8 → 0.2" in said


def test_thresholds_of_other_formats_are_compared_alike() -> None:
    item = JudgeItem("r1", "Accurate.", AT, weight=2.0)
    base = suite(case("c", item), policy=SuitePolicy(threshold=0.8), fmt=Format.AGENTV)
    head = suite(
        case("c", JudgeItem("r1", "Accurate.", AT, weight=0.5)),
        policy=SuitePolicy(threshold=0.5),
        fmt=Format.AGENTV,
    )
    (d,) = classify(base, head, gating=True)
    assert d.change is CaseChange.CHANGED_RULER
    assert d.diffs == ("“Accurate.”: weight 2.0 → 0.5", "threshold 0.8 → 0.5")


def test_head_runs_of_a_changed_ruler_carry_base_case_and_base_runs_do_not() -> None:
    base = suite(case("c", regex("^Hello")), case("d", regex("x")))
    head = suite(case("c", regex(".*")), case("d", regex("x")))
    diffs = classify(base, head, gating=True)
    plan = with_rulers(
        plan_runs({Side.BASE: [base], Side.HEAD: [head]}, ["m/x"], runs=2), [base], diffs
    )
    carried = {(r.side, r.case.id): r.ruler for r in plan.runs}
    head_c = carried[(Side.HEAD, "c")]
    assert head_c is not None and head_c.case is base.cases[0]
    assert carried[(Side.BASE, "c")] is None and carried[(Side.HEAD, "d")] is None


def test_a_skill_is_touched_only_by_its_own_files(tmp_path: Path) -> None:
    (tmp_path / "skills/s").mkdir(parents=True)
    s = Suite(Format.EVOLVE, tmp_path / REL, REL, Skill("s", tmp_path / "skills/s"), ())
    assert skill_touched(s, tmp_path, ["skills/s/SKILL.md"])
    assert not skill_touched(s, tmp_path, [REL, "skills/sx/SKILL.md"])


async def test_base_judge_items_go_into_the_same_single_judge_call(tmp_path: Path) -> None:
    from evolve_action.model.checking import CheckContext
    from evolve_action.model.outcomes import Transcript

    shared = JudgeItem("j1", "Names Ana.", AT)
    head_case = case("c", verdict_check("det", True), shared)
    base_case = case("c", verdict_check("det", False), shared, JudgeItem("j2", "Polite.", AT))
    s = suite(head_case)

    def answer(request: ChatRequest) -> ChatResponse:
        return submit(
            {
                "expectations": [
                    {"id": 1, "passed": True, "evidence": "named"},
                    {"id": 2, "passed": False, "evidence": "rude"},
                ]
            }
        )

    provider = ScriptedProvider([answer])
    ctx = CheckContext(s, head_case, tmp_path, Transcript(final_text="ok"), _no_command, 30.0)
    setup = JudgeSetup(provider, "anthropic/claude-sonnet-4-6", timeout_s=5.0)
    graded = await grade_run(ctx, setup, policy=GatePolicy(), also=[(suite(base_case), base_case)])
    assert len(provider.requests) == 1  # one call: "Names Ana." once, "Polite." beside it
    assert graded.status is Status.PASS
    (under_base,) = graded.also
    assert [(r.item_id, r.passed) for r in under_base.items[:3]] == [
        ("det", False),
        ("j1", True),
        ("j2", False),
    ]


def _runs(
    case_id: str, side: Side, passed: int, n: int, ruled: int | None = None
) -> list[RunResult]:
    out = []
    for i in range(n):
        status = Status.PASS if i < passed else Status.FAIL
        grade = None
        if ruled is not None:
            rstatus = Status.PASS if i < ruled else Status.FAIL
            grade = RulerGrade("k", "c", rstatus)
        out.append(RunResult(REL, case_id, "m/x", side, i + 1, status, ruler=grade))
    return out


def test_base_ruler_is_a_test_of_the_regression_family() -> None:
    base = suite(case("c", regex("^Hello")))
    head = suite(case("c", regex(".*")))
    runs = [*_runs("c", Side.BASE, 6, 6), *_runs("c", Side.HEAD, 6, 6, ruled=0)]
    for gating, regressed in ((True, True), (False, False)):
        diffs = classify(base, head, gating=gating)
        agg = aggregate(
            runs,
            [head, base],
            verdict_only=ruler_cells.ruler_runs(runs, diffs),
            not_compared=ruler_cells.not_compared(diffs),
        )
        report = ruler.report(runs, diffs, agg.verdict)
        assert agg.verdict.regressed is regressed
        assert [c.case_id for c in agg.cases] == ["c"]  # the ruler cell has no row of its own
        (row,) = report.rows
        assert (row.base, row.ruled, row.own) == ((6, 6), (0, 6), (6, 6))
        assert row.regressed is regressed


def test_a_stricter_ruler_on_an_unchanged_skill_is_an_a_a_test() -> None:
    # Head's own checks fail every run; the own comparison mixes two rulers and is not tested.
    base = suite(case("c", regex("^Hello")))
    head = suite(case("c", regex("^Hello!!")))
    runs = [*_runs("c", Side.BASE, 6, 6), *_runs("c", Side.HEAD, 0, 6, ruled=6)]
    diffs = classify(base, head, gating=True)
    agg = aggregate(
        runs,
        [head, base],
        verdict_only=ruler_cells.ruler_runs(runs, diffs),
        not_compared=ruler_cells.not_compared(diffs),
    )
    assert not agg.verdict.regressed


def test_a_removed_case_keeps_its_last_base_pass_rate() -> None:
    base = suite(case("c", regex("^Hello")), case("gone", regex("x"), prompt="Other."))
    head = suite(case("c", regex("^Hello")))
    runs = [*_runs("gone", Side.BASE, 3, 4)]
    report = ruler.report(runs, classify(base, head, gating=True), decide({}, 0.05))
    (removed,) = report.removed_while_passing
    assert (removed.case_id, removed.base, removed.rate) == ("gone", (3, 4), 0.75)


def test_a_loaded_tessl_checklist_with_a_criterion_dropped_and_one_cheapened(
    tmp_path: Path,
) -> None:
    base = tessl.suite(tmp_path / "base")
    weaker = copy.deepcopy(tessl.CRITERIA)
    weaker["checklist"] = [{**weaker["checklist"][0], "max_score": 1}]  # type: ignore[index]
    (tmp_path / "head").mkdir()
    (loaded,) = load_all(tessl.repo(tmp_path / "head", weaker))
    assert loaded.suite is not None
    (d,) = classify(base, loaded.suite, gating=True)
    assert d.change is CaseChange.CHANGED_RULER
    assert any(x.startswith("removed: “Violation identified") for x in d.diffs)
    assert any(x.endswith("weight 4.0 → 1.0") for x in d.diffs), d.diffs


def test_an_items_key_is_its_content_asked_once_per_item_and_never_by_equality() -> None:
    """Kept per item object: the same object gives its key again; a copy, equal in content,
    gives the same key; `1 == True`, yet items that say 1 and true are different checks."""
    item = regex("kw")
    assert item_key(item) == item_key(item) == item_key(copy.deepcopy(item))
    assert item_key(item) != item_key(regex("other"))
    one = JudgeItem("j", "x", AT, weight=1)
    true = JudgeItem("j", "x", AT, weight=True)
    assert one == true and item_key(one) != item_key(true)
