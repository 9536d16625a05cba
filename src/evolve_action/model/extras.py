"""What a family says beside the common fields of a case or a judge item, built by its loader
and read as attributes by its checks, its scoring and the judge's prompt (`model.evals` holds
the common fields and re-exports these names).

Values copied from the user's file as written stay JSON (`JsonValue`); everything else is a
frozen, typed field, so a misspelt one fails mypy rather than reading as missing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

# JSON as the user's file wrote it: what a loader copies over unread, for its family's checks.
JsonValue = str | int | float | bool | None | Sequence["JsonValue"] | Mapping[str, "JsonValue"]
JsonObject = Mapping[str, JsonValue]

EMPTY: Mapping[str, Any] = MappingProxyType({})  # an empty mapping of any value type


def _empty() -> JsonObject:
    return EMPTY


@dataclass(frozen=True, slots=True)
class ExtractField:
    """One field of an extracted entry (clauditor layer 2): present when required, and
    matching its format (a registered format name or a regex) when it has one."""

    id: str
    name: str
    required: bool = True
    format: str | None = None


@dataclass(frozen=True, slots=True)
class ExtractTier:
    label: str
    fields: tuple[ExtractField, ...]
    description: str = ""
    min_entries: int = 0
    max_entries: int | None = None


@dataclass(frozen=True, slots=True)
class ExtractSection:
    """A section the judge extracts from the answer, its entries grouped by tier."""

    name: str
    tiers: tuple[ExtractTier, ...]


@dataclass(frozen=True, slots=True)
class ItemGroup:
    """A named group of a case's items with its own weight and pass mark (an agentv evaluator,
    nested by `/` in `path`); the family's scoring rebuilds the tree from these."""

    path: str
    kind: str = ""  # the evaluator's type as authored
    weight: float = 1.0
    required: float | None = None
    aggregator: JsonObject | None = None  # a composite's aggregator, normalized by the loader
    negate: bool = False  # the group's score counts as 1 - score


@dataclass(frozen=True, slots=True)
class JudgeParams:
    """What a judge item's family says beside its text, built by the loader, so the judge's
    prompt, its parse and the family's scoring read attributes (a misspelt one fails mypy)."""

    # The normalized score (0-1) the item must reach to pass, when its family sets one
    # (vally and skill-validator prompt graders, promptfoo llm-rubric).
    threshold: float | None = None
    # `extract` items: the JSON Schema the judge's extraction must match, and the authored
    # sections it was built from (clauditor layer 2). JSON read from the user's file.
    schema: JsonObject | None = None
    sections: tuple[ExtractSection, ...] = ()
    # Run facts the judge must see beside the final answer (agentv templates: "tool_calls").
    needs: tuple[str, ...] = ()
    template: str = ""  # agentv llm_judge: the prompt template as written
    prompt_file: str = ""  # agentv llm_judge: the repository file the template came from
    rubric_id: str = ""  # agentv rubric id
    score_ranges: tuple[tuple[int, int, str], ...] = ()  # agentv analytic rubric bands
    operator: str = ""  # agentv rubric operator: correctness | contradiction
    scoring: str = ""  # vally prompt grader's scale name
    turn: int | None = None  # vally: the user turn (from 0) the item is about
    dimension_id: str = ""  # skill-evaluator quality_rubric dimension
    name: str = ""  # skill-evaluator dimension key


NO_JUDGE_PARAMS = JudgeParams()


@dataclass(frozen=True, slots=True)
class CaseExtra:
    """What a case's family says beside the common fields, built by its loader, read by its
    checks, its scoring and the judge's prompt as attributes. Values copied from the user's
    file as they were written (metadata, runner settings, vars) stay JSON (`JsonValue`)."""

    # The pass mark of the case's normalized score (agentv `execution.threshold`, promptfoo).
    threshold: float | None = None
    description: JsonValue = None  # agentv row / clauditor spec `description`
    # agentv: every evaluator group in authored order (`formats.agentv.items`), and the test
    # fields its judge and code judges see. `expected_outcome` set marks an agentv case.
    groups: tuple[ItemGroup, ...] = ()
    expected_outcome: str | None = None
    question: str = ""
    reference_answer: str = ""
    note: str = ""
    expected_messages: tuple[JsonObject, ...] = ()
    input_messages: tuple[JsonObject, ...] = ()
    input_files: tuple[str, ...] = ()
    # Repository files judge scripts read: a change to them must change the fingerprint.
    grader_files: tuple[str, ...] = ()
    conversation_id: JsonValue = None
    metadata: JsonValue = None
    rubric: tuple[str, ...] = ()  # vally: the stimulus's rubric lines
    # skill-evaluator: the input mode and a guided conversation's scripted rounds.
    mode: str = ""
    rounds: tuple[Mapping[str, str], ...] = ()
    # clauditor: the spec fields the case was built from and its runner settings.
    test_args: str = ""
    user_prompt: str | None = None
    system_prompt_source: str = ""
    skill_body: str | None = None
    runner: JsonObject = field(default_factory=_empty)
    vars: JsonObject = field(default_factory=_empty)  # promptfoo: the test's vars


NO_EXTRA = CaseExtra()
