"""agentv checks over what the agent did: `tool_trajectory`, `execution_metrics`, `skill_used`.

Scores follow AgentV v2.7.0: trajectories score hits over expected steps; metrics score the
share of limits met (proportional, as AgentV does, not the spec's all-or-nothing). A replayed
transcript without tool calls cannot be judged on them: those checks are skipped, not failed.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from evolve_action.formats.agentv.checks.support import input_tokens, llm_calls, scored, skipped
from evolve_action.formats.agentv.kinds import (
    ExpectedCall,
    Exploration,
    Metrics,
    SkillUse,
    ToolTrajectory,
)
from evolve_action.formats.trajectory.calls import run_trajectory, verdict
from evolve_action.formats.trajectory.matchers import Trajectory
from evolve_action.model.checking import CheckContext, params_of, register
from evolve_action.model.evals import Check
from evolve_action.model.outcomes import ItemResult, ToolCall
from evolve_action.model.trajectory import call_forms

# AgentV's read-only ("exploration") tools, by lower-cased name.
EXPLORATION_TOOLS = frozenset(
    {"read", "grep", "glob", "search", "list", "ls", "websearch", "webfetch", "read_file"}
)


@register("agentv.tool_trajectory", ToolTrajectory)
async def tool_trajectory(check: Check, ctx: CheckContext) -> ItemResult:
    if not ctx.reports_tool_calls:
        return skipped(check, "this transcript does not record tool calls")
    calls = ctx.transcript.tool_calls
    p = params_of(check, ToolTrajectory)
    if p.mode == "any_order":
        hits, total, notes = _any_order(p, calls)
    elif p.mode == "in_order":
        hits, total, notes = _in_order(p.expected, calls)
    elif p.mode == "superset":
        hits, total, notes = _superset(p.expected, calls)
    elif p.mode == "subset":
        hits, total, notes = _subset(p.expected, calls)
    else:
        hits, total, notes = _exact(p.expected, calls)
    score = hits / total if total else 1.0
    seen = " → ".join(c.name for c in calls) or "no tool calls"
    return scored(check, ctx, score, f"{hits}/{total} met; calls: {seen}" + _notes(notes))


def _notes(notes: list[str]) -> str:
    return ("\n" + "\n".join(notes)) if notes else ""


def _any_order(p: ToolTrajectory, calls: list[ToolCall]) -> tuple[int, int, list[str]]:
    wanted: dict[str, int] = dict(p.minimums)
    if not wanted:
        wanted = dict(Counter(c.tool for c in p.expected))
    forms = [call_forms(c) for c in calls]
    counts = Counter({tool: sum(tool in f for f in forms) for tool in wanted})
    short = [
        f"{tool}: called {counts[tool]}×, needs {n}"
        for tool, n in wanted.items()
        if counts[tool] < n
    ]
    return len(wanted) - len(short), len(wanted), short


def _in_order(
    expected: Sequence[ExpectedCall], calls: list[ToolCall]
) -> tuple[int, int, list[str]]:
    hits, total, notes, at = 0, len(expected), [], 0
    for step, want in enumerate(expected, start=1):
        while at < len(calls) and want.tool not in call_forms(calls[at]):
            at += 1
        if at == len(calls):
            notes.append(f"step {step}: {want.tool} not called (in order)")
            continue
        if _matches(want, calls[at]):
            hits += 1
        else:
            notes.append(f"step {step}: {want.tool} called with other arguments")
        hits, total = _latency(want, calls[at], hits, total, notes)
        at += 1
    return hits, total, notes


def _exact(expected: Sequence[ExpectedCall], calls: list[ToolCall]) -> tuple[int, int, list[str]]:
    hits, total, notes = 0, len(expected), []
    for step, want in enumerate(expected, start=1):
        if step > len(calls):
            notes.append(f"step {step}: expected {want.tool}, but the calls ended")
            continue
        call = calls[step - 1]
        if want.tool not in call_forms(call):
            notes.append(f"step {step}: expected {want.tool}, got {call.name}")
        elif not _matches(want, call):
            notes.append(f"step {step}: {want.tool} called with other arguments")
        else:
            hits += 1
            hits, total = _latency(want, call, hits, total, notes)
    if len(calls) > len(expected):
        notes.append(f"{len(calls) - len(expected)} more call(s) than expected")
    return hits, total, notes


def _superset(
    expected: Sequence[ExpectedCall], calls: list[ToolCall]
) -> tuple[int, int, list[str]]:
    """Every expected call is somewhere among the calls, each call used once (AgentV 4)."""
    used: set[int] = set()
    notes = []
    for want in expected:
        at = next((i for i, c in enumerate(calls) if i not in used and _matches(want, c)), None)
        if at is None:
            notes.append(f"{want.tool} not called (with matching arguments)")
        else:
            used.add(at)
    return len(expected) - len(notes), len(expected), notes


def _subset(expected: Sequence[ExpectedCall], calls: list[ToolCall]) -> tuple[int, int, list[str]]:
    """Every call is one the expected list allows; no call at all is trivially fine."""
    notes = [
        f"call {n}: {call.name} is not an allowed call"
        for n, call in enumerate(calls, start=1)
        if not any(_matches(want, call) for want in expected)
    ]
    return len(calls) - len(notes), len(calls), notes


def _matches(want: ExpectedCall, call: ToolCall) -> bool:
    return want.tool in call_forms(call) and args_match(want.args, call.arguments, want.args_match)


def _latency(
    want: ExpectedCall, call: ToolCall, hits: int, total: int, notes: list[str]
) -> tuple[int, int]:
    limit = want.max_duration_ms
    if limit is None or call.duration_s <= 0:
        return hits, total  # no timing: the latency part is not counted (AgentV)
    took = call.duration_s * 1000
    if took <= limit:
        return hits + 1, total + 1
    notes.append(f"{call.name} took {took:.0f} ms, limit {limit:g} ms")
    return hits, total + 1


def args_match(expected: Any, raw: str, mode: Any = "superset") -> bool:
    """`any` matches all. A mapping, by `mode`: `superset` each listed key is present and
    equal (a value of `any` only asks for the key), `exact` the arguments are exactly these,
    `subset` no argument beyond the listed ones, `ignore` anything; a list of (dotted) fields
    compares only those."""
    if expected == "any" or expected is None or mode == "ignore":
        return True
    try:
        actual = json.loads(raw) if raw else {}
    except ValueError:
        return False
    if not isinstance(actual, dict) or not isinstance(expected, dict):
        return False
    if isinstance(mode, list):
        return all(
            _field(actual, name) == _field(expected, name)
            for name in mode
            if _field(expected, name) is not _MISSING
        )
    if mode == "exact":
        return actual == expected
    if mode == "subset":
        return all(key in expected and expected[key] == value for key, value in actual.items())
    return all(
        key in actual and (want == "any" or actual[key] == want) for key, want in expected.items()
    )


_MISSING = object()


def _field(data: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(data, dict) or part not in data:
            return _MISSING
        data = data[part]
    return data


@register("agentv.execution_metrics", Metrics)
async def execution_metrics(check: Check, ctx: CheckContext) -> ItemResult:
    t = ctx.transcript
    measured: dict[str, float | None] = {
        "max_tool_calls": len(t.tool_calls) if ctx.reports_tool_calls else None,
        "max_llm_calls": llm_calls(t),
        "max_tokens": input_tokens(t) + t.usage.output_tokens,
        "max_input_tokens": input_tokens(t),
        "max_output_tokens": t.usage.output_tokens,
        "max_cost_usd": t.usage.cost_usd,
        "max_duration_ms": t.duration_s * 1000,
    }
    met, made, notes = 0, 0, []
    p = params_of(check, Metrics)
    for key, limit in p.limits.items():
        value = measured.get(key)
        name = key.removeprefix("max_")
        if value is None:
            notes.append(f"{name}: not measured in this run, not counted")
            continue
        made += 1
        ok = value <= limit
        met += ok
        notes.append(f"{name}: {value:g} {'≤' if ok else '>'} {limit:g}")
    if p.exploration is not None:
        got = _exploration(p.exploration, t.tool_calls, ctx.reports_tool_calls)
        if got is None:
            notes.append("exploration ratio: no tool calls to measure, not counted")
        else:
            made, met = made + 1, met + got[0]
            notes.append(got[1])
    if made == 0:
        return skipped(check, "; ".join(notes))
    return scored(check, ctx, met / made, f"{met}/{made} limits met: " + "; ".join(notes))


def _exploration(
    spec: Exploration, calls: list[ToolCall], reported: bool
) -> tuple[bool, str] | None:
    if not reported or not calls:
        return None
    ratio = sum(1 for c in calls if c.name.lower() in EXPLORATION_TOOLS) / len(calls)
    ok = abs(ratio - spec.target) <= spec.tolerance + 1e-9
    return ok, f"exploration ratio {ratio:.2f} (target {spec.target} ± {spec.tolerance})"


@register("agentv.skill_used", SkillUse)
async def skill_used(check: Check, ctx: CheckContext) -> ItemResult:
    if not ctx.reports_tool_calls:
        return skipped(check, "this transcript does not record tool calls")
    p = params_of(check, SkillUse)
    calls = ctx.transcript.tool_calls[:1] if p.first_only else ctx.transcript.tool_calls
    used = any(_loads_skill(c, p.skill) for c in calls)
    ok = used == p.should_trigger
    where = "as its first tool call" if p.first_only else "during the run"
    said = "loaded" if used else "did not load"
    return scored(check, ctx, 1.0 if ok else 0.0, f"the agent {said} {p.skill!r} {where}")


def _loads_skill(call: ToolCall, skill: str) -> bool:
    """The `Skill` tool naming it (plugin-qualified names too), or a read of its SKILL.md."""
    try:
        args = json.loads(call.arguments) if call.arguments else {}
    except ValueError:
        args = {}
    if not isinstance(args, dict):
        return False
    if call.name == "Skill":
        named = str(args.get("skill", args.get("name", "")))
        return named == skill or named.endswith(f":{skill}")
    path = str(args.get("file_path", args.get("path", "")))
    return call.name == "Read" and path.endswith(f"skills/{skill}/SKILL.md")


@register("agentv.trajectory", Trajectory)
async def agentv_trajectory(check: Check, ctx: CheckContext) -> ItemResult:
    if not ctx.reports_tool_calls:
        return skipped(check, "this transcript does not record tool calls")
    held, evidence = verdict(params_of(check, Trajectory), run_trajectory(ctx).steps)
    return scored(check, ctx, 1.0 if held else 0.0, evidence)
