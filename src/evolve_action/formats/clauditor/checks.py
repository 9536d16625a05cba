"""clauditor's ten Layer 1 assertions, with clauditor's semantics.

They read "the output": the agent's final answer, or, when the spec names `output_file` /
`output_files`, the first file those patterns match in the workspace (clauditor makes the
first match the output). A declared output that is missing fails every assertion with that
as evidence, rather than grading the chat text the author did not ask about.

Matching is case-sensitive and unanchored; user patterns run on RE2 with no flags (inline
`(?i)`, `(?m)` work), so `^- ` only matches at the very start without `(?m)`, as in Python.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path

from evolve_action.formats.clauditor import field_formats
from evolve_action.formats.clauditor.params import (
    TYPES,
    CountParams,
    FormatParams,
    LengthParams,
    NeedleParams,
    PatternParams,
)
from evolve_action.formats.clauditor.urls import MAX_URLS, probe_all
from evolve_action.model.checking import CheckContext, params_of, register
from evolve_action.model.evals import Check
from evolve_action.model.outcomes import ItemResult
from evolve_action.util.regex import RegexError, compile_re2

# Our own patterns (not user input), on Python `re` for clauditor's Unicode classes.
URL = re.compile(r"https?://[^\s)\"'>]+")
ENTRY = re.compile(r"\*\*\d+\.\s")  # a bold-numbered item: **1. Name**

Text = tuple[str | None, str]  # (the output, or None when missing; where it came from)
Grader = Callable[[Check, str, CheckContext], Awaitable[tuple[bool | None, str]]]


def output_text(ctx: CheckContext) -> Text:
    patterns = ctx.case.output_files
    if not patterns:
        return ctx.transcript.final_text, "the final answer"
    root = ctx.workspace.resolve()
    for pattern in patterns:
        for path in _matches(root, pattern):
            rel = path.relative_to(root).as_posix()
            try:
                return path.read_text(encoding="utf-8", errors="replace"), rel
            except OSError as exc:
                return None, f"output file {rel} cannot be read: {exc.strerror or exc}"
    listed = ", ".join(repr(p) for p in patterns)
    return None, f"no output file: nothing in the workspace matches {listed}"


def _matches(root: Path, pattern: str) -> list[Path]:
    """Regular files matching a glob, confined to the workspace (symlinks included)."""
    try:
        found = sorted(root.glob(pattern))
    except (ValueError, NotImplementedError, OSError):
        return []
    out = []
    for path in found:
        try:
            resolved = path.resolve(strict=True)
        except (OSError, RuntimeError):
            continue
        if resolved.is_relative_to(root) and resolved.is_file():
            out.append(path)
    return out


def _clauditor(kind: str) -> Callable[[Grader], Grader]:
    """Register a grader of the output under `clauditor.<kind>`, with its parameter type."""

    def decorate(grade: Grader) -> Grader:
        @register(f"clauditor.{kind}", TYPES[kind])
        async def check(item: Check, ctx: CheckContext) -> ItemResult:
            text, where = output_text(ctx)
            passed: bool | None
            if text is None:
                passed, evidence = False, where
            else:
                passed, evidence = await grade(item, text, ctx)
                if passed is not None:
                    evidence = f"{evidence} (in {where})"
            return ItemResult(
                item.id, item.text, passed, evidence, kind=item.kind, source=item.source
            )

        return grade

    return decorate


def _quote(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _at_least(found: int, wanted: int, what: str, sample: list[str]) -> tuple[bool, str]:
    shown = f": {', '.join(_quote(s, 60) for s in sample[:3])}" if sample else ""
    return found >= wanted, f"{found} {what} found, at least {wanted} wanted{shown}"


@_clauditor("contains")
async def _contains(item: Check, text: str, ctx: CheckContext) -> tuple[bool | None, str]:
    needle = params_of(item, NeedleParams).needle
    at = text.find(needle)
    if at < 0:
        return False, f"{_quote(needle)} not found in {len(text)} characters"
    return True, f"{_quote(needle)} found at character {at}"


@_clauditor("not_contains")
async def _not_contains(item: Check, text: str, ctx: CheckContext) -> tuple[bool | None, str]:
    needle = params_of(item, NeedleParams).needle
    at = text.find(needle)
    if at < 0:
        return True, f"{_quote(needle)} is absent"
    return False, f"{_quote(needle)} found at character {at}: {_quote(text[at : at + 120])}"


@_clauditor("regex")
async def _regex(item: Check, text: str, ctx: CheckContext) -> tuple[bool | None, str]:
    pattern = params_of(item, PatternParams).pattern
    try:
        match = compile_re2(pattern).search(text)
    except RegexError as exc:
        return False, f"invalid pattern {pattern!r}: {exc}"
    if match is None:
        return False, f"/{pattern}/ does not match"
    return True, f"/{pattern}/ matches {_quote(match.group(0))}"


@_clauditor("min_count")
async def _min_count(item: Check, text: str, ctx: CheckContext) -> tuple[bool | None, str]:
    pattern = params_of(item, PatternParams).pattern
    try:
        hits = [m.group(0) for m in compile_re2(pattern).finditer(text)]
    except RegexError as exc:
        return False, f"invalid pattern {pattern!r}: {exc}"
    return _at_least(
        len(hits), params_of(item, PatternParams).count, f"matches of /{pattern}/", hits
    )


@_clauditor("min_length")
async def _min_length(item: Check, text: str, ctx: CheckContext) -> tuple[bool | None, str]:
    wanted = params_of(item, LengthParams).length
    return len(text) >= wanted, f"{len(text)} characters, at least {wanted} wanted"


@_clauditor("max_length")
async def _max_length(item: Check, text: str, ctx: CheckContext) -> tuple[bool | None, str]:
    wanted = params_of(item, LengthParams).length
    return len(text) <= wanted, f"{len(text)} characters, at most {wanted} allowed"


@_clauditor("has_urls")
async def _has_urls(item: Check, text: str, ctx: CheckContext) -> tuple[bool | None, str]:
    urls = URL.findall(text)  # duplicates count, as in clauditor
    return _at_least(len(urls), params_of(item, CountParams).count, "URLs", urls)


@_clauditor("has_entries")
async def _has_entries(item: Check, text: str, ctx: CheckContext) -> tuple[bool | None, str]:
    entries = ENTRY.findall(text)
    return _at_least(
        len(entries), params_of(item, CountParams).count, "bold-numbered entries", entries
    )


@_clauditor("has_format")
async def _has_format(item: Check, text: str, ctx: CheckContext) -> tuple[bool | None, str]:
    p = params_of(item, FormatParams)
    name = p.format
    if name not in field_formats.FORMATS:
        return False, f"{name!r} is not a registered format"
    hits = [m.group(0) for m in field_formats.FORMATS[name].regex.finditer(text)]
    return _at_least(len(hits), p.count, f"{name} values", hits)


@_clauditor("urls_reachable")
async def _urls_reachable(item: Check, text: str, ctx: CheckContext) -> tuple[bool | None, str]:
    wanted = params_of(item, CountParams).count
    if not ctx.network:
        return None, "skipped: network is off for checks"
    urls = URL.findall(text)
    if not urls:
        return wanted <= 0, f"no URLs found, at least {wanted} reachable wanted"
    probes = await probe_all(urls)
    reachable = sum(1 for p in probes if p.reachable)
    failed = [f"{p.url} → {p.detail}" for p in probes if not p.reachable]
    detail = f"; not reachable: {'; '.join(failed[:5])}" if failed else ""
    checked = f"{len(probes)} distinct URLs checked (at most {MAX_URLS})"
    return reachable >= wanted, f"{reachable} reachable of {checked}, {wanted} wanted{detail}"
