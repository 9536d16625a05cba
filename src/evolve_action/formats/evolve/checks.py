"""evolve's deterministic assertions and the trigger check, with evolve's evidence strings.

Semantics follow evolve's with one deliberate difference: a
`path` or `cwd` is confined to the workspace. evolve joins it onto the workspace with no escape
check; eval files come from pull requests, so a path that resolves (symlinks included) outside
the workspace fails here instead of reading the runner's files.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from evolve_action.formats.evolve.params import (
    CommandParams,
    FileParams,
    RegexParams,
    SequenceParams,
    ToolCallParams,
    TriggerParams,
)
from evolve_action.formats.trajectory.calls import run_trajectory
from evolve_action.formats.trajectory.order import Order, check_order
from evolve_action.formats.trajectory.wants import Naming, named
from evolve_action.model.checking import CheckContext, params_of, register
from evolve_action.model.evals import Check
from evolve_action.model.outcomes import ItemResult
from evolve_action.util.regex import RegexError, compile_re2

EVIDENCE_BYTES = 120
TAIL_BYTES = 200
STDERR_BYTES = 4096
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]")


def _result(check: Check, passed: bool | None, evidence: str) -> ItemResult:
    return ItemResult(check.id, check.text, passed, evidence, kind=check.kind, source=check.source)


def _head(text: str, limit: int = EVIDENCE_BYTES) -> str:
    """The first `limit` bytes of `text`, never splitting a character."""
    return text.encode()[:limit].decode("utf-8", "ignore")


def _tail(text: str, limit: int) -> str:
    return text.encode()[-limit:].decode("utf-8", "ignore") if limit else ""


class Outside(Exception):
    """A path that resolves outside the workspace."""


def confined(workspace: Path, rel: str) -> Path:
    """`rel` joined onto the workspace as evolve joins it (a leading `/` does not reset the
    root), refused when it resolves outside. Raises `Outside`."""
    target = workspace / rel.lstrip("/")
    root = workspace.resolve()
    try:
        resolved = target.resolve()
    except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, a NUL byte
        raise Outside(rel) from exc
    if not resolved.is_relative_to(root):
        raise Outside(rel)
    return target


def _outside(rel: str) -> str:
    return f"{rel} is outside the workspace or not a valid path (paths are confined to it)"


# --- files ---------------------------------------------------------------------------------


@register("evolve.file_exists", FileParams)
async def file_exists(check: Check, ctx: CheckContext) -> ItemResult:
    return _stat(check, ctx, want=True)


@register("evolve.file_absent", FileParams)
async def file_absent(check: Check, ctx: CheckContext) -> ItemResult:
    return _stat(check, ctx, want=False)


def _stat(check: Check, ctx: CheckContext, *, want: bool) -> ItemResult:
    rel = params_of(check, FileParams).path
    try:
        target = confined(ctx.workspace, rel)
    except Outside:
        return _result(check, False, _outside(rel))
    exists = target.exists()  # follows symlinks; a directory counts as existing
    return _result(check, exists == want, f"{rel} {'exists' if exists else 'missing'}")


# --- regex ---------------------------------------------------------------------------------


@register("evolve.regex", RegexParams)
async def regex(check: Check, ctx: CheckContext) -> ItemResult:
    return _regex(check, ctx, want_match=True)


@register("evolve.not_regex", RegexParams)
async def not_regex(check: Check, ctx: CheckContext) -> ItemResult:
    return _regex(check, ctx, want_match=False)


def _regex(check: Check, ctx: CheckContext, *, want_match: bool) -> ItemResult:
    p = params_of(check, RegexParams)
    try:
        compiled = compile_re2(p.pattern, multiline=True)
    except RegexError as exc:
        return _result(check, False, f"invalid pattern: {exc}")
    rel = p.path
    if rel:
        try:
            text = confined(ctx.workspace, rel).read_text("utf-8", "replace")
        except Outside:
            return _result(check, False, _outside(rel))
        except OSError:  # missing, a directory, unreadable: not_regex fails too
            return _result(check, False, f"{rel} missing")
    else:
        text = ctx.transcript.final_text
    match = compiled.search(text)
    if match is None:
        return _result(check, not want_match, "no match")
    return _result(check, want_match, _head(match.group(0)))


# --- command -------------------------------------------------------------------------------


@register("evolve.command", CommandParams)
async def command(check: Check, ctx: CheckContext) -> ItemResult:
    p = params_of(check, CommandParams)
    if p.requires and shutil.which(p.requires) is None:
        return _result(check, None, f"skipped: {p.requires} not installed")
    cwd = ctx.workspace
    rel = p.cwd
    if rel:
        try:
            cwd = confined(ctx.workspace, rel)
        except Outside:
            return _result(check, False, f"command error: cwd {_outside(rel)}")
        if not cwd.is_dir():
            return _result(check, False, f"command error: cwd {rel} is not a directory")
    done = await ctx.run_command(p.run, cwd=cwd, timeout_s=ctx.timeout_s)
    if done.error:
        return _result(check, False, f"command error: {done.error}")
    code = -1 if done.timed_out else done.exit_code
    expected = p.expect_exit
    stderr = ANSI.sub("", _tail(done.stderr, STDERR_BYTES)).strip()
    tail = _tail(ANSI.sub("", done.stdout) + stderr, TAIL_BYTES)
    return _result(check, code == expected, f"exit {code}: {tail}")


# --- tool calls ----------------------------------------------------------------------------


@register("evolve.tool_call", ToolCallParams)
async def tool_call(check: Check, ctx: CheckContext) -> ItemResult:
    """Some call's name (any form of it: an MCP tool's bare name too) is searched by `tool`,
    and its raw JSON arguments by `pattern`."""
    if not ctx.reports_tool_calls:
        return _result(check, None, "skipped: harness does not report tool calls")
    p = params_of(check, ToolCallParams)
    tool = p.tool
    try:
        want = named(tool, Naming.REGEX, args_regex=p.pattern)
    except RegexError as exc:
        return _result(check, False, f"invalid pattern: {exc}")
    for step in run_trajectory(ctx).steps:
        if want(step):
            return _result(check, True, f"{step.name} {_head(step.raw_arguments)}")
    return _result(check, False, f"no tool_call matched /{tool}/")


@register("evolve.tool_sequence", SequenceParams)
async def tool_sequence(check: Check, ctx: CheckContext) -> ItemResult:
    """The tools called in `order` (formats/trajectory/order.py): pass or fail, with the
    order's partial credit as the item's score."""
    if not ctx.reports_tool_calls:
        return _result(check, None, "skipped: harness does not report tool calls")
    p = params_of(check, SequenceParams)
    got = check_order([named(t) for t in p.tools], run_trajectory(ctx).steps, Order(p.order))
    return ItemResult(
        check.id, check.text, got.passed, got.evidence, score=got.score, kind=check.kind,
        source=check.source,
    )  # fmt: skip


# --- triggers ------------------------------------------------------------------------------


@register("triggers.fired", TriggerParams)
async def fired(check: Check, ctx: CheckContext) -> ItemResult:
    """A hit is a `Skill` call naming the skill, or a `Read` of its SKILL.md (as evolve counts it).
    Codex has neither tool: its skills are read through its shell, so a command that names
    the skill's SKILL.md is its hit."""
    if not ctx.reports_tool_calls:
        return _result(check, None, "skipped: harness does not report tool calls")
    p = params_of(check, TriggerParams)
    skill, should = p.skill, p.should_trigger
    manifest = f"skills/{skill}/SKILL.md"
    for call in ctx.transcript.tool_calls:
        hit = (call.name == "Skill" and skill in call.arguments) or (
            call.name in ("Read", "command_execution") and manifest in call.arguments
        )
        if hit:
            evidence = f"fired: {call.name} {_head(call.arguments)}"
            return _result(check, should, evidence)
    return _result(check, not should, _no_hit(skill, ctx))


def _no_hit(skill: str, ctx: CheckContext) -> str:
    others = [c for c in ctx.transcript.tool_calls if c.name == "Skill"]
    if others:
        loaded = ", ".join(_head(c.arguments, 60) for c in others[:3])
        return f"did not fire: {skill} was not loaded; the agent loaded {loaded}"
    calls = len(ctx.transcript.tool_calls)
    return f"did not fire: no Skill call or SKILL.md read for {skill} ({calls} tool calls)"
