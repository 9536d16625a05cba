"""The parameters of waza's grader kinds, built by the loader (`graders.py`) from a grader's
`config` (or a task's `expected` block). Tool names are already the agent's (`gates.TOOLS`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evolve_action.model.evals import CheckParams


@dataclass(frozen=True, slots=True)
class TextParams(CheckParams):
    """`text`, `keyword`, `regex`: every listed condition must hold."""

    contains: tuple[str, ...] = ()  # ignoring case
    not_contains: tuple[str, ...] = ()
    contains_cs: tuple[str, ...] = ()  # case-sensitive
    not_contains_cs: tuple[str, ...] = ()
    contains_any: tuple[str, ...] = ()
    regex_match: tuple[str, ...] = ()  # RE2 syntax
    regex_not_match: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ContentRule:
    path: str  # a glob in the workspace
    must_match: tuple[str, ...] = ()
    must_not_match: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FileParams(CheckParams):
    must_exist: tuple[str, ...] = ()
    must_not_exist: tuple[str, ...] = ()
    patterns: tuple[ContentRule, ...] = ()


@dataclass(frozen=True, slots=True)
class BehaviorParams(CheckParams):
    """Limits (None: not set), the tools the run must or must not use, and the MCP servers
    one of whose tools it must call (`required_mcp_servers`) or must not call (`forbidden_`)."""

    max_tool_calls: int | None = None
    max_tokens: int | None = None
    max_duration_ms: int | None = None
    max_iterations: int | None = None
    expect_tools: tuple[str, ...] = ()
    reject_tools: tuple[str, ...] = ()
    max_mcp_calls: int | None = None
    expect_servers: tuple[str, ...] = ()
    reject_servers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolParams(CheckParams):
    """`tool_constraint`."""

    expect_tools: tuple[str, ...] = ()
    reject_tools: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CallsParams(CheckParams):
    """`tool_calls`: tools that must and must not be called, and bounds on all calls."""

    required_tools: tuple[str, ...] = ()
    forbidden_tools: tuple[str, ...] = ()
    min_calls: int | None = None
    max_calls: int | None = None


@dataclass(frozen=True, slots=True)
class SequenceParams(CheckParams):
    """`action_sequence` (the tools called) and `skill_invocation` (the skills loaded)."""

    mode: str
    expected: tuple[str, ...]
    allow_extra: bool = True


@dataclass(frozen=True, slots=True)
class CodeParams(CheckParams):
    assertions: tuple[str, ...]  # Python expressions


def strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def text_params(fields: Mapping[str, Any]) -> TextParams:
    return TextParams(**{name: strings(fields.get(name)) for name in TextParams.__slots__})


def behavior_params(fields: Mapping[str, Any]) -> BehaviorParams:
    def limit(name: str) -> int | None:
        value = fields.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    return BehaviorParams(
        limit("max_tool_calls"),
        limit("max_tokens"),
        limit("max_duration_ms"),
        limit("max_iterations"),
        strings(fields.get("expect_tools")),
        strings(fields.get("reject_tools")),
        limit("max_mcp_calls"),
        strings(fields.get("expect_servers")),
        strings(fields.get("reject_servers")),
    )


def file_params(fields: Mapping[str, Any]) -> FileParams:
    rules = tuple(
        ContentRule(r["path"], strings(r.get("must_match")), strings(r.get("must_not_match")))
        for r in fields.get("patterns", [])
    )
    return FileParams(
        strings(fields.get("must_exist")), strings(fields.get("must_not_exist")), rules
    )
