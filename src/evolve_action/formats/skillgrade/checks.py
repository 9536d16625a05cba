"""skillgrade's deterministic grader: a command, run confined in the workspace, that prints
`{"score": 0..1, ...}`; its score is the item's, and it passes at half or more."""

from __future__ import annotations

import json
from dataclasses import dataclass

from evolve_action.model.checking import CheckContext, params_of, register
from evolve_action.model.evals import Check, CheckParams
from evolve_action.model.outcomes import ItemResult

PASS_AT = 0.5
EVIDENCE = 300


@dataclass(frozen=True, slots=True)
class CommandParams(CheckParams):
    run: str


@register("skillgrade.deterministic", CommandParams)
async def deterministic(check: Check, ctx: CheckContext) -> ItemResult:
    run = params_of(check, CommandParams).run
    done = await ctx.run_command(run, cwd=ctx.workspace, timeout_s=ctx.timeout_s)
    if done.error or done.timed_out:
        why = done.error or "timed out"
        return ItemResult(check.id, check.text, False, f"grader error: {why}", kind=check.kind)
    score = _score(done.stdout)
    if score is None:
        tail = done.stdout[-EVIDENCE:]
        evidence = f"exit {done.exit_code}; no JSON score in its output: {tail}"
        return ItemResult(check.id, check.text, False, evidence, kind=check.kind)
    return ItemResult(check.id, check.text, score >= PASS_AT, f"score {score:g}", score=score,
                      kind=check.kind)  # fmt: skip


def _score(stdout: str) -> float | None:
    """The `score` of the last JSON object line the grader printed."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        value = data.get("score") if isinstance(data, dict) else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            return min(max(float(value), 0.0), 1.0)
    return None
