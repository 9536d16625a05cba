"""The parameters of the grader formats' check kinds (`vally.<type>`), built by every loader
that writes them (Vally, skill-validator, waza, promptfoo, the gates) through `grader`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from evolve_action.model.evals import CheckParams


@dataclass(frozen=True, slots=True, kw_only=True)
class Grader(CheckParams):
    """What every grader may carry: its `not-` form, the user turn whose answer it reads, and
    why it cannot run here (then it is graded as skipped, `vally.skipped`)."""

    negate: bool = False
    turn: int | None = None
    skip: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class OutputContains(Grader):
    substring: str
    ignore_case: bool = False  # skill-validator's output_contains


@dataclass(frozen=True, slots=True, kw_only=True)
class OutputMatches(Grader):
    pattern: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FileExists(Grader):
    path: str  # a glob in the workspace


@dataclass(frozen=True, slots=True, kw_only=True)
class FileContains(Grader):
    path: str
    value: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FileMatches(Grader):
    path: str
    pattern: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RunCommand(Grader):
    command: str
    expected_exit_code: int = 0
    timeout_s: float | None = None  # else the case's
    stdout_contains: str | None = None
    stdout_matches: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class WallTime(Grader):
    max_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Activation(Grader):
    skill: str
    expected: bool  # the skill should fire


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillInvocation(Grader):
    required: tuple[str, ...] = ()
    disallowed: tuple[str, ...] = ()  # "*": any skill


@dataclass(frozen=True, slots=True, kw_only=True)
class Tools(Grader):
    expect_tools: tuple[str, ...] = ()
    reject_tools: tuple[str, ...] = ()  # "*": any tool


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolMatch:
    """One entry of Vally's `tool-calls` grader: regexes (RE2) over a call's name (any form
    of it), its `command` and `path` arguments, any argument by name, and its result."""

    name: str
    command: str = ""
    path: str = ""  # our tools call it `file_path`; either is read
    args: tuple[tuple[str, str], ...] = ()
    result: str = ""
    min_count: int = 1  # `required` entries only
    final: bool = False  # `required`: the matching call is the run's last tool call


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCalls(Grader):
    required: tuple[ToolMatch, ...] = ()
    disallowed: tuple[ToolMatch, ...] = ()
    sequence: tuple[ToolMatch, ...] = ()  # called in this relative order, others between


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits(Grader):
    max_turns: int | None = None
    max_tokens: int | None = None


TYPES: dict[str, type[Grader]] = {
    "output-contains": OutputContains,
    "output-matches": OutputMatches,
    "file-exists": FileExists,
    "file-contains": FileContains,
    "file-matches": FileMatches,
    "exit-success": Grader,
    "completed": Grader,
    "run-command": RunCommand,
    "wall-time": WallTime,
    "activation": Activation,
    "skill-invocation": SkillInvocation,
    "tools": Tools,
    "tool-calls": ToolCalls,
    "limits": Limits,
    "skipped": Grader,  # any of the above that cannot run here
}


def grader(family: str, authored: Mapping[str, Any]) -> Grader:
    """The validated fields a loader gathered for a `vally.<family>` check, as its type;
    fields the type does not have are left out, lists become tuples."""
    kind = TYPES[family]
    names = {f.name for f in fields(kind)}
    values: dict[str, Any] = {
        k: tuple(v) if isinstance(v, list) else v for k, v in authored.items() if k in names
    }
    return kind(**values)
