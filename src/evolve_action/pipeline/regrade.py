"""Grade a cached run with base's checks, from what the cache stores.

A second push may change a case's checks while the skill and the task stay as they were: the
runs that did that work are in the cache already (`Fingerprinter.task` finds them), graded
under the checks of their day. Paying the agent again would be waste, so such a run is
re-graded instead: a fresh workspace of the same case gets the files the agent left
(`model.snapshot`), the transcript gets its whole final answer and tool-call arguments back,
and the checks run there as they would have at the end of the run, head's own and base's,
whose judge items share one judge call. When only base's checks are new (the base moved),
only they are graded and the run's own verdicts stay as stored.

When the stored snapshot is missing or incomplete (a file past its limit, a link), the run
is made again instead: a verdict is never drawn from part of what a run produced.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from evolve_action.execute.sandbox.confine import Confinement
from evolve_action.execute.workspace import Workspace
from evolve_action.model.outcomes import ErrorKind, RulerGrade, RunResult, Usage
from evolve_action.model.snapshot import Snapshot, restore
from evolve_action.pipeline.runner import (
    RunEnvironment,
    error_result,
    grade_in,
    in_workspace,
    ruler_grade,
)
from evolve_action.plan.planning import RunSpec


def can_regrade(cached: RunResult, snapshot: Snapshot | None) -> bool:
    """Whether the stored run holds all re-grading needs: a complete snapshot whose
    arguments are those of the run's tool calls (the record keeps them cut)."""
    if snapshot is None or not snapshot.complete:
        return False
    calls = cached.transcript.tool_calls
    return len(snapshot.arguments) == len(calls) or not calls


async def regrade(
    spec: RunSpec, stored: RunResult, snapshot: Snapshot, env: RunEnvironment, *, own: bool
) -> RunResult:
    """`stored` graded again from `snapshot`: with `spec`'s own checks and base's (`own`, when
    the stored run was graded under other checks), or with base's only (its own verdicts are
    the stored ones, only `spec.ruler` is new)."""
    ruler = spec.ruler
    if ruler is None and not own:
        return stored
    # The record's transcript, with what it cut given back in full.
    calls = stored.transcript.tool_calls
    full = [replace(c, arguments=a) for c, a in zip(calls, snapshot.arguments, strict=False)]
    transcript = replace(
        stored.transcript,
        final_text=snapshot.final_text,
        tool_calls=full if len(full) == len(calls) else list(calls),
    )
    if own:
        target, also = spec, [(ruler.suite, ruler.case)] if ruler else []
    else:
        assert ruler is not None
        target, also = replace(spec, suite=ruler.suite, case=ruler.case, ruler=None), []

    async def grade(confinement: Confinement, workspace: Workspace) -> RunResult:
        try:
            await asyncio.to_thread(restore, snapshot, workspace.root)
        except (OSError, ValueError) as exc:
            return error_result(spec, ErrorKind.WORKSPACE, f"re-grading: {exc}")
        graded = await grade_in(target, env, workspace.root, confinement, transcript, also)
        if graded.judge.error_kind is not None:
            return error_result(spec, graded.judge.error_kind, f"judge: {graded.judge.error}")
        usage = Usage()  # what grading this run cost, the stored grading and this one
        usage.add(stored.judge.usage)
        usage.add(graded.judge.usage)
        if not own:
            items = tuple(graded.items)
            assert ruler is not None
            under_base = RulerGrade(ruler.key, ruler.case.id, graded.status, graded.score, items)
            judge = replace(stored.judge, usage=usage)
            return replace(stored, ruler=under_base, judge=judge, cached=True)
        judge = replace(graded.judge, usage=usage)
        return replace(
            stored,
            status=graded.status,
            score=graded.score,
            items=list(graded.items),
            judge=judge,
            ruler=ruler_grade(spec, graded.also),
            cached=True,
        )

    # The workspace is the case's own (its fixtures, its skill), as the run had it.
    return await in_workspace(spec, env, grade)
