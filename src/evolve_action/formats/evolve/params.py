"""The parameters of evolve's check kinds, built by the loader from an assertion's fields."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evolve_action.model.evals import CheckParams


@dataclass(frozen=True, slots=True)
class FileParams(CheckParams):
    """`file_exists`, `file_absent`."""

    path: str


@dataclass(frozen=True, slots=True)
class RegexParams(CheckParams):
    """`regex`, `not_regex`: over the file at `path`, else the final answer."""

    pattern: str
    path: str = ""


@dataclass(frozen=True, slots=True)
class CommandParams(CheckParams):
    run: str
    cwd: str = ""
    requires: str = ""  # a program the command needs; skipped when it is not installed
    expect_exit: int = 0


@dataclass(frozen=True, slots=True)
class ToolCallParams(CheckParams):
    tool: str  # a regex over the tool's name
    pattern: str = ""  # a regex over its arguments


@dataclass(frozen=True, slots=True)
class SequenceParams(CheckParams):
    """`tool_sequence`: the tools, by name, in the order `order` checks."""

    tools: tuple[str, ...]
    order: str = "in_order"  # strict | in_order | any_order


@dataclass(frozen=True, slots=True)
class TriggerParams(CheckParams):
    """`triggers.fired`."""

    skill: str
    should_trigger: bool


def typed(kind: str, fields: Mapping[str, Any]) -> CheckParams:
    """An assertion's validated fields (strings, an integer `expect_exit`) as its kind's
    parameters; fields the kind does not read are left out."""

    def text(name: str) -> str:
        value = fields.get(name)
        return value if isinstance(value, str) else ""

    if kind in ("file_exists", "file_absent"):
        return FileParams(text("path"))
    if kind in ("regex", "not_regex"):
        return RegexParams(text("pattern"), text("path"))
    if kind == "command":
        code = fields.get("expect_exit")
        exit_code = code if isinstance(code, int) and not isinstance(code, bool) else 0
        return CommandParams(text("run"), text("cwd"), text("requires"), exit_code)
    if kind == "tool_call":
        return ToolCallParams(text("tool"), text("pattern"))
    if kind == "tool_sequence":
        tools = fields.get("tools")
        names = tuple(t for t in tools if isinstance(t, str)) if isinstance(tools, list) else ()
        return SequenceParams(names, text("order") or "in_order")
    raise ValueError(f"evolve has no assertion type {kind!r}")
