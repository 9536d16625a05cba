"""agentv deterministic evaluators: `code_judge` scripts and the simple text assertions.

agentv is score-based: every result carries a score in [0, 1]; `passed` says whether it
reached the item's `required` floor, else the suite's threshold (0.8). Trace checks
(`tool_trajectory`, `execution_metrics`, `skill_used`) live in `trace.py`, and
`field_accuracy` in `fields.py`; importing the `checks` package registers them all.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from evolve_action.formats.agentv.checks.support import answer_json, failed, scored, trace_summary
from evolve_action.formats.agentv.kinds import CodeJudge, Negatable, Pattern, TextRule
from evolve_action.model.checking import CheckContext, params_of, register
from evolve_action.model.evals import Check
from evolve_action.model.outcomes import CommandResult, ItemResult
from evolve_action.util.regex import RegexError, compile_re2

JUDGE_DIR = ".agentv-judge"  # where judge scripts are copied, inside the workspace
STDERR_TAIL = 2000


@register("agentv.code_judge", CodeJudge)
async def code_judge(check: Check, ctx: CheckContext) -> ItemResult:
    """Run the judge script with the case and answer as JSON on stdin; it prints a score."""
    p = params_of(check, CodeJudge)
    try:
        base = _fresh_dir(ctx.workspace)
        # Copied after the agent finished, so the agent cannot have edited its own judge.
        for entry in p.stage:
            source = (ctx.suite.path.parent / entry.source).resolve()
            dest = base / entry.dest
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, dest)  # keeps the execute bit of `./judge.sh`
        cwd = base / p.cwd
        cwd.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return failed(check, f"cannot copy the judge script into the workspace: {exc}")
    command = list(p.command) if isinstance(p.command, tuple) else p.command
    stdin = json.dumps(payload(ctx, dict(p.config) or None), ensure_ascii=False)
    result = await ctx.run_command(command, cwd=cwd, timeout_s=ctx.timeout_s, stdin=stdin)
    return _judged(check, ctx, result)


def _fresh_dir(workspace: Path) -> Path:
    """A new folder of unguessable name under `JUDGE_DIR`. The agent may have planted
    symlinks in the workspace; nothing is written through a path it could have made."""
    holder = workspace / JUDGE_DIR
    if holder.is_symlink() or (holder.exists() and not holder.is_dir()):
        holder.unlink()
    holder.mkdir(parents=True, exist_ok=True)
    if not holder.resolve().is_relative_to(workspace.resolve()):
        raise OSError(f"{JUDGE_DIR} leads out of the workspace")
    return Path(tempfile.mkdtemp(prefix="judge-", dir=holder))


def payload(ctx: CheckContext, config: Any) -> dict[str, Any]:
    """The stdin contract, in AgentV's snake_case and the spec's camelCase at once."""
    extra = ctx.case.extra
    agentv = extra.expected_outcome is not None  # a case another family loaded has none
    t = ctx.transcript
    output = [
        {
            "role": "assistant",
            "content": t.final_text,
            "tool_calls": [
                {"id": c.call_id, "tool": c.name, "input": _args(c.arguments), "output": c.result}
                for c in t.tool_calls
            ],
        }
    ]
    files = [str(ctx.workspace / dest) for dest in extra.input_files]
    summary = trace_summary(t)
    snake = {
        "question": extra.question if agentv else ctx.case.prompt,
        "expected_outcome": extra.expected_outcome or "",
        "criteria": extra.expected_outcome or "",
        "expected_messages": [dict(m) for m in extra.expected_messages],
        "reference_answer": extra.reference_answer if agentv else ctx.case.expected_output,
        "candidate_answer": t.final_text,
        "answer": t.final_text,
        "output_messages": output,
        "guideline_files": [],
        "input_files": files,
        "input_messages": [dict(m) for m in extra.input_messages],
        "trace_summary": summary,
        "config": config,
    }
    camel = {_camel(k): v for k, v in snake.items()}
    camel["traceSummary"] = {_camel(k): v for k, v in summary.items()}
    return {**snake, **camel}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def _args(raw: str) -> Any:
    try:
        return json.loads(raw) if raw else {}
    except ValueError:
        return raw


def _judged(check: Check, ctx: CheckContext, result: CommandResult) -> ItemResult:
    if result.error:
        return failed(check, f"the judge script could not start: {result.error}")
    if result.timed_out:
        return failed(check, f"the judge script timed out after {ctx.timeout_s:g} s")
    if result.exit_code != 0:
        tail = result.stderr.strip()[-STDERR_TAIL:] or result.stdout.strip()[-STDERR_TAIL:]
        return failed(check, f"the judge script exited with code {result.exit_code}: {tail}")
    verdict = _verdict(result.stdout)
    if verdict is None:
        shown = result.stdout.strip()[:300] or "(nothing)"
        return failed(check, f"the judge script did not print a JSON object: {shown}")
    score = verdict.get("score")
    if isinstance(score, bool) or not isinstance(score, int | float):
        return failed(check, f"the judge script's JSON has no numeric score: {verdict}")
    lines = [f"score {min(max(float(score), 0.0), 1.0):.2f}"]
    if isinstance(verdict.get("reasoning"), str) and verdict["reasoning"].strip():
        lines.append(verdict["reasoning"].strip())
    for key in ("hits", "misses"):
        words = [str(w) for w in verdict.get(key) or [] if isinstance(w, str | int | float)]
        if words:
            lines.append(f"{key}: " + "; ".join(words))
    return scored(check, ctx, float(score), "\n".join(lines))


def _verdict(stdout: str) -> dict[str, Any] | None:
    """The whole output as one JSON object, else its last line that is one."""
    text = stdout.strip()
    for candidate in (text, *reversed(text.splitlines())):
        try:
            found = json.loads(candidate.strip())
        except ValueError:
            continue
        if isinstance(found, dict):
            return found
    return None


@register("agentv.contains", TextRule)
@register("agentv.equals", TextRule)
@register("agentv.starts_with", TextRule)
@register("agentv.ends_with", TextRule)
async def text_rule(check: Check, ctx: CheckContext) -> ItemResult:
    p = params_of(check, TextRule)
    answer = ctx.transcript.final_text
    fold = p.ignore_case
    hay = answer.lower() if fold else answer
    found = [v for v in p.values if _holds(p.op, hay, v.lower() if fold else v)]
    held = bool(found) if p.mode == "any" else len(found) == len(p.values)
    ok = not held if p.negate else held
    shown = ", ".join(repr(v) for v in found) or "none of them"
    return scored(check, ctx, 1.0 if ok else 0.0, f"found: {shown} in {_quote(answer)}")


def _holds(op: str, hay: str, needle: str) -> bool:
    if op == "equals":
        return hay.strip() == needle.strip()
    if op == "starts_with":  # both sides trimmed, as AgentV compares them
        return hay.strip().startswith(needle.strip())
    if op == "ends_with":
        return hay.strip().endswith(needle.strip())
    return needle in hay


@register("agentv.regex", Pattern)
async def regex(check: Check, ctx: CheckContext) -> ItemResult:
    answer, p = ctx.transcript.final_text, params_of(check, Pattern)
    try:
        match = compile_re2(p.pattern).search(answer)
    except RegexError as exc:
        return failed(check, f"invalid RE2 pattern: {exc}")
    ok = (match is None) if p.negate else (match is not None)
    seen = f"matched {match.group(0)!r}" if match is not None else "no match"
    return scored(check, ctx, 1.0 if ok else 0.0, f"{seen} in {_quote(answer)}")


@register("agentv.is_json", Negatable)
async def is_json(check: Check, ctx: CheckContext) -> ItemResult:
    parsed = answer_json(ctx.transcript.final_text, whole=True)
    valid = parsed is not None
    ok = not valid if params_of(check, Negatable).negate else valid
    what = "valid JSON" if valid else "not valid JSON"
    return scored(check, ctx, 1.0 if ok else 0.0, f"the answer is {what}")


def _quote(answer: str, limit: int = 200) -> str:
    flat = " ".join(answer.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")
