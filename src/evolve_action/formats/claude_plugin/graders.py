"""One `claude plugin eval` grader (a `graders/<name>.md` front matter and body, or an entry
of case.yaml's `graders:`) as a `Check` or a `JudgeItem`; what cannot run here is warned,
naming the grader and why, and the case runs without it."""

from __future__ import annotations

from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.claude_plugin.checks import (
    FileParams,
    OrderParams,
    RegexParams,
    ToolParams,
)
from evolve_action.model.evals import Check, Item, JudgeItem, Scale
from evolve_action.util.regex import RegexError, compile_re2
from evolve_action.util.text import json_kind

KINDS = ("regex", "tool_used", "tool_order", "file_exists", "llm", "baseline")
At = tuple[str | int, ...]


def grader(name: str, fields: dict[str, Any], body: str, at: At, problems: Problems) -> Item | None:
    """The item of one grader, or None (with a warning or an error saying why)."""
    kind = fields.get("type")
    if kind not in KINDS:
        problems.warn(
            (*at, "type"),
            f"grader {name!r}: type {kind!r} is not one of {', '.join(KINDS)}; it is not run",
        )
        return None
    weight = _weight(fields.get("weight"))
    origin = problems.origin(*at)
    if kind == "llm":
        raw = fields.get("criteria")
        criteria = raw if isinstance(raw, str) else body
        if not criteria.strip():
            problems.warn(at, f"grader {name!r}: an llm grader needs criteria (its body)")
            return None
        return JudgeItem(name, criteria.strip(), origin, Scale.BINARY, weight=weight, source="llm")
    if kind == "baseline":
        problems.warn(
            at,
            f"grader {name!r}: a baseline grader compares the run with a reference"
            " transcript, which evolve-action does not replay; it is not run",
        )
        return None
    params = _params(name, kind, fields, body, at, problems)
    if params is None:
        return None
    text = f"{kind} {name}"
    return Check(name, f"claude-plugin.{kind}", text, origin, params, weight=weight, source=kind)


def _params(
    name: str, kind: str, f: dict[str, Any], body: str, at: At, problems: Problems
) -> RegexParams | ToolParams | OrderParams | FileParams | None:
    if kind == "regex":
        return _regex(name, f, body, at, problems)
    if kind == "tool_used":
        return _tool(name, f, at, problems, low=1)
    if kind == "tool_order":
        before = _side(name, f.get("before"), (*at, "before"), problems)
        after = _side(name, f.get("after"), (*at, "after"), problems)
        return OrderParams(before, after) if before and after else None
    path = f.get("path") or f.get("glob")
    if not isinstance(path, str) or not path.strip():
        problems.error((*at, "path"), f"grader {name!r}: file_exists needs `path` (a glob)")
        return None
    return FileParams(path.strip(), f.get("exists") is not False)


def _regex(
    name: str, f: dict[str, Any], body: str, at: At, problems: Problems
) -> RegexParams | None:
    pattern = f.get("pattern")
    pattern = pattern if isinstance(pattern, str) else body.strip()
    if not pattern:
        problems.error((*at, "pattern"), f"grader {name!r}: a regex grader needs `pattern`")
        return None
    raw_flags = f.get("flags")
    flags = raw_flags if isinstance(raw_flags, str) else ""
    try:
        compile_re2(pattern, multiline=True, ignore_case="i" in flags)
    except RegexError as exc:
        problems.warn(
            (*at, "pattern"),
            f"grader {name!r}: RE2 cannot read this JavaScript regex ({exc}); it is not run here",
        )
        return None
    match = f.get("match", "contains")
    if match not in ("contains", "not_contains"):
        problems.warn((*at, "match"), f"grader {name!r}: match {match!r} is read as contains")
    target = f.get("target", "last_message")
    path = ""
    if isinstance(target, dict) and target.get("source") == "file":
        path = str(target.get("path") or "")
    elif target != "last_message":
        problems.warn(
            (*at, "target"),
            f"grader {name!r}: target {target!r} (the trace, all"
            " files) has no equivalent here; it is not run",
        )
        return None
    return RegexParams(pattern, "i" in flags, match == "not_contains", path)


def _tool(
    name: str, f: dict[str, Any], at: At, problems: Problems, *, low: int
) -> ToolParams | None:
    tool = f.get("tool")
    if not isinstance(tool, str) or not tool.strip():
        problems.error((*at, "tool"), f"grader {name!r}: needs `tool` (a tool's name)")
        return None
    match = f.get("input_match")
    match = match if isinstance(match, str) else ""
    if match:
        try:
            compile_re2(match)
        except RegexError as exc:
            problems.warn(
                (*at, "input_match"),
                f"grader {name!r}: RE2 cannot read this"
                f" JavaScript regex ({exc}); it is not run here",
            )
            return None
    least, most = f.get("min", low), f.get("max")
    least = least if isinstance(least, int) and not isinstance(least, bool) else low
    most = most if isinstance(most, int) and not isinstance(most, bool) else None
    return ToolParams(tool.strip(), match, least, most)


def _side(name: str, raw: Any, at: At, problems: Problems) -> ToolParams | None:
    if isinstance(raw, str):
        return ToolParams(raw.strip())
    if isinstance(raw, dict):
        return _tool(name, raw, at, problems, low=1)
    problems.error(
        at,
        f"grader {name!r}: a tool_order side is a tool name or {{tool,"
        f" input_match}}, not {json_kind(raw)}",
    )
    return None


def _weight(raw: Any) -> float:
    ok = isinstance(raw, int | float) and not isinstance(raw, bool) and raw > 0
    return float(raw) if ok else 1.0
