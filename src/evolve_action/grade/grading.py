"""Grading one finished run: deterministic checks, the judge gate, one judge call, the verdict.

Checks run first and in full, so the judge sees whatever a `command` check created (evolve
grades in that order even when an `llm` item is authored first). The format's policy may
close the judge gate (skill-evaluator's structural gate); then the judge is not called and
its items are reported as skipped with the reason. Results come back in the case's authored
order, followed by whatever the policy derived after the judge (clauditor's field checks).

A run may be graded under base's checks as well, when the PR changed them: those
checks run on the same workspace and output, and base's judge items join head's in the same
one judge call; an item written alike under both is graded once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from evolve_action.grade.checks import CheckContext, run_check
from evolve_action.grade.judge import judge_run
from evolve_action.grade.judge_parse import failed
from evolve_action.grade.scoring import Policy, policy_for
from evolve_action.model.evals import Case, Check, Item, JudgeItem, Suite
from evolve_action.model.outcomes import ItemResult, JudgeReport, Status
from evolve_action.model.provider import Provider, ToolBox
from evolve_action.plan.ruler import item_key

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
    also: tuple[Graded, ...] = ()  # the same run under the other rulers asked for


@dataclass(frozen=True)
class _Ruler:
    """One ruler of the run (head's checks, or base's), the context its checks run in, and its
    results so far by the item's index in the case."""

    suite: Suite
    case: Case
    policy: Policy
    ctx: CheckContext
    results: dict[int, ItemResult] = field(default_factory=dict)


async def grade_run(
    ctx: CheckContext,
    judge: JudgeSetup | None,
    *,
    policy: Policy | None = None,
    also: Sequence[tuple[Suite, Case]] = (),
) -> Graded:
    """Grade the run described by `ctx`; `judge` None means no judge is configured.

    `policy` defaults to the suite format's registered policy; tests pass their own. `also`:
    other rulers of the same run (base's checks, when the PR changed them); their results are
    `Graded.also`, and their judge items go into this run's one judge call.
    """
    head = _Ruler(ctx.suite, ctx.case, policy or policy_for(ctx.suite.format), ctx)
    rulers = [head, *(_other(ctx, suite, case) for suite, case in also)]
    await _run_checks(rulers)
    verdicts, report = await _judge(ctx, judge, _judge_items(rulers))
    graded = [_graded(ruler, verdicts, report) for ruler in rulers]
    return replace(graded[0], also=tuple(graded[1:]))


def _other(ctx: CheckContext, suite: Suite, case: Case) -> _Ruler:
    own = ctx if case is ctx.case else replace(ctx, suite=suite, case=case)
    return _Ruler(suite, case, policy_for(suite.format), own)


async def _run_checks(rulers: list[_Ruler]) -> None:
    """Every ruler's checks, in order; an item written alike in two rulers is run once."""
    done: dict[str, ItemResult] = {}
    for ruler in rulers:
        case = ruler.case
        # A check may read its case (the output files it names, format fields): the same
        # check under another case is the same only when those are the same too.
        where = repr((ruler.suite.format, case.output_files, case.extra))
        for index, entry in enumerate(case.items):
            if isinstance(entry, Check):
                key = item_key(entry) + where
                if key not in done:
                    done[key] = await run_check(entry, ruler.ctx)
                ruler.results[index] = _as(done[key], entry)


def _judge_items(rulers: list[_Ruler]) -> dict[str, JudgeItem]:
    """The judge items to ask, content → item in the order first asked; a ruler whose policy
    closes the judge gate has its judge items skipped with the reason instead."""
    asked: dict[str, JudgeItem] = {}
    for ruler in rulers:
        case = ruler.case
        pending = [(i, it) for i, it in enumerate(case.items) if isinstance(it, JudgeItem)]
        checks = list(ruler.results.values())  # only the checks' results are in yet
        if pending and not ruler.policy.judge_needed(ruler.suite, case, checks):
            ruler.results.update(
                (i, ItemResult(it.id, it.text, None, GATE_CLOSED, kind="judge", source=it.source))
                for i, it in pending
            )
            continue
        for _, it in pending:
            asked.setdefault(item_key(it), it)
    return asked


async def _judge(
    ctx: CheckContext, judge: JudgeSetup | None, asked: dict[str, JudgeItem]
) -> tuple[dict[str, ItemResult], JudgeReport]:
    """One judge call for every item asked (none when nothing is asked), by content."""
    report = JudgeReport(model=judge.model if judge else "")
    if not asked:
        return {}, report
    items = list(asked.values())
    if judge is None:
        judged = [failed(it, "no judge configured") for it in items]
    else:
        judged, report = await judge_run(
            provider=judge.provider,
            model=judge.model,
            case=ctx.case,
            items=items,
            transcript=ctx.transcript,
            tools=judge.tools,
            max_turns=judge.max_turns,
            timeout_s=judge.timeout_s,
        )
    return dict(zip(asked, judged, strict=True)), report


def _graded(ruler: _Ruler, verdicts: dict[str, ItemResult], report: JudgeReport) -> Graded:
    """The ruler's results in the case's order, then its policy's verdict on them."""
    case = ruler.case
    for index, item in enumerate(case.items):
        if index not in ruler.results:
            ruler.results[index] = _as(verdicts[item_key(item)], item)
    ordered = [ruler.results[i] for i in range(len(case.items))]
    verdict = ruler.policy.verdict(ruler.suite, case, ordered, report)
    results = [*ordered, *verdict.extra_items]
    return Graded(verdict.status, verdict.score, results, report, verdict.reason)


def _as(result: ItemResult, item: Item) -> ItemResult:
    """A result given to an item of another ruler that says the same: under its own id."""
    return result if result.item_id == item.id else replace(result, item_id=item.id)
