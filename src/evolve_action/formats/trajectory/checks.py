"""The trajectory checks (`matchers.py`) over the agent's tool calls, for the
formats that write them: AgentV 5 (`agentv.trajectory`, scored as AgentV scores) and
promptfoo (`promptfoo.trajectory`). Tool names match as globs, case-sensitive."""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any

from evolve_action.formats.agentv.checks.support import scored, skipped
from evolve_action.model.checking import CheckContext, register
from evolve_action.model.evals import Check
from evolve_action.model.outcomes import ItemResult


def verdict(params: dict[str, Any], tools: list[str]) -> tuple[bool, str]:
    """Whether the calls satisfy the assertion, and the evidence."""
    actual = ", ".join(tools) or "(none)"
    if "tools" in params:
        used = [p for p in params["tools"] if any(fnmatchcase(t, p) for t in tools)]
        held = not used if params["inverse"] else len(used) == len(params["tools"])
        return held, f"used {used or 'none'} of {params['tools']}; calls: {actual}"
    if "tool" in params:
        count = sum(fnmatchcase(t, params["tool"]) for t in tools)
        high = params["max"]
        inside = count >= params["min"] and (high is None or count <= high)
        return inside != params[
            "inverse"
        ], f"{params['tool']} called {count} time(s); calls: {actual}"
    steps: list[str] = params["steps"]
    if params["exact"]:
        held = len(tools) == len(steps) and all(
            fnmatchcase(t, s) for t, s in zip(tools, steps, strict=False)
        )
    else:
        at = 0
        for tool in tools:
            if at < len(steps) and fnmatchcase(tool, steps[at]):
                at += 1
        held = at == len(steps)
    return held != params["inverse"], f"calls: {actual}"


def _names(ctx: CheckContext) -> list[str]:
    return [c.name for c in ctx.transcript.tool_calls]


@register("agentv.trajectory")
async def agentv_trajectory(check: Check, ctx: CheckContext) -> ItemResult:
    if not ctx.reports_tool_calls:
        return skipped(check, "this transcript does not record tool calls")
    held, evidence = verdict(dict(check.params), _names(ctx))
    return scored(check, ctx, 1.0 if held else 0.0, evidence)


@register("promptfoo.trajectory")
async def promptfoo_trajectory(check: Check, ctx: CheckContext) -> ItemResult:
    if not ctx.reports_tool_calls:
        return skipped(check, "this transcript does not record tool calls")
    held, evidence = verdict(dict(check.params), _names(ctx))
    return ItemResult(
        check.id,
        check.text,
        held,
        evidence,
        score=float(held),
        kind=check.kind,
        source=check.source,
    )
