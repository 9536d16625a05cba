"""Vally's `tool-calls` grader, read into `ToolCalls` params (graded by
`formats/graders/tool_calls.py` over the run's trajectory).

`required`, `disallowed` and `sequence` are lists of tool matches: a string (a regex over the
tool's name) or `{name, command, path, args, result, min_count, final, at_step,
before_step}`. Vally's executor is Copilot's, so a name that is one of Copilot's built-in
tools (`bash`, `view`, `edit`, ...) is read as the agent's tool here (`gates.TOOLS`); any
other name (an MCP tool's) is matched against every form of a call's name. Vally's regexes
are JavaScript's: one RE2 cannot run leaves the grader skipped, with the reason.
"""

from __future__ import annotations

from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.graders.fields import At, js_regex
from evolve_action.formats.graders.gates import TOOLS
from evolve_action.formats.graders.params import ToolMatch
from evolve_action.util.text import json_kind

LISTS = ("required", "disallowed", "sequence")
MATCH_KEYS = frozenset(
    {"name", "command", "path", "args", "result", "min_count", "final", "at_step", "before_step"}
)
REQUIRED_ONLY = ("min_count", "final", "at_step", "before_step")


def tool_calls_params(problems: Problems, cat: At, config: dict[str, Any]) -> dict[str, Any] | None:
    """The grader's params (lists of `ToolMatch`), or None after an error."""
    before = problems.errors
    params: dict[str, Any] = {}
    for key in config:
        if key not in LISTS:
            problems.warn((*cat, key), f"unknown tool-calls key {key!r} is ignored")
    for key in LISTS:
        raw = config.get(key)
        if raw is None:
            continue
        if not isinstance(raw, list) or not raw:
            problems.error(
                (*cat, key), f"must be a non-empty list of tool matches, not {json_kind(raw)}"
            )
            continue
        matches = [
            _match(problems, (*cat, key, j), entry, key, params) for j, entry in enumerate(raw)
        ]
        params[key] = [m for m in matches if m is not None]
    if not any(params.get(k) for k in LISTS) and problems.errors == before:
        problems.error(cat, "needs at least one of required, disallowed or sequence")
    return params if problems.errors == before else None


def _match(
    problems: Problems, at: At, entry: Any, key: str, params: dict[str, Any]
) -> ToolMatch | None:
    if isinstance(entry, str):
        entry = {"name": entry}
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"]:
        problems.error(at, "a tool match is a tool name (a regex) or a mapping with a `name`")
        return None
    for field in entry:
        if field not in MATCH_KEYS:
            problems.warn((*at, field), f"unknown tool match key {field!r} is ignored")
        elif field in REQUIRED_ONLY and key != "required":
            problems.warn((*at, field), f"{field} applies to `required` entries only; ignored")
    if key == "required" and any(k in entry for k in ("at_step", "before_step")):
        _skip(problems, at, params, "at_step / before_step name the agent's turn, which a tool"
              " call here does not record")  # fmt: skip
    regexes = {f: entry.get(f) for f in ("command", "path", "result") if entry.get(f) is not None}
    args = entry.get("args") or {}
    if not isinstance(args, dict) or not all(isinstance(v, str) for v in args.values()):
        problems.error((*at, "args"), "must map argument names to regexes (strings)")
        return None
    count = entry.get("min_count", 1) if key == "required" else 1
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        problems.error((*at, "min_count"), f"must be a whole number ≥ 1, not {count!r}")
        return None
    texts = {**regexes, **{f"args.{k}": v for k, v in args.items()}}
    if not all(isinstance(v, str) for v in texts.values()):
        problems.error(at, "command, path and result must be regexes (strings)")
        return None
    read = {f: _regex(problems, (*at, f), v, params) for f, v in texts.items()}
    return ToolMatch(
        name=_name(problems, (*at, "name"), entry["name"], params),
        command=read.get("command", ""),
        path=read.get("path", ""),
        args=tuple((k, read[f"args.{k}"]) for k in args),
        result=read.get("result", "") if key != "sequence" else "",
        min_count=count,
        final=entry.get("final") is True and key == "required",
    )


def _name(problems: Problems, at: At, name: str, params: dict[str, Any]) -> str:
    """A Copilot tool's name as ours (anchored), else the regex as RE2 reads it."""
    bare = name.removeprefix("^").removesuffix("$")
    ours = TOOLS.get(bare.lower())
    if ours is not None and ours != "*":
        return f"^{ours}$"
    return _regex(problems, at, name, params)


def _regex(problems: Problems, at: At, pattern: str, params: dict[str, Any]) -> str:
    translated, why = js_regex(pattern)
    if why is not None:
        _skip(problems, at, params, why)
    return translated


def _skip(problems: Problems, at: At, params: dict[str, Any], why: str) -> None:
    params["skip"] = why
    problems.warn(at, f"this grader is not run and counts in no verdict: {why}")
