"""promptfoo's deterministic assertions: the text family and `javascript`.

`javascript` runs the author's code confined in a fresh `node`, as promptfoo runs it: the
code is a function body when it says `return`, else an expression, with `output` and
`context` (`vars`, `prompt`, `providerResponse.output` and `.metadata.toolCalls` as
`{name, input}`). It may give a boolean, a number (a score: it passes at the assertion's
`threshold`, else above 0) or `{pass, score, reason}`. Where no `node` can run, the assertion
is not graded and says so.
"""

from __future__ import annotations

import json
from typing import Any

from evolve_action.formats.promptfoo.params import LimitParams, ScriptParams, TextParams
from evolve_action.formats.trajectory.calls import run_trajectory, verdict
from evolve_action.formats.trajectory.matchers import Trajectory
from evolve_action.model.checking import CheckContext, params_of, register
from evolve_action.model.evals import Check
from evolve_action.model.outcomes import ItemResult
from evolve_action.util.regex import RegexError, compile_re2

NODE_RUNNER = """\
let raw = ""; process.stdin.on("data", (d) => (raw += d)); process.stdin.on("end", () => {
  const env = JSON.parse(raw);
  const body = /\\breturn\\b/.test(env.code) ? env.code : `return (${env.code});`;
  let result;
  try { result = new Function("output", "context", body)(env.output, env.context); }
  catch (e) { result = { pass: false, score: 0, reason: `threw ${e && e.message}` }; }
  Promise.resolve(result).then((r) => process.stdout.write(JSON.stringify({ r: r ?? null })));
});
"""


def _result(
    check: Check, passed: bool | None, evidence: str, score: float | None = None
) -> ItemResult:
    if score is None and passed is not None:
        score = float(passed)
    return ItemResult(
        check.id, check.text, passed, evidence, score=score, kind=check.kind, source=check.source
    )


@register("promptfoo.text", TextParams)
async def text(check: Check, ctx: CheckContext) -> ItemResult:
    p, output = params_of(check, TextParams), ctx.transcript.final_text
    kind = p.type
    folded = kind.startswith("i")
    hay = output.casefold() if folded else output
    if kind == "is-json":
        try:
            json.loads(output)
            held, said = True, "the output is JSON"
        except ValueError:
            held, said = False, "the output is not JSON"
    elif kind.endswith(("-any", "-all")):
        values = [v.casefold() if folded else v for v in p.values]
        hits = [v for v in values if v in hay]
        held = bool(hits) if kind.endswith("-any") else len(hits) == len(values)
        said = f"{len(hits)} of {len(values)} found"
    elif kind == "regex":
        try:
            held = compile_re2(p.value).search(output) is not None
        except RegexError as exc:
            return _result(check, False, f"the pattern does not compile: {exc}")
        said = "matched" if held else "no match"
    else:
        value = p.value.casefold() if folded else p.value
        held = {
            "contains": value in hay,
            "icontains": value in hay,
            "equals": output.strip() == p.value.strip(),
            "starts-with": output.startswith(p.value),
        }[kind]
        said = f"{'found' if held else 'not found'}: {p.value!r}"
    return _result(check, held != p.negate, said)


@register("promptfoo.javascript", ScriptParams)
async def javascript(check: Check, ctx: CheckContext) -> ItemResult:
    t = ctx.transcript
    calls = [{"name": c.name, "input": _args(c.arguments)} for c in t.tool_calls]
    env = {
        "code": params_of(check, ScriptParams).code,
        "output": t.final_text,
        "context": {
            "vars": dict(ctx.case.extra.vars),
            "prompt": ctx.case.prompt,
            "providerResponse": {"output": t.final_text, "metadata": {"toolCalls": calls}},
        },
    }
    done = await ctx.run_command(
        ["node", "-e", NODE_RUNNER],
        cwd=ctx.workspace,
        timeout_s=min(ctx.timeout_s, 60.0),
        stdin=json.dumps(env),
    )
    if done.error:
        return _result(
            check, None, f"not graded: node could not start where checks run ({done.error})"
        )
    if done.timed_out or done.exit_code != 0:
        why = "timed out" if done.timed_out else done.stderr.strip()[-400:]
        return _result(check, False, f"the assertion could not run: {why}")
    try:
        value = json.loads(done.stdout)["r"]
    except (ValueError, KeyError, TypeError):
        return _result(check, False, "the assertion printed no verdict")
    return _verdict(check, value)


def _verdict(check: Check, value: Any) -> ItemResult:
    threshold = params_of(check, ScriptParams).threshold
    if isinstance(value, bool):
        return _result(check, value, f"returned {str(value).lower()}")
    if isinstance(value, int | float):
        ok = value >= threshold if threshold is not None else value > 0
        return _result(check, ok, f"scored {value:g}", min(max(float(value), 0.0), 1.0))
    if isinstance(value, dict):
        score = value.get("score")
        score = (
            float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None
        )
        passed = value.get("pass")
        if not isinstance(passed, bool):
            passed = score is not None and (
                score >= threshold if threshold is not None else score > 0
            )
        reason = str(value.get("reason") or "")
        return _result(check, passed, reason or f"pass: {passed}", score)
    return _result(check, False, f"returned {type(value).__name__}, not a verdict")


def _args(raw: str) -> Any:
    try:
        return json.loads(raw) if raw else {}
    except ValueError:
        return raw


@register("promptfoo.cost", LimitParams)
async def cost(check: Check, ctx: CheckContext) -> ItemResult:
    spent = ctx.transcript.usage.cost_usd
    if spent is None:
        return _result(check, None, "not graded: the model has no price, so the cost is unknown")
    limit = params_of(check, LimitParams).threshold
    return _result(check, spent <= limit, f"cost ${spent:.4f} (limit ${limit:g})")


@register("promptfoo.latency", LimitParams)
async def latency(check: Check, ctx: CheckContext) -> ItemResult:
    took = ctx.transcript.duration_s * 1000
    limit = params_of(check, LimitParams).threshold
    return _result(check, took <= limit, f"took {took:.0f} ms (limit {limit:g} ms)")


@register("promptfoo.trajectory", Trajectory)
async def promptfoo_trajectory(check: Check, ctx: CheckContext) -> ItemResult:
    if not ctx.reports_tool_calls:
        return _result(check, None, "this transcript does not record tool calls")
    held, evidence = verdict(params_of(check, Trajectory), run_trajectory(ctx).steps)
    return _result(check, held, evidence)
