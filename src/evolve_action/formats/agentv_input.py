"""The input of an agentv case: messages, content blocks, and the conversation they make.

`input_messages` wins over `input`, which wins over `vars.input`; a string is one user
message (wrapped in the file's prompt template, if any). System messages become the case's
system prompt, the trailing user messages its prompt, and earlier turns its history. The agent
works in a workspace, so `file` blocks are staged there at their repository path and the
message says where (AgentV hands agent targets a file reference rather than the text).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from evolve_action.formats.agentv_common import At, Src, resolve_file, root_rel
from evolve_action.formats.agentv_template import render
from evolve_action.model import Fixture, Message

ROLES = ("system", "user", "assistant", "tool")


@dataclass(frozen=True)
class Turn:
    role: str
    text: str
    words: str  # the text blocks only (AgentV's `question` is built from these)


def input_at(at: At, row: dict[str, Any], variables: dict[str, Any]) -> At:
    for key in ("input_messages", "input"):
        if key in row:
            return (*at, key)
    return (*at, "vars", "input") if "input" in variables else at


def read_input(
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


def conversation(
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


def plain_input(row: dict[str, Any], variables: dict[str, Any]) -> list[Any]:
    value = row.get("input_messages", row.get("input", variables.get("input")))
    return [{"role": "user", "content": value}] if isinstance(value, str) else list(value or [])
