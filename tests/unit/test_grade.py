"""Grading a run: checks before the judge, the gate, authored order, derived items."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evolve_action.grade.grading import GATE_CLOSED, JudgeSetup, grade_run
from evolve_action.grade.scoring import Verdict
from evolve_action.model.checking import CheckContext, register
from evolve_action.model.evals import Case, Check, Format, JudgeItem, Origin, Skill, Suite
from evolve_action.model.outcomes import CommandResult, ItemResult, JudgeReport, Status, Transcript
from evolve_action.model.provider import ChatRequest, ChatResponse
from tests.unit.judge_fakes import ScriptedProvider, submit

ORIGIN = Origin("evals/s/evals.json", 1)


@register("gradetest.touch")
async def _touch(check: Check, ctx: CheckContext) -> ItemResult:
    (ctx.workspace / str(check.params["path"])).write_text("made by a check")
    return ItemResult(check.id, check.text, True, "created", kind=check.kind)


@register("gradetest.verdict")
async def _verdict(check: Check, ctx: CheckContext) -> ItemResult:
    return ItemResult(check.id, check.text, check.params["passed"], "as told", kind=check.kind)


class GatePolicy:
    """Closes the gate when a critical check failed; passes when nothing failed."""

    def judge_needed(self, suite: Suite, case: Case, results: Sequence[ItemResult]) -> bool:
        critical = {c.id for c in case.checks if c.critical}
        return not any(r.passed is False and r.item_id in critical for r in results)

    def verdict(
        self, suite: Suite, case: Case, items: Sequence[ItemResult], judge: JudgeReport
    ) -> Verdict:
        passed = sum(r.passed is True for r in items)
        failed = sum(r.passed is False for r in items)
        score = passed / (passed + failed) if passed + failed else 0.0
        extra = ItemResult("derived", f"judge called: {judge.called}", True, kind="policy")
        status = Status.FAIL if failed else Status.PASS
        return Verdict(status, score, (extra,))


async def _no_command(command: str | Sequence[str], **kw: Any) -> CommandResult:
    raise AssertionError("no command expected")


def verdict_check(check_id: str, passed: bool, *, critical: bool = False) -> Check:
    params: Mapping[str, Any] = {"passed": passed}
    return Check(check_id, "gradetest.verdict", check_id, ORIGIN, params, critical=critical)


def context(tmp_path: Path, items: tuple[Any, ...]) -> CheckContext:
    case = Case("c1", "do it", ORIGIN, items=items)
    suite = Suite(
        Format.EVOLVE, tmp_path / "evals.json", "evals/s/evals.json", Skill("s", None), (case,)
    )
    return CheckContext(suite, case, tmp_path, Transcript(final_text="ok"), _no_command, 30.0)


def judge_setup(provider: ScriptedProvider) -> JudgeSetup:
    return JudgeSetup(provider, "anthropic/claude-sonnet-4-6", timeout_s=5.0)


async def test_checks_run_before_the_judge_and_order_is_authored(tmp_path: Path) -> None:
    seen: list[bool] = []

    def answer(request: ChatRequest) -> ChatResponse:
        seen.append((tmp_path / "made.txt").exists())
        return submit(
            {
                "expectations": [
                    {"id": 1, "passed": True, "evidence": "j1"},
                    {"id": 2, "passed": False, "evidence": "j2"},
                ]
            }
        )

    items = (
        JudgeItem("llm-first", "judged first in the file", ORIGIN),
        Check("touch", "gradetest.touch", "touch made.txt", ORIGIN, {"path": "made.txt"}),
        JudgeItem("llm-second", "judged second", ORIGIN),
        verdict_check("det", True),
    )
    provider = ScriptedProvider([answer])
    graded = await grade_run(context(tmp_path, items), judge_setup(provider), policy=GatePolicy())
    assert seen == [True]  # the judge ran after the check had created the file
    assert len(provider.requests) == 1
    assert [r.item_id for r in graded.items] == [
        "llm-first",
        "touch",
        "llm-second",
        "det",
        "derived",
    ]
    assert [r.passed for r in graded.items] == [True, True, False, True, True]
    assert graded.status is Status.FAIL and graded.score == 0.75
    assert graded.judge.called and graded.judge.model == "anthropic/claude-sonnet-4-6"
    assert graded.items[-1].text == "judge called: True"


async def test_closed_gate_skips_the_judge(tmp_path: Path) -> None:
    items = (verdict_check("crit", False, critical=True), JudgeItem("q", "quality", ORIGIN))
    provider = ScriptedProvider([])
    graded = await grade_run(context(tmp_path, items), judge_setup(provider), policy=GatePolicy())
    assert provider.requests == []
    assert graded.items[1].passed is None and graded.items[1].evidence == GATE_CLOSED
    assert graded.items[-1].text == "judge called: False"
    assert graded.status is Status.FAIL


async def test_no_judge_items_no_call(tmp_path: Path) -> None:
    provider = ScriptedProvider([])
    graded = await grade_run(
        context(tmp_path, (verdict_check("a", True),)), judge_setup(provider), policy=GatePolicy()
    )
    assert provider.requests == [] and graded.status is Status.PASS and not graded.judge.called


async def test_no_judge_configured_fails_judge_items_only(tmp_path: Path) -> None:
    items = (verdict_check("a", True), JudgeItem("q", "quality", ORIGIN))
    graded = await grade_run(context(tmp_path, items), None, policy=GatePolicy())
    assert [(r.passed, r.evidence) for r in graded.items[:2]] == [
        (True, "as told"),
        (False, "judge error: no judge configured"),
    ]


async def test_unknown_check_kind_fails_that_item(tmp_path: Path) -> None:
    items = (Check("x", "gradetest.nope", "mystery", ORIGIN),)
    graded = await grade_run(context(tmp_path, items), None, policy=GatePolicy())
    assert graded.items[0].passed is False and "unknown check kind" in graded.items[0].evidence
