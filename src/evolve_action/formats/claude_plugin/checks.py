"""The deterministic graders of `claude plugin eval`: `regex`, `tool_used`, `tool_order`,
`file_exists`. Regexes go through RE2 (the loader has already refused what RE2 cannot read);
a tool call's input is matched as the JSON text the tool was called with."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from evolve_action.formats.trajectory.calls import run_trajectory
from evolve_action.formats.trajectory.order import sequence
from evolve_action.formats.trajectory.rules import called
from evolve_action.formats.trajectory.wants import Want, named
from evolve_action.model.checking import CheckContext, params_of, register
from evolve_action.model.evals import Check, CheckParams
from evolve_action.model.outcomes import ItemResult
from evolve_action.util.globs import TOOL, regex
from evolve_action.util.regex import RegexError, compile_re2

EVIDENCE = 300
MAX_FILES = 5_000


@dataclass(frozen=True, slots=True)
class RegexParams(CheckParams):
    pattern: str
    ignore_case: bool = False
    negate: bool = False  # `match: not_contains`
    path: str = ""  # `target: {source: file, path}`: the file's final content, else the reply


@dataclass(frozen=True, slots=True)
class ToolParams(CheckParams):
    """One side of a tool grader: the tool's name and a regex over its input."""

    tool: str
    input_match: str = ""
    low: int = 1  # `min`
    high: int | None = None  # `max`


@dataclass(frozen=True, slots=True)
class OrderParams(CheckParams):
    before: ToolParams
    after: ToolParams


@dataclass(frozen=True, slots=True)
class FileParams(CheckParams):
    glob: str
    exists: bool = True


def _result(check: Check, passed: bool | None, evidence: str) -> ItemResult:
    return ItemResult(check.id, check.text, passed, evidence[:EVIDENCE], kind=check.kind)


def _want(p: ToolParams) -> Want:
    """The side's tool by any form of its name, its input searched by `input_match`."""
    return named(p.tool, args_regex=p.input_match)


@register("claude-plugin.regex", RegexParams)
async def regex_grader(check: Check, ctx: CheckContext) -> ItemResult:
    p = params_of(check, RegexParams)
    try:
        compiled = compile_re2(p.pattern, multiline=True, ignore_case=p.ignore_case)
    except RegexError as exc:
        return _result(check, False, f"invalid pattern: {exc}")
    text = ctx.transcript.final_text
    if p.path:
        target = (ctx.workspace / p.path).resolve()
        if not target.is_relative_to(ctx.workspace.resolve()) or not target.is_file():
            return _result(check, p.negate and not target.exists(), f"{p.path} missing")
        text = target.read_text("utf-8", "replace")
    found = compiled.search(text)
    evidence = f"matched: {found.group(0)}" if found else "no match"
    return _result(check, (found is None) == p.negate, evidence)


@register("claude-plugin.tool_used", ToolParams)
async def tool_used(check: Check, ctx: CheckContext) -> ItemResult:
    if not ctx.reports_tool_calls:
        return _result(check, None, "skipped: the harness does not report tool calls")
    p = params_of(check, ToolParams)
    try:
        got = called(_want(p), run_trajectory(ctx).steps, p.low, p.high)
    except RegexError as exc:
        return _result(check, False, f"invalid input_match: {exc}")
    return _result(check, got.passed, got.evidence)


@register("claude-plugin.tool_order", OrderParams)
async def tool_order(check: Check, ctx: CheckContext) -> ItemResult:
    """The first call of `before` comes before the first call of `after`."""
    if not ctx.reports_tool_calls:
        return _result(check, None, "skipped: the harness does not report tool calls")
    p = params_of(check, OrderParams)
    steps = run_trajectory(ctx).steps
    try:
        first, then = _want(p.before), _want(p.after)
    except RegexError as exc:
        return _result(check, False, f"invalid input_match: {exc}")
    a = next((s.index for s in steps if first(s)), None)
    b = next((s.index for s in steps if then(s)), None)
    head = f"expected: {first.label} → {then.label}; observed: {sequence([s.label for s in steps])}"
    if a is None or b is None:
        missing = first.label if a is None else then.label
        return _result(check, False, f"{head}; no matching {missing} call")
    if a < b:
        return _result(check, True, head)
    parted = f"parted at step {b}: expected {first.label}, saw {then.label}"
    return _result(check, False, f"{head}; {parted}")


@register("claude-plugin.file_exists", FileParams)
async def file_exists(check: Check, ctx: CheckContext) -> ItemResult:
    p = params_of(check, FileParams)
    found = _glob(ctx.workspace, p.glob)
    evidence = f"{p.glob}: {found[0]}" if found else f"{p.glob}: no such file"
    return _result(check, bool(found) == p.exists, evidence)


def _glob(root: Path, pattern: str) -> list[str]:
    compiled = re.compile(regex(pattern.removeprefix("./"), TOOL))
    out: list[str] = []
    for n, path in enumerate(root.rglob("*")):
        if n >= MAX_FILES:
            break
        rel = path.relative_to(root).as_posix()
        if ".git" not in rel.split("/") and path.is_file() and compiled.fullmatch(rel):
            out.append(rel)
            break
    return out
