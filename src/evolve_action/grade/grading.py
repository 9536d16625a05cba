"""Grading one finished run: deterministic checks, the judge gate, one judge call, the verdict.

Checks run first and in full, so the judge sees whatever a `command` check created (evolve
grades in that order even when an `llm` item is authored first). The format's policy may
close the judge gate (skill-evaluator's structural gate); then the judge is not called and
its items are reported as skipped with the reason. Results come back in the case's authored
order, followed by whatever the policy derived after the judge (clauditor's field checks).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evolve_action.execute.providers.base import Provider, ToolBox
from evolve_action.grade.checks import CheckContext, run_check
from evolve_action.grade.judge import judge_run
from evolve_action.grade.judge_parse import failed
from evolve_action.grade.scoring import Policy, policy_for
from evolve_action.model.evals import Check
from evolve_action.model.outcomes import ItemResult, JudgeReport, Status

GATE_CLOSED = "not judged: structural gate closed"


@dataclass(frozen=True)
class JudgeSetup:
    """The grading instrument: one fixed model, the same for base and head."""

    provider: Provider
    model: str  # provider-qualified
    tools: ToolBox | None = None  # read-only workspace tools for this run, or None
    max_turns: int = 4
    timeout_s: float = 600.0


@dataclass(frozen=True)
class Graded:
    status: Status  # PASS or FAIL
    score: float
    items: list[ItemResult]
    judge: JudgeReport = field(default_factory=JudgeReport)
    reason: str = ""  # the policy's one-line reason when it failed the run on its own


async def grade_run(
    ctx: CheckContext, judge: JudgeSetup | None, *, policy: Policy | None = None
) -> Graded:
    """Grade the run described by `ctx`; `judge` None means no judge is configured.

    `policy` defaults to the suite format's registered policy; tests pass their own.
    """
    suite, case = ctx.suite, ctx.case
    policy = policy or policy_for(suite.format)
    by_id: dict[int, ItemResult] = {}
    checks: list[ItemResult] = []
    for index, entry in enumerate(case.items):
        if isinstance(entry, Check):
            result = await run_check(entry, ctx)
            by_id[index] = result
            checks.append(result)
    pending = [(i, it) for i, it in enumerate(case.items) if not isinstance(it, Check)]
    report = JudgeReport(model=judge.model if judge else "")
    if pending:
        asked = [it for _, it in pending]
        if not policy.judge_needed(suite, case, checks):
            judged = [
                ItemResult(it.id, it.text, None, GATE_CLOSED, kind="judge", source=it.source)
                for it in asked
            ]
        elif judge is None:
            judged = [failed(it, "no judge configured") for it in asked]
        else:
            judged, report = await judge_run(
                provider=judge.provider,
                model=judge.model,
                case=case,
                items=asked,
                transcript=ctx.transcript,
                tools=judge.tools,
                max_turns=judge.max_turns,
                timeout_s=judge.timeout_s,
            )
        by_id.update((index, result) for (index, _), result in zip(pending, judged, strict=True))
    ordered = [by_id[i] for i in range(len(case.items))]
    verdict = policy.verdict(suite, case, ordered, report)
    results = [*ordered, *verdict.extra_items]
    return Graded(verdict.status, verdict.score, results, report, verdict.reason)
