"""The input of an agentv case: messages, content blocks, and the conversation they make.

`input_messages` wins over `input`, which wins over `vars.input`; a string is one user
message (wrapped in the file's prompt template, if any), after the `input_files` blocks of
the case (else the suite's). AgentV 5 may give no input at all: the file's prompt, rendered
with the test's vars, is the input then. The suite's own `input` comes first, unless the case
sets `execution.skip_defaults`. System messages become the case's system prompt, the trailing
user messages its prompt, and earlier turns its history. The agent works in a workspace, so
`file` blocks are staged there at their repository path and the message says where (AgentV
hands agent targets a file reference rather than the text).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from evolve_action.formats.agentv.common import At, Src, resolve_file, root_rel
from evolve_action.formats.agentv.vars import fill
from evolve_action.model.evals import Fixture, Message

ROLES = ("system", "user", "assistant", "tool")


@dataclass(frozen=True)
class Turn:
    role: str
    text: str
    words: str  # the text blocks only (AgentV's `question` is built from these)


@dataclass(frozen=True)
class Prompt:
    """A file's prompt template: text (`{{ input }}` wrapped in words) or chat messages."""

    template: Any  # str, or a list of {role, content} messages

    def render(self, scope: dict[str, Any]) -> Any:
        return fill(self.template, scope)


@dataclass(frozen=True)
class Preset:
    """What the suite adds to every case's input: its own turns, and files for string inputs."""

    turns: tuple[Turn, ...] = ()
    turn_files: tuple[Fixture, ...] = ()  # files the suite's own turns attach
    files: tuple[Fixture, ...] = ()
    blocks: tuple[str, ...] = ()  # the `[file: path]` texts of the suite's `input_files`


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
    prompt: Prompt | None,
    preset: Preset = Preset(),
) -> list[Turn] | None:
    """The case's turns after the suite's; `preset` is empty when the case skips defaults."""
    scope = {**variables, "vars": variables}
    files.extend(f for f in preset.turn_files if all(f.dest != g.dest for g in files))
    if variables and preset.turns:  # the suite's input is rendered with each test's vars
        turns = tuple(Turn(t.role, fill(t.text, scope), fill(t.words, scope)) for t in preset.turns)
        preset = replace(preset, turns=turns)
    from_prompt = False
    if "input_messages" in row:
        where, value = (*at, "input_messages"), row["input_messages"]
    elif "input" in row:
        where, value = (*at, "input"), row["input"]
    elif "input" in variables:
        where, value = (*at, "vars", "input"), variables["input"]
    elif prompt is not None:  # AgentV 5: the prompt, filled with the test's vars, is the input
        where, value, from_prompt = at, prompt.render(scope), True
    elif "input_files" in row:
        src.error(
            at,
            "a case with `input_files` needs `input:` too: AgentV expands input_files only"
            " alongside a string input (file blocks, then the text), so without one the case"
            " has no input in AgentV either; add `input: <the task>`",
        )
        return None
    else:
        src.error(at, "a case needs `input:` (a string or a list of messages)")
        return None
    if isinstance(value, dict) and "role" in value:
        value = [value]  # one message written as a mapping (AgentV 4 shorthand)
    if isinstance(value, str) and value.strip():
        if prompt is not None and not from_prompt:
            value = prompt.render({**scope, "input": value})
            if not isinstance(value, str):
                return _with_preset(preset, _turns(src, where, value, files))
        return [*preset.turns, _text_turn(src, at, row, value, files, preset)]
    if not isinstance(value, list) or not value:
        src.error(where, "must be a non-empty string or list of {role, content} messages")
        return None
    if prompt is not None and not from_prompt and isinstance(prompt.template, str):
        src.warn(where, "the file's prompt template applies to text inputs; messages go as written")
    return _with_preset(preset, _turns(src, where, value, files))


def _with_preset(preset: Preset, turns: list[Turn] | None) -> list[Turn] | None:
    return None if turns is None else [*preset.turns, *turns]


def _turns(src: Src, where: At, value: Any, files: list[Fixture]) -> list[Turn] | None:
    if not isinstance(value, list) or not value:
        src.error(where, "the prompt must render to text or a list of {role, content} messages")
        return None
    turns = [_turn(src, (*where, i), message, files) for i, message in enumerate(value)]
    return [t for t in turns if t is not None] if all(t is not None for t in turns) else None


def _text_turn(
    src: Src, at: At, row: dict[str, Any], value: str, files: list[Fixture], preset: Preset
) -> Turn:
    """A string input, after the file blocks of `input_files` (the case's, else the suite's)."""
    blocks: list[str] = []
    if "input_files" in row:
        found = file_blocks(src, (*at, "input_files"), row["input_files"])
        if found is not None:
            blocks, fixtures = found
            files.extend(f for f in fixtures if all(f.dest != g.dest for g in files))
    else:
        blocks = list(preset.blocks)
        files.extend(f for f in preset.files if all(f.dest != g.dest for g in files))
    return Turn("user", "\n\n".join([*blocks, value]), value.strip())


def file_blocks(src: Src, at: At, paths: Any) -> tuple[list[str], list[Fixture]] | None:
    """`input_files`: each path becomes a `file` block ahead of the text (AgentV 4)."""
    if not isinstance(paths, list) or not all(isinstance(p, str) and p for p in paths):
        src.error(at, "input_files is a list of file paths")
        return None
    fixtures: list[Fixture] = []
    blocks = []
    for i, value in enumerate(paths):
        text = _block(src, (*at, i), {"type": "file", "value": value}, fixtures)
        if text is None:
            return None
        blocks.append(text[0])
    return blocks, fixtures


def preset_of(src: Src, settings: dict[str, Any], system: str | None = None) -> Preset:
    """The suite's `input` turns and `input_files` blocks, read once for every case; `system`
    is AgentV 5's `defaults.system_message`."""
    turns: list[Turn] = [Turn("system", system, "")] if system else []
    turn_files: list[Fixture] = []
    if "input" in settings:
        value = settings["input"]
        if isinstance(value, str) and value.strip():
            turns.append(Turn("user", value, value.strip()))
        else:
            turns += _turns(src, ("input",), value, turn_files) or []
    blocks: list[str] = []
    fixtures: list[Fixture] = []
    if "input_files" in settings:
        found = file_blocks(src, ("input_files",), settings["input_files"])
        if found is not None:
            blocks, fixtures = found
    return Preset(tuple(turns), tuple(turn_files), tuple(fixtures), tuple(blocks))


def input_text(turns: list[Turn]) -> str:
    """AgentV 4's `{{ input }}`: the text of a single message, else the conversation with
    role markers (`@[User]:`)."""
    shown = [t for t in turns if t.text.strip()]
    if len(shown) == 1 and shown[0].role in ("user", "system"):
        return shown[0].text.strip()
    return "\n\n".join(f"@[{t.role.title()}]:\n{t.text.strip()}" for t in shown)


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
    if isinstance(value, dict):
        return [value]
    return [{"role": "user", "content": value}] if isinstance(value, str) else list(value or [])
