"""skill-evaluator's structural checks (layer 1), as its shipped checker behaves.

The checker's "outputs directory" is the run's workspace: globs are recursive (pathlib's
`rglob`, so directories count too), `.git` and `.claude` (our git init and the installed
skill) are never searched, symlinks are not followed out of the workspace, and evidence names
files by their workspace-relative path, never an absolute one (it may reach the judge).

`no_errors` scanned the executor's `transcript.md`; our equivalent is the agent transcript:
every tool result and the final answer, the text a transcript.md would show. Tool arguments
are left out, because code the agent writes (`raise Error:`) is not an error it met.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from evolve_action.formats.skill_evaluator.params import (
    ContainsParams,
    CountParams,
    ExistsParams,
    ScriptParams,
)
from evolve_action.model.checking import CheckContext, params_of, register
from evolve_action.model.evals import Check, NoParams
from evolve_action.model.outcomes import ItemResult
from evolve_action.util import globs
from evolve_action.util.regex import RegexError, compile_re2

SKIPPED_DIRS = frozenset({".git", ".claude"})
MAX_READ = 8 * 1024 * 1024  # bytes read per file; a runaway output must not exhaust memory
ERROR_MARKERS = ("Error:", "FAILED", "Exception:", "Traceback (most recent", "Command failed")
SCRIPT_TIMEOUT_S = 30.0


def _result(check: Check, passed: bool | None, evidence: str) -> ItemResult:
    return ItemResult(check.id, check.text, passed, evidence, kind=check.kind, source=check.source)


def glob_match(pattern: str, rel: str) -> bool:
    """Does workspace-relative `rel` match `pattern` as `Path.rglob(pattern)` would find it?"""
    try:
        return compile_re2(globs.regex(pattern, globs.RGLOB)).fullmatch(rel) is not None
    except RegexError:
        return False


def _entries(workspace: Path) -> Iterator[str]:
    """Every file and directory below the workspace, relative, sorted, skipped dirs pruned."""
    for top, dirs, files in os.walk(workspace):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        base = Path(top).relative_to(workspace)
        for name in [*dirs, *sorted(files)]:
            yield (base / name).as_posix()


def matching(workspace: Path, pattern: str) -> list[str]:
    return sorted(rel for rel in _entries(workspace) if glob_match(pattern, rel))


def _read(workspace: Path, rel: str) -> str | None:
    """A matched regular file's text, or None (directory, escaping symlink, unreadable)."""
    path = workspace / rel
    try:
        real = path.resolve()
        if not real.is_relative_to(workspace.resolve()) or not real.is_file():
            return None
        with real.open("rb") as handle:
            data = handle.read(MAX_READ)
    except OSError:
        return None
    return data.decode("utf-8", errors="replace")


def _texts(workspace: Path, pattern: str) -> tuple[list[str], list[tuple[str, str]]]:
    """(all matches, readable files with their text)."""
    found = matching(workspace, pattern)
    texts = [(rel, text) for rel in found if (text := _read(workspace, rel)) is not None]
    return found, texts


def _regex(p: ContainsParams) -> tuple[Any, str]:
    pattern = p.match_regex
    if pattern is None:
        return None, ""
    try:
        return compile_re2(pattern), ""
    except RegexError as exc:
        return None, f"invalid regex {pattern!r}: {exc}"


@register("skill_evaluator.file_exists", ExistsParams)
async def file_exists(check: Check, ctx: CheckContext) -> ItemResult:
    pattern = params_of(check, ExistsParams).pattern
    found = matching(ctx.workspace, pattern)
    if not found:
        return _result(check, False, f"no files matching {pattern!r} in the workspace")
    return _result(check, True, f"found: {', '.join(found[:5])}")


@register("skill_evaluator.file_contains", ContainsParams)
async def file_contains(check: Check, ctx: CheckContext) -> ItemResult:
    p = params_of(check, ContainsParams)
    pattern = p.pattern
    found, texts = _texts(ctx.workspace, pattern)
    if not found:
        return _result(check, False, f"no files matching {pattern!r}")
    regex, problem = _regex(p)
    if problem:
        return _result(check, False, problem)
    terms = p.terms
    for rel, text in texts:
        if regex is not None:
            hit = regex.search(text)
            if hit:
                return _result(check, True, f"regex matched {hit.group(0)[:100]!r} in {rel}")
            continue
        for term in terms:
            for number, line in enumerate(text.split("\n"), start=1):
                if term in line:
                    snippet = line.strip()[:100]
                    return _result(check, True, f"found {term!r} in {rel}:{number}: {snippet}")
    wanted = f"regex {p.match_regex!r}" if regex is not None else f"{list(terms)}"
    return _result(check, False, f"{wanted} not found in {len(found)} matching file(s)")


@register("skill_evaluator.file_not_contains", ContainsParams)
async def file_not_contains(check: Check, ctx: CheckContext) -> ItemResult:
    p = params_of(check, ContainsParams)
    pattern = p.pattern
    found, texts = _texts(ctx.workspace, pattern)
    if not found:
        return _result(check, True, f"no files matching {pattern!r} (vacuously true)")
    regex, problem = _regex(p)
    if problem:
        return _result(check, False, problem)
    terms = p.terms
    exempt = p.except_context
    violations: list[str] = []
    for rel, text in texts:
        for number, line in enumerate(text.split("\n"), start=1):
            if any(c in line for c in exempt):
                continue
            stripped = line.strip()
            if regex is not None and regex.search(line):
                violations.append(f"{rel}:{number}: {stripped[:80]}")
            # Comments may mention a banned term (`// no vi.fn() here`); regex hits get no pass.
            if stripped.startswith(("//", "#")):
                continue
            violations.extend(f"{rel}:{number}: {stripped[:80]}" for t in terms if t in line)
    if violations:
        more = f" (+{len(violations) - 3} more)" if len(violations) > 3 else ""
        return _result(check, False, f"found banned text: {'; '.join(violations[:3])}{more}")
    checked = p.match_regex or ", ".join(terms)
    return _result(check, True, f"no matches for {checked!r} across {len(found)} file(s)")


@register("skill_evaluator.no_errors", NoParams)
async def no_errors(check: Check, ctx: CheckContext) -> ItemResult:
    sources = [(f"{call.name} result", call.result) for call in ctx.transcript.tool_calls]
    sources.append(("final answer", ctx.transcript.final_text))
    if not any(text.strip() for _label, text in sources):
        return _result(check, None, "the transcript is empty: nothing to scan (skipped)")
    errors = [
        f"{label}: {line.strip()[:60]}"
        for label, text in sources
        for line in text.split("\n")
        if any(marker in line for marker in ERROR_MARKERS)
    ]
    if errors:
        more = f" (+{len(errors) - 3} more)" if len(errors) > 3 else ""
        return _result(check, False, f"errors in the transcript: {'; '.join(errors[:3])}{more}")
    return _result(check, True, "no error patterns in the transcript")


_OPERATORS: dict[str, Callable[[int, int], bool]] = {
    "==": lambda a, b: a == b,
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
}


@register("skill_evaluator.file_count", CountParams)
async def file_count(check: Check, ctx: CheckContext) -> ItemResult:
    p = params_of(check, CountParams)
    pattern, expected, operator = p.pattern, p.count, p.operator
    compare = _OPERATORS.get(operator, _OPERATORS[">="])  # skill-evaluator's fallback
    actual = len(matching(ctx.workspace, pattern))
    evidence = f"found {actual} matching {pattern!r} (expected {operator} {expected})"
    return _result(check, compare(actual, expected), evidence)


@register("skill_evaluator.custom_script", ScriptParams)
async def custom_script(check: Check, ctx: CheckContext) -> ItemResult:
    timeout = min(SCRIPT_TIMEOUT_S, ctx.timeout_s) if ctx.timeout_s > 0 else SCRIPT_TIMEOUT_S
    # OUTPUTS_DIR is the workspace as the command sees it: inside bubblewrap that is not the
    # host path, so it is taken from the starting directory, not passed in through extra_env.
    launcher = 'export OUTPUTS_DIR="$PWD"; exec bash -c "$0"'
    result = await ctx.run_command(
        ["bash", "-c", launcher, params_of(check, ScriptParams).script],
        cwd=ctx.workspace,
        timeout_s=timeout,
    )
    if result.error:
        return _result(check, False, f"the script could not start: {result.error}")
    if result.timed_out:
        return _result(check, False, f"the script timed out after {timeout:g} s")
    output = _hide_workspace((result.stdout.strip() or result.stderr.strip()), ctx.workspace)
    code = result.exit_code
    evidence = f"exit code {code}: {output[:200]}" if output else f"exit code {code}"
    return _result(check, code == 0, evidence)


def _hide_workspace(text: str, workspace: Path) -> str:
    """Evidence may reach the judge and the comment: no absolute temporary paths in it."""
    for path in sorted({str(workspace.resolve()), str(workspace)}, key=len, reverse=True):
        text = text.replace(path, "$OUTPUTS_DIR")
    return text
