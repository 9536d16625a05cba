"""waza's graders as checks: one result per grader, scored by the share of its conditions
that hold and passing when all hold, with each failed condition in the evidence.

`code` assertions are Python expressions; they run confined, in a fresh `python3`, with
`output` (the final answer), `tool_calls` (names and arguments), `errors` (failed tool
calls), `duration_ms`, `transcript` and `outcome` bound, as waza binds them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from evolve_action.formats.graders.checks import read_text, skills_loaded, workspace_files
from evolve_action.formats.trajectory.calls import run_trajectory
from evolve_action.formats.trajectory.order import Order, check_order, sequence
from evolve_action.formats.trajectory.wants import Naming, Want, named
from evolve_action.formats.waza.params import (
    BehaviorParams,
    CallsParams,
    CodeParams,
    FileParams,
    SequenceParams,
    TextParams,
    ToolParams,
)
from evolve_action.model.checking import CheckContext, params_of, register
from evolve_action.model.evals import Check
from evolve_action.model.outcomes import ItemResult
from evolve_action.util.regex import RegexError, compile_re2

CODE_RUNNER = """\
import json, sys
env = json.load(sys.stdin)
names = {k: env[k] for k in ("output", "tool_calls", "errors", "duration_ms", "transcript",
                             "outcome")}
results = []
for expr in env["assertions"]:
    try:
        results.append([expr, bool(eval(expr, {"__builtins__": __builtins__}, dict(names))), ""])
    except Exception as exc:
        results.append([expr, False, f"{type(exc).__name__}: {exc}"])
print(json.dumps(results))
"""


def _scored(check: Check, failures: Sequence[str], total: int, ok_said: str) -> ItemResult:
    held = total - len(failures)
    score = held / total if total else 1.0
    evidence = "; ".join(failures) if failures else ok_said
    return ItemResult(
        check.id,
        check.text,
        not failures,
        evidence,
        score=score,
        kind=check.kind,
        source=check.source,
    )


def _unrecorded(check: Check) -> ItemResult:
    """Skipped, never passed: without recorded calls a tool rule has no evidence."""
    said = "skipped: this transcript does not record tool calls"
    return ItemResult(check.id, check.text, None, said, kind=check.kind, source=check.source)


@register("waza.text", TextParams)
async def text_grader(check: Check, ctx: CheckContext) -> ItemResult:
    p, output = params_of(check, TextParams), ctx.transcript.final_text
    low = output.casefold()
    failures: list[str] = []
    total = 0
    for needle in p.contains:
        total += 1
        if needle.casefold() not in low:
            failures.append(f"lacks {needle!r}")
    for needle in p.not_contains:
        total += 1
        if needle.casefold() in low:
            failures.append(f"has {needle!r}")
    for needle in p.contains_cs:
        total += 1
        if needle not in output:
            failures.append(f"lacks {needle!r} (case-sensitive)")
    for needle in p.not_contains_cs:
        total += 1
        if needle in output:
            failures.append(f"has {needle!r} (case-sensitive)")
    if p.contains_any:
        total += 1
        if not any(n.casefold() in low for n in p.contains_any):
            failures.append(f"has none of {list(p.contains_any)}")
    for patterns, wanted in ((p.regex_match, True), (p.regex_not_match, False)):
        for pattern in patterns:
            total += 1
            try:
                found = compile_re2(pattern).search(output) is not None
            except RegexError as exc:
                failures.append(f"{pattern!r} does not compile: {exc}")
                continue
            if found != wanted:
                failures.append(f"{'no match for' if wanted else 'matches'} {pattern!r}")
    return _scored(check, failures, total, f"all {total} text conditions hold")


@register("waza.file", FileParams)
async def file_grader(check: Check, ctx: CheckContext) -> ItemResult:
    p = params_of(check, FileParams)
    failures: list[str] = []
    total = 0
    for path in p.must_exist:
        total += 1
        if not workspace_files(ctx.workspace, path):
            failures.append(f"{path} does not exist")
    for path in p.must_not_exist:
        total += 1
        if workspace_files(ctx.workspace, path):
            failures.append(f"{path} exists")
    for rule in p.patterns:
        files = workspace_files(ctx.workspace, rule.path)
        body = "\n".join(read_text(f) for f in files)
        for pattern, wanted in [(x, True) for x in rule.must_match] + [
            (x, False) for x in rule.must_not_match
        ]:
            total += 1
            if not files:
                failures.append(f"{rule.path} does not exist")
                continue
            try:
                found = compile_re2(pattern).search(body) is not None
            except RegexError as exc:
                failures.append(f"{pattern!r} does not compile: {exc}")
                continue
            if found != wanted:
                said = "does not match" if wanted else "matches"
                failures.append(f"{rule.path} {said} {pattern!r}")
    return _scored(check, failures, total, f"all {total} file conditions hold")


def _missing_and_rejected(
    ctx: CheckContext, expect: Sequence[str], reject: Sequence[str]
) -> list[str]:
    """A failure per expected tool never called and per rejected tool called (any form of
    a step's name: an MCP tool by its bare name too)."""
    steps = run_trajectory(ctx).steps
    failures = [f"never used {t}" for t in expect if not any(map(named(t), steps))]
    return failures + [f"used rejected {t}" for t in reject if any(map(named(t), steps))]


def server_called(server: str) -> Want:
    """A call of any tool of the MCP server `server`: the tool-name want, on the form every
    MCP step answers to (`mcp__<server>__<tool>`, `model/trajectory.py`)."""
    return named(f"mcp__{server}__*", Naming.GLOB, label=f"a tool of MCP server {server}")


def _servers_used(ctx: CheckContext, expect: Sequence[str], reject: Sequence[str]) -> list[str]:
    """A failure per required server none of whose tools was called, and per forbidden server
    one of whose tools was (naming the calls)."""
    steps = run_trajectory(ctx).steps
    failures = [f"never called {server_called(s).label}" for s in expect
                if not any(map(server_called(s), steps))]  # fmt: skip
    for server in reject:
        hits = sorted({st.label for st in steps if server_called(server)(st)})
        if hits:
            failures.append(f"called forbidden MCP server {server}: {', '.join(hits)}")
    return failures


@register("waza.behavior", BehaviorParams)
async def behavior(check: Check, ctx: CheckContext) -> ItemResult:
    p, t = params_of(check, BehaviorParams), ctx.transcript
    tool_rules = (p.expect_tools, p.reject_tools, p.expect_servers, p.reject_servers)
    if not ctx.reports_tool_calls and (any(tool_rules) or p.max_mcp_calls is not None):
        return _unrecorded(check)  # "no call of X" with no calls recorded is no evidence
    mcp_calls = sum(1 for s in run_trajectory(ctx).steps if s.server)
    measured = {  # what was measured, against its limit
        "tool_calls": (len(t.tool_calls), p.max_tool_calls),
        "tokens": (t.usage.total_tokens, p.max_tokens),
        "duration_ms": (round(t.duration_s * 1000), p.max_duration_ms),
        "iterations": (t.turns, p.max_iterations),
        "mcp_calls": (mcp_calls, p.max_mcp_calls),
    }
    limited = {name: (got, limit) for name, (got, limit) in measured.items() if limit is not None}
    failures = [f"{name} {got} > {limit}" for name, (got, limit) in limited.items() if got > limit]
    total = len(limited) + sum(map(len, tool_rules))
    failures += _missing_and_rejected(ctx, p.expect_tools, p.reject_tools)
    failures += _servers_used(ctx, p.expect_servers, p.reject_servers)
    return _scored(check, failures, total, f"all {total} behavior rules hold")


@register("waza.tool_constraint", ToolParams)
async def tool_constraint(check: Check, ctx: CheckContext) -> ItemResult:
    if not ctx.reports_tool_calls:
        return _unrecorded(check)
    p = params_of(check, ToolParams)
    failures = _missing_and_rejected(ctx, p.expect_tools, p.reject_tools)
    total = len(p.expect_tools) + len(p.reject_tools)
    used = sorted({s.label for s in run_trajectory(ctx).steps})
    return _scored(check, failures, total, f"tools used: {', '.join(used) or 'none'}")


def _sequence(actual: list[str], wanted: list[str], mode: str, extra: bool = True) -> bool:
    if mode in ("exact_match", "exact"):
        return actual == wanted
    if mode in ("any_order_match", "any"):
        return all(actual.count(w) >= wanted.count(w) for w in set(wanted)) and (
            extra or len(actual) == len(wanted)
        )
    rest = iter(actual)  # in order, others allowed between
    ordered = all(any(a == w for a in rest) for w in wanted)
    return ordered and (extra or len(actual) == len(wanted))


@register("waza.tool_calls", CallsParams)
async def tool_calls(check: Check, ctx: CheckContext) -> ItemResult:
    """Each required tool, each forbidden tool and each bound is one condition; the score is
    the share that hold, as waza scores it."""
    if not ctx.reports_tool_calls:
        return _unrecorded(check)
    p, steps = params_of(check, CallsParams), run_trajectory(ctx).steps
    failures = [f"never called {t}" for t in p.required_tools if not any(map(named(t), steps))]
    for tool in p.forbidden_tools:
        hits = [s.label for s in steps if tool == "*" or named(tool)(s)]
        if hits:
            failures.append(f"called forbidden {tool} ({len(hits)}×)")
    bounds = [b for b in (p.min_calls, p.max_calls) if b is not None]
    if p.min_calls is not None and len(steps) < p.min_calls:
        failures.append(f"{len(steps)} tool calls, fewer than {p.min_calls}")
    if p.max_calls is not None and len(steps) > p.max_calls:
        failures.append(f"{len(steps)} tool calls, more than {p.max_calls}")
    total = len(p.required_tools) + len(p.forbidden_tools) + len(bounds)
    seen = sequence([s.label for s in steps])
    return _scored(check, failures, total, f"all {total} tool_calls conditions hold: {seen}")


# waza's matching modes → the trajectory order they check (`formats/trajectory/order.py`)
ORDERS = {"exact_match": Order.STRICT, "exact": Order.STRICT, "any_order_match": Order.ANY_ORDER,
          "any": Order.ANY_ORDER}  # fmt: skip


@register("waza.action_sequence", SequenceParams)
async def action_sequence(check: Check, ctx: CheckContext) -> ItemResult:
    """One condition: pass or fail, as waza scores it; the evidence shows where the
    observed calls part from the expected ones."""
    if not ctx.reports_tool_calls:
        return _unrecorded(check)
    p = params_of(check, SequenceParams)
    order = ORDERS.get(p.mode, Order.IN_ORDER)
    got = check_order([named(t) for t in p.expected], run_trajectory(ctx).steps, order)
    return _scored(check, [] if got.passed else [got.evidence], 1, got.evidence)


@register("waza.skill_invocation", SequenceParams)
async def skill_invocation(check: Check, ctx: CheckContext) -> ItemResult:
    p = params_of(check, SequenceParams)
    loaded = skills_loaded(ctx)
    ok = _sequence(loaded, list(p.expected), p.mode, p.allow_extra)
    said = f"skills loaded {loaded} against {list(p.expected)} ({p.mode})"
    return _scored(check, [] if ok else [said], 1, said)


@register("waza.code", CodeParams)
async def code(check: Check, ctx: CheckContext) -> ItemResult:
    t = ctx.transcript
    calls = [{"name": c.name, "arguments": c.arguments} for c in t.tool_calls]
    env = {
        "assertions": list(params_of(check, CodeParams).assertions),
        "output": t.final_text,
        "tool_calls": calls,
        "errors": [c for c, raw in zip(calls, t.tool_calls, strict=True) if raw.is_error],
        "duration_ms": round(t.duration_s * 1000),
        "transcript": calls,
        "outcome": {"output": t.final_text, "stop_reason": t.stop_reason},
    }
    done = await ctx.run_command(
        ["python3", "-I", "-c", CODE_RUNNER],
        cwd=Path(ctx.workspace),
        timeout_s=min(ctx.timeout_s, 60.0),
        stdin=json.dumps(env),
    )
    if done.error or done.timed_out or done.exit_code != 0:
        why = done.error or ("timed out" if done.timed_out else done.stderr.strip()[-400:])
        return _scored(check, [f"the assertions could not run: {why}"], 1, "")
    try:
        results = json.loads(done.stdout)
    except ValueError:
        return _scored(check, ["the assertions printed no verdicts"], 1, "")
    failures = [
        f"{expr} is false{': ' + err if err else ''}" for expr, ok, err in results if not ok
    ]
    return _scored(check, failures, len(results), f"all {len(results)} assertions hold")
