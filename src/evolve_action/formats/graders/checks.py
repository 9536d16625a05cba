"""The static graders and gates of the grader formats, as Vally's grader catalog defines
them; skill-validator, waza and promptfoo files load into the same kinds, which keep Vally's
name (`vally.<type>`) because results files record it.

"Output" is the agent's final answer; a grader with a `turn` (a conversation's, see
`formats/vally/turns.py`) reads the agent's answer to that user turn, and its time. File paths
are globs relative to the workspace and confined to it (a pattern that leads out matches
nothing there). A `not-` grader is its
positive form negated: `file-not-contains` passes when no matching file holds the value,
including when no file matches. Every result is binary with evidence.
"""

from __future__ import annotations

import json
from pathlib import Path

from evolve_action.formats.graders.params import (
    Activation,
    FileContains,
    FileExists,
    FileMatches,
    Grader,
    Limits,
    OutputContains,
    OutputMatches,
    RunCommand,
    SkillInvocation,
    Tools,
    WallTime,
)
from evolve_action.formats.trajectory.calls import run_trajectory
from evolve_action.formats.trajectory.rules import max_turns
from evolve_action.formats.trajectory.wants import named
from evolve_action.model.checking import CheckContext, params_of, register
from evolve_action.model.evals import Check
from evolve_action.model.outcomes import ItemResult, ToolCall
from evolve_action.util.regex import RegexError, compile_re2

EVIDENCE_CHARS = 160
MAX_FILES = 500  # files a glob may match before the check stops reading them
MAX_BYTES = 2 * 1024 * 1024  # a file is read up to this much


def _result(check: Check, passed: bool | None, evidence: str) -> ItemResult:
    score = None if passed is None else float(passed)
    return ItemResult(
        check.id, check.text, passed, evidence, score=score, kind=check.kind, source=check.source
    )


def _negated(check: Check, held: bool, evidence: str) -> ItemResult:
    negate = params_of(check, Grader).negate
    return _result(check, held != negate, evidence)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EVIDENCE_CHARS else text[: EVIDENCE_CHARS - 1] + "…"


def _turn(check: Check) -> int | None:
    return params_of(check, Grader).turn


def _output(check: Check, ctx: CheckContext) -> str | None:
    """The answer the check reads; None when its turn was never answered."""
    turn, t = _turn(check), ctx.transcript
    if turn is None:
        return t.final_text
    return t.answers[turn] if turn < len(t.answers) else None


def _unanswered(check: Check) -> ItemResult:
    turn = (_turn(check) or 0) + 1
    return _result(check, False, f"the conversation stopped before user turn {turn} was answered")


@register("vally.output-contains", OutputContains)
async def output_contains(check: Check, ctx: CheckContext) -> ItemResult:
    p, output = params_of(check, OutputContains), _output(check, ctx)
    needle = p.substring
    if output is None:
        return _unanswered(check)
    if p.ignore_case:  # skill-validator's output_contains
        needle, output = needle.casefold(), output.casefold()
    held = needle in output
    return _negated(check, held, f"the output {'contains' if held else 'lacks'} {needle!r}")


@register("vally.output-matches", OutputMatches)
async def output_matches(check: Check, ctx: CheckContext) -> ItemResult:
    output = _output(check, ctx)
    if output is None:
        return _unanswered(check)
    try:
        found = compile_re2(params_of(check, OutputMatches).pattern).search(output)
    except RegexError as exc:
        return _result(check, False, f"the pattern does not compile: {exc}")
    said = f"matched {_short(found.group(0))!r}" if found else "no match in the output"
    return _negated(check, found is not None, said)


def workspace_files(workspace: Path, pattern: str) -> list[Path]:
    """Files under the workspace that the glob names, never outside it."""
    root = workspace.resolve()
    pattern = pattern.lstrip("/")
    if not pattern or ".." in Path(pattern).parts:
        return []
    found: list[Path] = []
    try:
        candidates = root.glob(pattern) if any(c in pattern for c in "*?[") else [root / pattern]
        for path in candidates:
            if path.is_file() and path.resolve().is_relative_to(root):
                found.append(path)
                if len(found) >= MAX_FILES:
                    break
    except (OSError, ValueError):
        return []
    return sorted(found)


def read_text(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return handle.read(MAX_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""


@register("vally.file-exists", FileExists)
async def file_exists(check: Check, ctx: CheckContext) -> ItemResult:
    path = params_of(check, FileExists).path
    files = workspace_files(ctx.workspace, path)
    said = f"{len(files)} file(s) match {path!r}"
    return _negated(check, bool(files), said)


@register("vally.file-contains", FileContains)
async def file_contains(check: Check, ctx: CheckContext) -> ItemResult:
    p = params_of(check, FileContains)
    path, value = p.path, p.value
    files = workspace_files(ctx.workspace, path)
    holding = [f for f in files if value in read_text(f)]
    if not files:
        return _negated(check, False, f"no file matches {path!r}")
    names = ", ".join(f.relative_to(ctx.workspace.resolve()).as_posix() for f in holding[:3])
    said = (
        f"{value!r} is in {names}" if holding else f"{value!r} is in none of {len(files)} file(s)"
    )
    return _negated(check, bool(holding), said)


@register("vally.file-matches", FileMatches)
async def file_matches(check: Check, ctx: CheckContext) -> ItemResult:
    p = params_of(check, FileMatches)
    path = p.path
    try:
        regex = compile_re2(p.pattern)
    except RegexError as exc:
        return _result(check, False, f"the pattern does not compile: {exc}")
    files = workspace_files(ctx.workspace, path)
    if not files:
        return _negated(check, False, f"no file matches {path!r}")
    for f in files:
        found = regex.search(read_text(f))
        if found:
            rel = f.relative_to(ctx.workspace.resolve()).as_posix()
            return _negated(check, True, f"{rel} matched {_short(found.group(0))!r}")
    return _negated(check, False, f"no match in {len(files)} file(s) matching {path!r}")


@register("vally.exit-success", Grader)
async def exit_success(check: Check, ctx: CheckContext) -> ItemResult:
    output = _output(check, ctx)
    if output is None:
        return _unanswered(check)
    held = bool(output.strip())
    return _result(check, held, "the agent answered" if held else "the agent's output is empty")


@register("vally.completed", Grader)
async def completed(check: Check, ctx: CheckContext) -> ItemResult:
    t, turn, output = ctx.transcript, _turn(check), _output(check, ctx)
    if output is None:
        return _unanswered(check)
    if not output.strip():
        return _result(check, False, "the agent's output is empty")
    later = turn is not None and turn < len(t.answers) - 1  # only a finished turn is followed
    if not later and t.stop_reason not in ("", "end_turn"):
        return _result(check, False, f"the turn did not complete: it stopped on {t.stop_reason}")
    return _result(check, True, "the turn completed with an answer")


@register("vally.run-command", RunCommand)
async def run_command(check: Check, ctx: CheckContext) -> ItemResult:
    p = params_of(check, RunCommand)
    limit = p.timeout_s or ctx.timeout_s
    done = await ctx.run_command(p.command, cwd=ctx.workspace, timeout_s=limit)
    if done.error:
        return _result(check, False, f"the command could not start: {done.error}")
    if done.timed_out:
        return _result(check, False, f"the command timed out after {limit:g} s")
    if done.exit_code != p.expected_exit_code:
        tail = _short((done.stderr or done.stdout)[-600:])
        said = f"exit code {done.exit_code}, expected {p.expected_exit_code}"
        return _result(check, False, f"{said}: {tail}" if tail else said)
    wanted = p.stdout_contains
    if isinstance(wanted, str) and wanted not in done.stdout:
        return _result(check, False, f"exit code {done.exit_code}; stdout lacks {wanted!r}")
    pattern = p.stdout_matches
    if isinstance(pattern, str):
        try:
            if compile_re2(pattern).search(done.stdout) is None:
                return _result(check, False, f"stdout does not match {pattern!r}")
        except RegexError as exc:
            return _result(check, False, f"the pattern does not compile: {exc}")
    return _result(check, True, f"exit code {done.exit_code} as expected")


@register("vally.wall-time", WallTime)
async def wall_time(check: Check, ctx: CheckContext) -> ItemResult:
    t, turn, limit = ctx.transcript, _turn(check), params_of(check, WallTime).max_s
    if turn is None:
        took, what = t.duration_s, "the run"
    elif turn < len(t.answer_durations_s):
        took, what = t.answer_durations_s[turn], f"user turn {turn + 1}"
    else:
        return _unanswered(check)
    return _result(check, took <= limit, f"{what} took {took:.1f} s (limit {limit:g} s)")


def _skill_of(call: ToolCall) -> str | None:
    """The skill a call loads: the `Skill` tool's argument, or a read of a SKILL.md."""
    try:
        args = json.loads(call.arguments) if call.arguments else {}
    except ValueError:
        return None
    if not isinstance(args, dict):
        return None
    if call.name == "Skill":
        named = str(args.get("skill", args.get("name", "")))
        return named.rpartition(":")[2] or None
    path = str(args.get("file_path", args.get("path", "")))
    if call.name == "Read" and path.endswith("/SKILL.md"):
        return Path(path).parent.name
    return None


def skills_loaded(ctx: CheckContext) -> list[str]:
    names = [_skill_of(c) for c in ctx.transcript.tool_calls]
    return list(dict.fromkeys(n for n in names if n))


@register("vally.activation", Activation)
async def activation(check: Check, ctx: CheckContext) -> ItemResult:
    if not ctx.reports_tool_calls:
        return _result(check, None, "this transcript does not record tool calls")
    p = params_of(check, Activation)
    skill, expected = p.skill, p.expected
    fired = skill in skills_loaded(ctx)
    said = f"the skill {skill} {'fired' if fired else 'did not fire'}"
    return _result(check, fired == expected, said)


@register("vally.skill-invocation", SkillInvocation)
async def skill_invocation(check: Check, ctx: CheckContext) -> ItemResult:
    if not ctx.reports_tool_calls:
        return _result(check, None, "this transcript does not record tool calls")
    p, loaded = params_of(check, SkillInvocation), skills_loaded(ctx)
    missing = [s for s in p.required if s not in loaded]
    banned = [s for s in loaded if s in p.disallowed or "*" in p.disallowed]
    problems = [f"not loaded: {', '.join(missing)}"] if missing else []
    problems += [f"loaded although disallowed: {', '.join(banned)}"] if banned else []
    said = "; ".join(problems) or f"skills loaded: {', '.join(loaded) or 'none'}"
    return _result(check, not problems, said)


@register("vally.tools", Tools)
async def tools(check: Check, ctx: CheckContext) -> ItemResult:
    """Each expected tool called, no rejected one (`*`: any tool); a tool matches by any
    form of its name (`model.trajectory`), an MCP tool by its bare name too."""
    if not ctx.reports_tool_calls:
        return _result(check, None, "this transcript does not record tool calls")
    steps = run_trajectory(ctx).steps
    used = sorted({s.label for s in steps})
    p = params_of(check, Tools)
    missing = [t for t in p.expect_tools if t != "*" and not any(map(named(t), steps))]
    rejected = p.reject_tools
    banned = used if "*" in rejected else [t for t in rejected if any(map(named(t), steps))]
    problems = [f"never used {', '.join(missing)}"] if missing else []
    problems += [f"used rejected {', '.join(banned)}"] if banned else []
    said = "; ".join(problems) or f"tools used: {', '.join(used) or 'none'}"
    return _result(check, not problems, said)


@register("vally.limits", Limits)
async def limits(check: Check, ctx: CheckContext) -> ItemResult:
    t = ctx.transcript
    over: list[str] = []
    notes: list[str] = []
    p = params_of(check, Limits)
    if p.max_turns is not None:  # the trajectory's rule (`formats/trajectory/rules.py`)
        turns = max_turns(run_trajectory(ctx), p.max_turns)
        (notes if turns.passed else over).append(turns.evidence)
    if p.max_tokens is not None:
        got, limit = t.usage.total_tokens, p.max_tokens
        notes.append(f"tokens {got} of {limit}")
        if got > limit:
            over.append(f"tokens {got} > {limit}")
    return _result(check, not over, "; ".join(over or notes))


@register("vally.skipped", Grader)
async def skipped(check: Check, ctx: CheckContext) -> ItemResult:
    """A grader the loader could not make runnable here (an RE2-incompatible regex)."""
    return _result(
        check, None, f"not graded: {params_of(check, Grader).skip or 'not runnable here'}"
    )


# Vally's `tool-calls` grader is its own module; importing it registers its kind with these.
from evolve_action.formats.graders import tool_calls as _tool_calls  # noqa: E402, F401
