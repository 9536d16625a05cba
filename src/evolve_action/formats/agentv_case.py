"""One agentv case (an `evalcases` / `tests` entry or a JSONL row) → `model.Case`.

Input: `input_messages` wins over `input`, which wins over `vars.input`; a string is one user
message. System messages become `Case.system`, the trailing user messages the prompt, and any
earlier turns `Case.messages`. The agent works in a workspace, so `file` blocks are staged
there at their repository path and the message says where (AgentV passes agent targets a
file reference rather than inlining the text).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from evolve_action.formats import agentv_items
from evolve_action.formats.agentv_common import (
    At,
    Src,
    kind_of,
    number,
    resolve_file,
    root_rel,
    text,
)
from evolve_action.formats.agentv_evaluators import Evaluator, parse_list
from evolve_action.formats.agentv_rubrics import parse_rubrics
from evolve_action.formats.agentv_template import render
from evolve_action.model import Case, Check, Fixture, Message

OUTCOME_KEYS = ("expected_outcome", "criteria", "outcome")
ROLES = ("system", "user", "assistant", "tool")


@dataclass(frozen=True)
class Defaults:
    """Suite-level settings every case inherits unless it sets its own."""

    evaluators: tuple[Evaluator, ...] = ()
    timeout_s: float | None = None
    prompt: str | None = None  # the file's `prompts:` template, when it is more than the input


@dataclass(frozen=True)
class Turn:
    role: str
    text: str
    words: str  # the text blocks only (AgentV's `question` is built from these)


def build_case(src: Src, at: At, row: Any, defaults: Defaults) -> Case | None:
    if not isinstance(row, dict):
        src.error(at, f"a case is a mapping with id, input and criteria, not {kind_of(row)}")
        return None
    case_id = _case_id(src, at, row)
    variables = _dict_of(row, "vars")
    outcome = _outcome(src, at, row)
    files: list[Fixture] = []
    turns = _input(src, at, row, variables, files, defaults.prompt)
    reference, data, expected = _expected(src, at, row, variables)
    evaluators = _evaluators(src, at, row, defaults)
    authored = _authored(row) or bool(defaults.evaluators)
    timeout, threshold = _limits(src, at, row, defaults)
    if case_id is None or turns is None:
        return None
    conversation = _conversation(src, _input_at(at, row, variables), turns)
    if conversation is None:
        return None
    system, earlier, prompt = conversation
    info = agentv_items.CaseInfo(
        outcome=outcome,
        question=" ".join(t.words for t in turns if t.words),
        reference=reference,
        expected_data=data,
        note=row["note"] if isinstance(row.get("note"), str) else "",
        expected_messages=tuple(expected),
        input_messages=tuple(_plain_input(row, variables)),
    )
    built = agentv_items.build(src, at, evaluators, info, default=not authored)
    return Case(
        id=case_id,
        prompt=prompt,
        origin=src.origin(at),
        name=row["name"] if isinstance(row.get("name"), str) else "",
        messages=earlier,
        system=system,
        expected_output=reference,
        files=tuple(files),
        items=tuple(built.items),
        timeout_seconds=timeout,
        extra=_extra(row, info, files, built, threshold),
    )


def _limits(
    src: Src, at: At, row: dict[str, Any], defaults: Defaults
) -> tuple[float | None, float | None]:
    """(timeout in seconds, pass threshold) of the case's own `execution`, else the suite's."""
    execution = _dict_of(row, "execution")
    timeout, threshold = defaults.timeout_s, None
    if "timeout_seconds" in execution:
        where = (*at, "execution", "timeout_seconds")
        timeout = number(src, where, execution["timeout_seconds"], lo=1, hi=3600, integer=True)
    if "threshold" in execution:
        where = (*at, "execution", "threshold")
        threshold = number(src, where, execution["threshold"], lo=0.0, hi=1.0)
    return timeout, threshold


def _extra(
    row: dict[str, Any],
    info: agentv_items.CaseInfo,
    files: list[Fixture],
    built: agentv_items.Built,
    threshold: float | None,
) -> dict[str, Any]:
    """What the verdict policy, judge scripts and the judge read besides the model fields."""
    staged = {
        entry["dest"]
        for item in built.items
        if isinstance(item, Check)
        for entry in item.params.get("stage", [])
    }
    extra: dict[str, Any] = {
        "groups": built.groups,
        "expected_outcome": info.outcome,
        "question": info.question,
        "reference_answer": info.reference,
        "expected_messages": list(info.expected_messages),
        "input_messages": list(info.input_messages),
        "input_files": [f.dest for f in files],
        # Repository files judge scripts read: a change to them must change the fingerprint.
        "grader_files": sorted(staged),
        "note": info.note,
    }
    for key in ("conversation_id", "description", "metadata"):
        if key in row:
            extra[key] = row[key]
    if threshold is not None:
        extra["threshold"] = threshold
    return extra


def _case_id(src: Src, at: At, row: dict[str, Any]) -> str | None:
    value = row.get("id")
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        src.error((*at, "id") if "id" in row else at, "a case needs `id:`, a non-empty string")
        return None
    return value.strip()


def _outcome(src: Src, at: At, row: dict[str, Any]) -> str:
    key = next((k for k in OUTCOME_KEYS if k in row), None)
    if key is None:
        return ""
    return text(src, (*at, key), row[key]) or ""


def _input_at(at: At, row: dict[str, Any], variables: dict[str, Any]) -> At:
    for key in ("input_messages", "input"):
        if key in row:
            return (*at, key)
    return (*at, "vars", "input") if "input" in variables else at


def _input(
    src: Src,
    at: At,
    row: dict[str, Any],
    variables: dict[str, Any],
    files: list[Fixture],
    template: str | None,
) -> list[Turn] | None:
    if "input_messages" in row:
        where, value = (*at, "input_messages"), row["input_messages"]
    elif "input" in row:
        where, value = (*at, "input"), row["input"]
    elif "input" in variables:
        where, value = (*at, "vars", "input"), variables["input"]
    else:
        src.error(at, "a case needs `input:` (a string or a list of messages)")
        return None
    if isinstance(value, str) and value.strip():
        if template is not None:
            known = {k: v if isinstance(v, str) else json.dumps(v) for k, v in variables.items()}
            value = render(template, {**known, "input": value}, answer=None)
        return [Turn("user", value, value.strip())]
    if not isinstance(value, list) or not value:
        src.error(where, "must be a non-empty string or list of {role, content} messages")
        return None
    if template is not None:
        src.warn(where, "the file's prompt template applies to text inputs; messages go as written")
    turns = [_turn(src, (*where, i), message, files) for i, message in enumerate(value)]
    return [t for t in turns if t is not None] if all(t is not None for t in turns) else None


def _dict_of(row: dict[str, Any], key: str) -> dict[str, Any]:
    value = row.get(key)
    return value if isinstance(value, dict) else {}


def _turn(src: Src, at: At, message: Any, files: list[Fixture]) -> Turn | None:
    if not isinstance(message, dict) or message.get("role") not in ROLES:
        src.error(at, "each message needs `role:` (system, user or assistant) and `content:`")
        return None
    role = message["role"]
    content = message.get("content", "")
    if isinstance(content, str):
        return Turn(role, content, content.strip())
    if not isinstance(content, list):
        src.error((*at, "content"), "content is a string or a list of {type, value} blocks")
        return None
    parts: list[str] = []
    words: list[str] = []
    blocks = [_block(src, (*at, "content", i), b, files) for i, b in enumerate(content)]
    for part in blocks:
        if part is None:
            return None
        parts.append(part[0])
        if part[1]:
            words.append(part[0].strip())
    return Turn(role, "\n\n".join(parts), " ".join(words))


def _block(src: Src, at: At, block: Any, files: list[Fixture]) -> tuple[str, bool] | None:
    """A content block's text, and whether it is authored text (not a file reference)."""
    kind = block.get("type") if isinstance(block, dict) else None
    value = block.get("value", block.get("text")) if isinstance(block, dict) else None
    if kind == "text" and isinstance(value, str):
        return value, True
    if kind == "json":
        return json.dumps(value, indent=2, ensure_ascii=False), False
    if kind in ("file", "image") and isinstance(value, str):
        if value.startswith(("http://", "https://", "data:")):
            src.error((*at, "value"), f"{kind} URLs are not supported yet; commit the file")
            return None
        path = resolve_file(src, (*at, "value"), value)
        if path is None:
            return None
        dest = root_rel(src, path)
        if all(f.dest != dest for f in files):
            files.append(Fixture(source=path, dest=dest, origin=src.origin((*at, "value"))))
        return f"[{kind}: {dest}]", False
    src.error(at, "a content block is {type: text|file|image|json, value: ...}")
    return None


def _conversation(
    src: Src, at: At, turns: list[Turn]
) -> tuple[str | None, tuple[Message, ...], str] | None:
    """(system prompt, earlier turns, prompt): the trailing user messages are the prompt."""
    if any(t.role == "tool" for t in turns):
        src.error(at, "tool messages in the input are not supported yet")
        return None
    system = "\n\n".join(t.text for t in turns if t.role == "system") or None
    talk = [t for t in turns if t.role != "system"]
    if not talk or talk[-1].role != "user":
        src.error(at, "the input must end with a user message (the one the agent answers)")
        return None
    start = len(talk)
    while start > 0 and talk[start - 1].role == "user":
        start -= 1
    prompt = "\n\n".join(t.text for t in talk[start:])
    if not prompt.strip():
        src.error(at, "the last user message is empty")
        return None
    return system, tuple(Message(t.role, t.text) for t in talk[:start]), prompt


def _expected(
    src: Src, at: At, row: dict[str, Any], variables: dict[str, Any]
) -> tuple[str, Any, list[Any]]:
    """(reference text, structured expected data or None, expected messages)."""
    if "expected_messages" in row:
        where, value = (*at, "expected_messages"), row["expected_messages"]
    elif "expected_output" in row:
        where, value = (*at, "expected_output"), row["expected_output"]
    elif "expected_output" in variables:
        where, value = (*at, "vars", "expected_output"), variables["expected_output"]
    else:
        return "", None, []
    if isinstance(value, str):
        return value, _json_object(value), [{"role": "assistant", "content": value}]
    if isinstance(value, dict):
        messages = [value] if "role" in value else [{"role": "assistant", "content": value}]
    elif isinstance(value, list) and value and isinstance(value[0], dict) and "role" in value[0]:
        messages = value
    elif isinstance(value, list):
        messages = [{"role": "assistant", "content": value}]
    else:
        src.error(where, "expected output is a string, an object or a list of messages")
        return "", None, []
    content = messages[-1].get("content") if isinstance(messages[-1], dict) else None
    if isinstance(content, str):
        return content, _json_object(content), messages
    if content is None:
        return "", None, messages
    return json.dumps(content, indent=2, ensure_ascii=False), content, messages


def _json_object(words: str) -> Any:
    if not words.strip().startswith("{"):
        return None
    try:
        return json.loads(words)
    except ValueError:
        return None


def _plain_input(row: dict[str, Any], variables: dict[str, Any]) -> list[Any]:
    value = row.get("input_messages", row.get("input", variables.get("input")))
    return [{"role": "user", "content": value}] if isinstance(value, str) else list(value or [])


def _authored(row: dict[str, Any]) -> bool:
    """Whether the case wrote evaluators of its own (even ones that failed to load)."""
    execution = row.get("execution")
    lists = [row.get("evaluators"), row.get("assert"), row.get("rubrics")]
    if isinstance(execution, dict):
        lists.append(execution.get("evaluators"))
    return any(isinstance(v, list) and v for v in lists)


def _evaluators(src: Src, at: At, row: dict[str, Any], defaults: Defaults) -> tuple[Evaluator, ...]:
    """The case's own list replaces the suite's; inline rubrics come first (AgentV)."""
    execution = row.get("execution")
    if isinstance(execution, dict) and "evaluators" in execution:
        own = parse_list(src, (*at, "execution", "evaluators"), execution["evaluators"])
    elif "evaluators" in row:
        own = parse_list(src, (*at, "evaluators"), row["evaluators"])
    elif "assert" in row:
        own = parse_list(src, (*at, "assert"), row["assert"])
    else:
        own = defaults.evaluators
    if "rubrics" not in row:
        return own
    rubrics = parse_rubrics(src, (*at, "rubrics"), row["rubrics"])
    if not rubrics:
        return own
    taken = {ev.name for ev in own}
    name, n = "rubric", 1
    while name in taken:
        n += 1
        name = f"rubric-{n}"
    inline = Evaluator(name, "rubric", src.origin((*at, "rubrics")), rubrics=rubrics)
    return (inline, *own)
