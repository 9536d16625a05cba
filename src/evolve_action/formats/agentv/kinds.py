"""The parameters of AgentV's check kinds, built when a case's evaluator becomes a
`Check` (`items.py`) from what `params.py` validated. Nested authored JSON (arguments,
expected outputs, a judge's config) stays JSON."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from evolve_action.model.evals import CheckParams


@dataclass(frozen=True, slots=True)
class Negatable(CheckParams):
    """`is_json`, and what the other answer rules share."""

    negate: bool = False


@dataclass(frozen=True, slots=True)
class TextRule(CheckParams):
    """`contains`, `equals`, `starts_with`, `ends_with` (`op`), any or all of `values`."""

    op: str
    values: tuple[str, ...]
    mode: str = "all"  # any | all
    ignore_case: bool = False
    negate: bool = False


@dataclass(frozen=True, slots=True)
class Pattern(CheckParams):
    """`regex`: flags already folded into the pattern."""

    pattern: str
    negate: bool = False


@dataclass(frozen=True, slots=True)
class SkillUse(CheckParams):
    skill: str
    should_trigger: bool
    first_only: bool = False  # `skill-trigger`: only the first tool call counts


@dataclass(frozen=True, slots=True)
class Exploration:
    target: float  # the share of exploring tool calls
    tolerance: float


@dataclass(frozen=True, slots=True)
class Metrics(CheckParams):
    """`execution_metrics` and its shorthands: each `max_*` limit, and the exploration ratio."""

    limits: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    exploration: Exploration | None = None


@dataclass(frozen=True, slots=True)
class ExpectedCall:
    tool: str
    args: object = "any"  # "any", or the authored arguments (JSON) to compare
    args_match: object = "superset"  # exact | superset | subset | ignore, or fields to compare
    max_duration_ms: float | None = None


@dataclass(frozen=True, slots=True)
class ToolTrajectory(CheckParams):
    mode: str  # any_order | in_order | exact | superset | subset
    minimums: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    expected: tuple[ExpectedCall, ...] = ()


@dataclass(frozen=True, slots=True)
class StagedFile:
    """A file the judge command names, copied into the workspace once the agent is done."""

    source: str  # relative to the eval file's folder
    dest: str  # its repository path, where the command finds it
    sha256: str = ""  # its bytes enter the case's fingerprint: an edited judge re-runs


@dataclass(frozen=True, slots=True)
class CodeJudge(CheckParams):
    command: str | tuple[str, ...]  # a shell line, or an argv
    cwd: str = "."  # relative to the judge's folder in the workspace
    stage: tuple[StagedFile, ...] = ()
    # The script's own settings, handed to it as JSON (authored, opaque here).
    config: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One field of `field_accuracy`: where it is and how it is compared."""

    path: str  # a.b[0].c
    match: str = "exact"  # exact | contains | regex | numeric_tolerance | date
    required: bool = True  # a missing answer value scores 0 (else it is not counted)
    weight: float = 1.0
    tolerance: float = 0.0
    relative: bool = False
    formats: tuple[str, ...] = ()  # date formats, DD/MM/YYYY or MM/DD/YYYY
    pattern: str | None = None  # for `regex`; else the expected value is the pattern


@dataclass(frozen=True, slots=True)
class FieldAccuracy(CheckParams):
    fields: tuple[FieldSpec, ...]
    aggregation: str = "weighted_average"  # | minimum | all_or_nothing
    expected: object = None  # the case's expected output (JSON), compared field by field


def typed(kind: str, fields: Mapping[str, Any]) -> CheckParams:
    """An evaluator's validated parameters (`params.py`) as its kind's type."""
    if kind in ("contains", "equals", "starts_with", "ends_with"):
        return TextRule(
            fields["op"], tuple(fields["values"]), fields["mode"], fields["ignore_case"],
            fields["negate"],
        )  # fmt: skip
    if kind == "regex":
        return Pattern(fields["pattern"], fields["negate"])
    if kind == "is_json":
        return Negatable(fields["negate"])
    if kind == "skill_used":
        return SkillUse(fields["skill"], fields["should_trigger"], fields["first_only"])
    if kind == "execution_metrics":
        ratio = fields.get("exploration")
        exploration = Exploration(ratio["target"], ratio["tolerance"]) if ratio else None
        return Metrics(MappingProxyType(dict(fields["limits"])), exploration)
    if kind == "tool_trajectory":
        calls = tuple(
            ExpectedCall(c["tool"], c["args"], c["args_match"], c.get("max_duration_ms"))
            for c in fields["expected"]
        )
        return ToolTrajectory(fields["mode"], MappingProxyType(dict(fields["minimums"])), calls)
    if kind == "code_judge":
        command = tuple(fields["argv"]) if "argv" in fields else fields["command"]
        stage = tuple(
            StagedFile(e["source"], e["dest"], e.get("sha256", "")) for e in fields["stage"]
        )
        config = MappingProxyType(dict(fields.get("config") or {}))
        return CodeJudge(command, fields.get("cwd", "."), stage, config)
    if kind == "field_accuracy":
        specs = tuple(_field_spec(spec) for spec in fields["fields"])
        return FieldAccuracy(specs, fields["aggregation"], fields.get("expected"))
    raise ValueError(f"agentv.{kind} has no parameter type in formats/agentv/kinds.py")


def _field_spec(spec: Mapping[str, Any]) -> FieldSpec:
    return FieldSpec(
        spec["path"], spec["match"], spec["required"], spec["weight"],
        spec.get("tolerance", 0.0), spec["relative"], tuple(spec.get("formats", ())),
        spec.get("pattern"),
    )  # fmt: skip
