"""skill-evaluator verdicts: the structural gate, the 0.6 rubric edge, overall_efficiency."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from evolve_action.formats.base import LoadContext
from evolve_action.formats.documents import read
from evolve_action.formats.skill_evaluator.load import load
from evolve_action.formats.skill_evaluator.params import ExistsParams
from evolve_action.formats.skill_evaluator.scoring import SkillEvaluatorPolicy, breakdown
from evolve_action.grade.grading import GATE_CLOSED, JudgeSetup, grade_run
from evolve_action.grade.judge_prompt import SUBMIT_TOOL
from evolve_action.grade.scoring import policy_for
from evolve_action.model.checking import CheckContext
from evolve_action.model.evals import (
    Case,
    Check,
    Format,
    JudgeItem,
    Origin,
    Scale,
    Skill,
    Suite,
    SuitePolicy,
)
from evolve_action.model.outcomes import CommandResult, ItemResult, JudgeReport, Status, Transcript
from evolve_action.model.provider import ChatRequest, ChatResponse, ToolUsePart

HERE = Origin("skills/demo/evals/evals.json", 1)


def structural(item_id: str, critical: bool = False) -> Check:
    return Check(item_id, "skill_evaluator.no_errors", item_id, HERE, critical=critical)


def dimension(name: str, weight: float) -> JudgeItem:
    return JudgeItem(name, name, HERE, scale=Scale.LIKERT5, kind="rubric", weight=weight)


def expectation(item_id: str) -> JudgeItem:
    return JudgeItem(item_id, item_id, HERE, source="expectation")


def make(*items: Check | JudgeItem, gate: bool = True) -> tuple[Suite, Case]:
    case = Case(id="1", prompt="p", origin=HERE, items=items)
    policy = SuitePolicy(structural_gate=gate, rubric_threshold=0.6)
    suite = Suite(
        format=Format.SKILL_EVALUATOR,
        path=Path("/repo/skills/demo/evals/evals.json"),
        rel="skills/demo/evals/evals.json",
        skill=Skill("demo", None),
        cases=(case,),
        policy=policy,
    )
    return suite, case


def ok(item_id: str, passed: bool | None = True) -> ItemResult:
    return ItemResult(item_id, item_id, passed, "evidence")


def scored(name: str, raw: float | None) -> ItemResult:
    score = None if raw is None else (raw - 1) / 4  # as judge_parse.scaled sets it
    return ItemResult(name, name, raw is not None, "", score=score, kind="judge", raw_score=raw)


POLICY = SkillEvaluatorPolicy()


async def never(*args: Any, **kwargs: Any) -> CommandResult:
    raise AssertionError("no command expected")


def verdict(suite: Suite, case: Case, items: Sequence[ItemResult]) -> tuple[Status, float, str]:
    v = POLICY.verdict(suite, case, items, JudgeReport())
    return v.status, v.score, v.reason


def test_policy__registered_for_the_format() -> None:
    assert isinstance(policy_for(Format.SKILL_EVALUATOR), SkillEvaluatorPolicy)


# --- the gate ---------------------------------------------------------------------------------


def test_judge_needed__closed_by_failed_critical_check() -> None:
    suite, case = make(structural("S1", critical=True), structural("S2"), dimension("q", 1))
    assert POLICY.judge_needed(suite, case, [ok("S1"), ok("S2", False)]) is True
    assert POLICY.judge_needed(suite, case, [ok("S1", False), ok("S2")]) is False
    assert POLICY.judge_needed(suite, case, [ok("S2")]) is False  # no result = failed
    assert POLICY.judge_needed(suite, case, [ok("S1", None), ok("S2")]) is True  # skip


def test_judge_needed__gate_off_or_nothing_to_judge() -> None:
    suite, case = make(structural("S1", critical=True), dimension("q", 1), gate=False)
    assert POLICY.judge_needed(suite, case, [ok("S1", False)]) is True
    suite, case = make(structural("S1", critical=True))
    assert POLICY.judge_needed(suite, case, [ok("S1")]) is False


def test_verdict__gate_closed_scores_rubric_as_zero() -> None:
    suite, case = make(
        structural("S1", critical=True), structural("S2"), expectation("E1"), dimension("q", 1)
    )
    # grade.py hands the ungraded judge items over as skips.
    gated = [ok("S1", False), ok("S2"), ok("E1", None), ok("q", None)]
    status, score, reason = verdict(suite, case, gated)
    assert status is Status.FAIL
    assert score == pytest.approx(0.4 * 0.5)
    assert reason == "structural gate closed: critical check S1 failed, judge not called"
    b = breakdown(suite, case, gated)
    assert (b.gate_passed, b.rubric_normalized, b.expectations_failed) == (False, 0.0, 0)
    assert b.rubric_scores == {"q": None}


def test_verdict__gate_off_still_fails_on_critical_check_but_uses_rubric() -> None:
    suite, case = make(structural("S1", critical=True), dimension("q", 1), gate=False)
    status, score, _ = verdict(suite, case, [ok("S1", False), scored("q", 5)])
    assert status is Status.FAIL
    assert score == pytest.approx(0.6)


# --- the rubric threshold ---------------------------------------------------------------------


@pytest.mark.parametrize("weights", [(1.5, 2.0, 1.0), (0.1, 0.2, 0.3)])
def test_verdict__normalized_exactly_point_six_passes(weights: tuple[float, ...]) -> None:
    # With weights 0.1/0.2/0.3 the float sum lands at 0.5999999999999999: still a pass.
    dims = tuple(dimension(name, w) for name, w in zip("abc", weights, strict=True))
    suite, case = make(structural("S1"), *dims)
    items = [ok("S1"), scored("a", 3), scored("b", 3), scored("c", 3)]
    status, score, reason = verdict(suite, case, items)
    assert (status, reason) == (Status.PASS, "")
    assert score == pytest.approx(0.4 + 0.6 * 0.6)
    assert breakdown(suite, case, items).rubric_weighted_mean == pytest.approx(3.0)


def test_verdict__just_below_point_six_fails() -> None:
    suite, case = make(structural("S1"), dimension("a", 1), dimension("b", 9))
    status, score, reason = verdict(suite, case, [ok("S1"), scored("a", 2), scored("b", 3)])
    assert status is Status.FAIL
    assert score == pytest.approx(0.4 + 0.6 * 0.58)
    assert reason == "rubric 0.58 is below 0.60"


def test_verdict__unscored_dimension_counts_as_zero() -> None:
    suite, case = make(dimension("a", 1), dimension("b", 1))
    # b missing entirely, then b with an out-of-range score: both count as 0 with weight 1.
    assert verdict(suite, case, [scored("a", 5)])[1] == pytest.approx(0.5)
    assert verdict(suite, case, [scored("a", 5), scored("b", 9)])[1] == pytest.approx(0.5)
    assert verdict(suite, case, [scored("a", 5), scored("b", None)])[0] is Status.FAIL


# --- overall_efficiency -----------------------------------------------------------------------


def test_overall_efficiency__arithmetic() -> None:
    suite, case = make(
        structural("S1", critical=True),
        structural("S2"),
        expectation("E1"),
        dimension("a", 1.5),
        dimension("b", 2.0),
        dimension("c", 1.0),
    )
    items = [ok("S1"), ok("S2", False), ok("E1"), scored("a", 5), scored("b", 4), scored("c", 3)]
    b = breakdown(suite, case, items)
    assert b.structural_pass_rate == pytest.approx(0.5)
    assert b.layer1_counts == (2, 1)  # checks and expectations share the pass/fail layer
    assert b.rubric_normalized == pytest.approx(18.5 / 22.5)
    assert b.overall_efficiency == pytest.approx(0.4 * 2 / 3 + 0.6 * 18.5 / 22.5)
    status, score, reason = verdict(suite, case, items)
    assert (status, reason) == (Status.FAIL, "")  # S2 failed; the rubric alone would pass
    assert score == pytest.approx(b.overall_efficiency)


def test_overall_efficiency__single_layer_is_not_scaled_down() -> None:
    suite, case = make(structural("S1"), structural("S2"))
    assert verdict(suite, case, [ok("S1"), ok("S2")]) == (Status.PASS, 1.0, "")
    suite, case = make(dimension("a", 1))
    status, score, _ = verdict(suite, case, [scored("a", 4)])
    assert status is Status.PASS and score == pytest.approx(0.8)


def test_verdict__skipped_check_ignored_failed_expectation_fails() -> None:
    suite, case = make(structural("S1"), structural("S2"), expectation("E1"))
    assert verdict(suite, case, [ok("S1"), ok("S2", None), ok("E1")])[:2] == (Status.PASS, 1.0)
    status, score, _ = verdict(suite, case, [ok("S1"), ok("S2", None), ok("E1", False)])
    assert (status, score) == (Status.FAIL, 0.5)


# --- through the grader -----------------------------------------------------------------------


async def test_grade_run__gate_closes_the_judge_for_a_real_workspace(tmp_path: Path) -> None:
    """A missing response.md fails critical S1: no judge call, rubric items skipped, run fails."""

    s1 = Check(
        "S1",
        "skill_evaluator.file_exists",
        "response written",
        HERE,
        params=ExistsParams("response.md"),
        critical=True,
    )
    suite, case = make(s1, dimension("clarity", 1))
    ctx = CheckContext(suite, case, tmp_path, Transcript(), never, 60.0)
    graded = await grade_run(ctx, None)
    assert graded.status is Status.FAIL
    assert [(r.item_id, r.passed) for r in graded.items] == [("S1", False), ("clarity", None)]
    assert graded.items[1].evidence == GATE_CLOSED
    assert graded.score == 0.0
    assert "critical check S1 failed" in graded.reason
    (tmp_path / "response.md").write_text("spec")
    # Gate open, and no judge configured: the dimension fails unscored and counts as 0.
    graded = await grade_run(ctx, None)
    assert graded.status is Status.FAIL
    assert graded.score == pytest.approx(0.4)
    assert graded.reason == "rubric 0.00 is below 0.60"


# --- the seed, end to end ---------------------------------------------------------------------


class ScriptedJudge:
    """A provider that answers every judge call with one submitted grading."""

    id = "scripted"
    answers_with_schema = False  # it submits through the forced tool

    def __init__(self, grading: dict[str, Any]) -> None:
        self.grading = grading
        self.requests: list[ChatRequest] = []

    async def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        use = ToolUsePart("call-1", SUBMIT_TOOL, json.dumps(self.grading))
        return ChatResponse(text="", tool_uses=(use,), stop_reason="tool_use")


def seed_suite(shared_dir: Path, root: Path) -> Suite:
    text = (shared_dir / "seeds" / "skill-evaluator-schemas.md").read_text()
    block = text.split("## evals.json (Extended)", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    path = root / "skills" / "testing" / "evals" / "evals.json"
    (path.parent / "files").mkdir(parents=True)
    (path.parent / "files" / "input.ts").write_text("export {}\n")
    path.write_text(block)
    loaded = load(
        read(path, rel="skills/testing/evals/evals.json"),
        LoadContext(root, Skill("testing", path.parent.parent)),
    )
    assert loaded.ok, [p.render() for p in loaded.problems]
    assert loaded.suite is not None
    return loaded.suite


@pytest.mark.parametrize(
    ("raw", "status", "score"), [(4, Status.PASS, 0.88), (2, Status.FAIL, 0.64)]
)
async def test_seed__loads_runs_and_grades(
    shared_dir: Path, tmp_path: Path, raw: int, status: Status, score: float
) -> None:
    suite = seed_suite(shared_dir, tmp_path / "repo")
    (case,) = suite.cases
    assert [f.dest for f in case.files] == ["input.ts"]
    workspace = tmp_path / "ws"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "create-booking.use-case.test.ts").write_text("describe('x')\n")
    judge = ScriptedJudge(
        {
            "expectations": [],
            "rubric_scores": {"dimension_name": {"score": raw, "evidence": "tests read well"}},
            "claims": [],
            "eval_feedback": {"suggestions": [], "overall": "fine"},
        }
    )
    ctx = CheckContext(suite, case, workspace, Transcript(final_text="done"), never, 60.0)
    graded = await grade_run(ctx, JudgeSetup(judge, "anthropic/judge"))
    assert len(judge.requests) == 1
    assert [(r.item_id, r.passed, r.raw_score) for r in graded.items] == [
        ("S1", True, None),
        ("dimension_name", raw >= 3, raw),
    ]
    assert graded.status is status
    assert graded.score == pytest.approx(score)  # 0.4 × 1 + 0.6 × raw / 5
