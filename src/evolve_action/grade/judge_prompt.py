"""What the judge is told: the system prompt, the one user message, and the answer tool.

The layout follows evolve's judge prompt (items numbered 1..N in authored order, the
author's `expected_output` as context only, the final answer fenced) and skill-creator's
grader (evidence-backed verdicts, claims, a critique of the eval itself). Everything here is
a pure function of the case, the items and the transcript: no absolute path, clock or random
value reaches the request, so record/replay sees byte-identical requests.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from evolve_action.model.evals import Case, JudgeItem, Scale
from evolve_action.model.outcomes import Transcript
from evolve_action.model.provider import ToolSpec
from evolve_action.util.text import cut_bytes

SUBMIT_TOOL = "submit_grading"
EXPECTED_OUTPUT_BYTES = 2000  # evolve's cut for the author's description
FINAL_TEXT_BYTES = 8000  # evolve's cut for the agent's answer
EVIDENCE_BYTES = 200  # evolve's cut for a verdict's evidence

SYSTEM = """\
You grade the work of an AI coding agent against numbered items written by an eval author.

Grade every item independently and cite evidence: a short quote from the agent's answer or a \
fact about a file. A pass needs clear evidence that the task was really done, not surface \
compliance: the right file name with wrong or empty content fails. When the evidence is \
missing, contradictory or only coincidental, the item fails. Score scaled items on their own \
scale against their anchors, and choose the lower score when unsure.

Also list the claims the agent's answer makes (factual, process or quality) and whether you \
could verify each. Then critique the eval itself, keeping a high bar: flag an item that would \
also pass for a clearly wrong result, an important outcome that no item checks, or an item \
that cannot be verified from what you can see. Say nothing when the eval is sound.

Answer by calling the submit_grading tool exactly once."""

# The same instructions when the grading comes back as the answer's JSON text (a provider
# that takes a JSON schema for its answer, with nothing to inspect: no tool at all).
SYSTEM_JSON = SYSTEM.replace(
    "Answer by calling the submit_grading tool exactly once.",
    "Answer with the grading as one JSON object, and nothing else.",
)

_SCALE_TAGS = {
    Scale.BINARY: "pass/fail",
    Scale.LIKERT5: "score 1-5",
    Scale.RANGE10: "score 0-10",
    Scale.UNIT: "score 0.0-1.0",
}
SCALE_BOUNDS = {Scale.LIKERT5: (1.0, 5.0), Scale.RANGE10: (0.0, 10.0), Scale.UNIT: (0.0, 1.0)}


def is_extract(item: JudgeItem) -> bool:
    return item.kind == "extract"


def is_scored(item: JudgeItem) -> bool:
    return not is_extract(item) and item.scale is not Scale.BINARY


def has_something_to_inspect(case: Case, transcript: Transcript) -> bool:
    """Workspace tools only help when the agent changed files or the case staged some."""
    return bool(transcript.changed_files or case.files or case.output_files)


def _indent(text: str) -> str:
    return text.replace("\n", "\n   ")


def _anchor_key(key: str) -> tuple[float, str]:
    try:
        return (float(key), key)
    except ValueError:
        return (float("inf"), key)


def _render_item(number: int, item: JudgeItem) -> list[str]:
    tag = "extract" if is_extract(item) else _SCALE_TAGS[item.scale]
    lines = [f"{number}. [{tag}] {_indent(item.text.strip())}"]
    for key in sorted(item.anchors, key=_anchor_key):
        lines.append(f"   {key} = {_indent(item.anchors[key].strip())}")
    schema = item.params.schema if is_extract(item) else None
    if isinstance(schema, Mapping):
        lines.append(f"   JSON Schema of the extraction: {json.dumps(schema, sort_keys=True)}")
    return lines


def _fenced(title: str, body: str) -> list[str]:
    return ["", title, "---", body, "---"]


def _ids(numbers: Sequence[int]) -> str:
    return ", ".join(str(n) for n in numbers)


# AgentV's judges see the question, the expected outcome, a reference answer and the note;
# its rubrics are written against them ("mentions the capital"), so ours must see them too.
# Only AgentV cases carry these fields; evolve's judge keeps its contract (no task prompt).
_AGENTV_CONTEXT = (
    "The task the agent was given:",
    "What a successful outcome looks like (context, not an item):",
    "A reference answer (context, not an item):",
    "A note from the eval author (context, not an item):",
)


def _agentv_context(case: Case) -> list[str]:
    extra = case.extra
    if extra.expected_outcome is None:
        return []
    lines: list[str] = []
    said = (
        extra.question or case.prompt,
        extra.expected_outcome,
        extra.reference_answer,
        extra.note,
    )
    for title, value in zip(_AGENTV_CONTEXT, said, strict=True):
        if value.strip():
            lines.extend(_fenced(title, cut_bytes(value.strip(), EXPECTED_OUTPUT_BYTES)))
    return lines


# The argument that says what a call did, per tool (AgentV's `{{ tool_calls }}` summary).
_KEY_ARGUMENT = {
    "Skill": "skill",
    "Read": "file_path",
    "Write": "file_path",
    "Edit": "file_path",
    "Bash": "command",
    "Grep": "pattern",
    "Glob": "pattern",
}
_SHORT_ARGUMENT = 120


def tool_call_summary(transcript: Transcript) -> str:
    """One `- Tool: detail` line per call, for judge prompts that ask for `{{ tool_calls }}`."""
    lines = []
    for call in transcript.tool_calls:
        try:
            args = json.loads(call.arguments) if call.arguments else {}
        except ValueError:
            args = {}
        detail = ""
        if isinstance(args, dict):
            key = _KEY_ARGUMENT.get(call.name)
            wanted = [args.get(key)] if key else list(args.values())
            detail = next(
                (v for v in wanted if isinstance(v, str) and 0 < len(v) <= _SHORT_ARGUMENT), ""
            )
        lines.append(f"- {call.name}: {detail}" if detail else f"- {call.name}")
    return "\n".join(lines)


def _conversation(case: Case, transcript: Transcript) -> list[str]:
    """A conversation's user turns, each with the agent's answer (items name turns from 1)."""
    said = (case.prompt, *case.follow_ups)
    lines = ["", "The conversation, one user turn after another:"]
    for n, user in enumerate(said):
        answer = transcript.answers[n] if n < len(transcript.answers) else None
        lines.extend(_fenced(f"User turn {n + 1}:", cut_bytes(user, EXPECTED_OUTPUT_BYTES)))
        if answer is None:
            lines.append(f"(the conversation stopped before the agent answered turn {n + 1})")
            break
        lines.extend(
            _fenced(f"The agent's answer to turn {n + 1}:", cut_bytes(answer, FINAL_TEXT_BYTES))
        )
    return lines


def build_prompt(
    case: Case,
    items: Sequence[JudgeItem],
    transcript: Transcript,
    *,
    inspect: bool,
    as_json: bool = False,
) -> str:
    """The single user message of the judge session."""
    n = len(items)
    noun = "item" if n == 1 else "items"
    lines = [f"Grade the agent's work against these {n} numbered {noun}.", ""]
    for number, item in enumerate(items, 1):
        lines.extend(_render_item(number, item))
    lines.extend(_agentv_context(case))
    expected = case.expected_output.strip()
    if expected:
        lines.extend(
            _fenced(
                "The eval author's description of the expected output. It is context for"
                " judging the items, not a separate item:",
                cut_bytes(expected, EXPECTED_OUTPUT_BYTES),
            )
        )
    if case.follow_ups:
        lines.extend(_conversation(case, transcript))
    else:
        lines.extend(
            _fenced(
                "The agent's final response:", cut_bytes(transcript.final_text, FINAL_TEXT_BYTES)
            )
        )
    if any("tool_calls" in item.params.needs for item in items):
        calls = tool_call_summary(transcript) or "(no tool calls)"
        lines.extend(_fenced("The agent's tool calls:", cut_bytes(calls, FINAL_TEXT_BYTES)))
    lines.append("")
    if transcript.changed_files:
        lines.append("Files the agent changed: " + ", ".join(sorted(transcript.changed_files)))
    else:
        lines.append("The agent changed no files.")
    if case.output_files:
        lines.append("The agent's output is in these files: " + ", ".join(case.output_files))
    if inspect:
        lines.append(
            "The agent's workspace is your current directory: refer to files by relative path."
            " You may inspect it with the Read, Glob and Grep tools before answering."
        )
    lines.extend(["", *_answer_instructions(items, as_json=as_json)])
    return "\n".join(lines)


def _answer_instructions(items: Sequence[JudgeItem], *, as_json: bool = False) -> list[str]:
    binary = [n for n, it in enumerate(items, 1) if not is_scored(it) and not is_extract(it)]
    scored = [n for n, it in enumerate(items, 1) if is_scored(it)]
    extract = [n for n, it in enumerate(items, 1) if is_extract(it)]
    lines = ["Answer with one JSON object with:" if as_json else f"Call {SUBMIT_TOOL} with:"]
    if binary:
        lines.append(
            f"- expectations: one {{id, passed, evidence}} for each pass/fail item"
            f" (ids {_ids(binary)});"
        )
    if scored:
        lines.append(
            f'- rubric_scores: {{"<id>": {{score, evidence}}}} for each scored item, on that'
            f" item's own scale (ids {_ids(scored)});"
        )
    if extract:
        lines.append(f'- extractions: {{"<id>": <the extracted JSON>}} (ids {_ids(extract)});')
    lines.append("- claims: [{claim, type (factual|process|quality), verified, evidence}];")
    lines.append(
        "- eval_feedback: {suggestions: [{assertion (an item's id, or omitted when no item"
        " covers it), reason}], overall}."
    )
    lines.append("Keep each evidence short (under 200 characters).")
    return lines


def submit_tool(items: Sequence[JudgeItem]) -> ToolSpec:
    """The answer tool, shaped like skill-creator's grading.json with per-item slots."""
    evidence = {"type": "string"}
    scores: dict[str, Any] = {}
    extractions: dict[str, Any] = {}
    for number, item in enumerate(items, 1):
        if is_scored(item):
            low, high = SCALE_BOUNDS[item.scale]
            score = {"type": "number", "minimum": low, "maximum": high}
            scores[str(number)] = {
                "type": "object",
                "properties": {"score": score, "evidence": evidence},
                "required": ["score", "evidence"],
            }
        elif is_extract(item):
            wanted = item.params.schema
            extractions[str(number)] = dict(wanted) if isinstance(wanted, Mapping) else {}
    expectation: dict[str, Any] = {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "passed": {"type": "boolean"},
            "evidence": evidence,
        },
        "required": ["id", "passed", "evidence"],
    }
    claim = {
        "type": "object",
        "properties": {
            "claim": {"type": "string"},
            "type": {"type": "string", "enum": ["factual", "process", "quality"]},
            "verified": {"type": "boolean"},
            "evidence": evidence,
        },
        "required": ["claim", "type", "verified", "evidence"],
    }
    suggestion = {
        "type": "object",
        "properties": {"assertion": {"type": "integer"}, "reason": {"type": "string"}},
        "required": ["reason"],
    }
    schema = {
        "type": "object",
        "properties": {
            "expectations": {"type": "array", "items": expectation},
            "rubric_scores": {"type": "object", "properties": scores},
            "extractions": {"type": "object", "properties": extractions},
            "claims": {"type": "array", "items": claim},
            "eval_feedback": {
                "type": "object",
                "properties": {
                    "suggestions": {"type": "array", "items": suggestion},
                    "overall": {"type": "string"},
                },
                "required": ["suggestions", "overall"],
            },
        },
        "required": ["expectations", "rubric_scores", "claims", "eval_feedback"],
    }
    return ToolSpec(SUBMIT_TOOL, "Submit the grading of every numbered item.", schema)
