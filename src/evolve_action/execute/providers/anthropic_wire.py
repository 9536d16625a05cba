"""Neutral chat types ⇄ the Anthropic Messages API wire format.

Request bodies are plain JSON-able dicts built in a fixed order from the request alone, so the
same request always produces the same bytes (record/replay and prompt caching both need that).
"""

from __future__ import annotations

import json
from typing import Any

from evolve_action.execute.providers.answer_json import object_of, text_of, tokens
from evolve_action.execute.providers.faults import MalformedResponse
from evolve_action.model.outcomes import Usage
from evolve_action.model.provider import (
    ChatMessage,
    ChatRequest,
    ChatResponse,
    TextPart,
    ToolResultPart,
    ToolUsePart,
)

# One breakpoint after the stable prefix (tools, then system) and one moving with the
# conversation's tail: each turn then reads the previous turn's cache.
EPHEMERAL: dict[str, str] = {"type": "ephemeral"}

_STOP_REASONS = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
}


def _block(part: TextPart | ToolUsePart | ToolResultPart) -> dict[str, Any] | None:
    if isinstance(part, TextPart):
        # The API rejects empty text blocks; an empty part carries nothing anyway.
        return {"type": "text", "text": part.text} if part.text else None
    if isinstance(part, ToolUsePart):
        return {"type": "tool_use", "id": part.id, "name": part.name, "input": _input(part)}
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": part.tool_use_id,
        "content": part.content,
    }
    if part.is_error:
        block["is_error"] = True
    return block


def _input(part: ToolUsePart) -> Any:
    try:
        value = json.loads(part.arguments) if part.arguments else {}
    except json.JSONDecodeError:
        value = None
    # Anthropic insists on an object; what the model sent is kept, never silently dropped.
    return value if isinstance(value, dict) else {"_raw_arguments": part.arguments}


def _messages(messages: tuple[ChatMessage, ...]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        blocks = [b for b in (_block(p) for p in message.parts) if b is not None]
        if blocks:
            out.append({"role": message.role, "content": blocks})
    if out:
        out[-1]["content"][-1]["cache_control"] = EPHEMERAL
    return out


def build_body(request: ChatRequest) -> dict[str, Any]:
    """The keyword arguments of `messages.create` (and the JSON body) for `request`."""
    body: dict[str, Any] = {"model": request.model, "max_tokens": request.max_tokens}
    if request.system:
        body["system"] = [{"type": "text", "text": request.system, "cache_control": EPHEMERAL}]
    body["messages"] = _messages(request.messages)
    if request.tools:
        tools = [
            {"name": t.name, "description": t.description, "input_schema": dict(t.input_schema)}
            for t in request.tools
        ]
        if not request.system:
            tools[-1]["cache_control"] = EPHEMERAL
        body["tools"] = tools
    if request.force_tool is not None:
        body["tool_choice"] = {"type": "tool", "name": request.force_tool}
    if request.response_schema is not None and request.force_tool is None:
        schema = dict(request.response_schema)
        body["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
    if request.temperature is not None:
        body["temperature"] = request.temperature
    return body


def arguments_text(value: object) -> str:
    """Tool input as compact JSON: deterministic, and what `tool_call` regexes match against."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def parse_message(answer: object, *, model: str) -> ChatResponse:
    """The answer, read from its JSON as the server sent it (`answer_json.py`)."""
    message = object_of(answer)
    content = message.get("content")
    if not isinstance(content, list):
        raise MalformedResponse("the answer has no content list")
    texts: list[str] = []
    uses: list[ToolUsePart] = []
    for block in map(object_of, content):
        if block.get("type") == "text":
            texts.append(text_of(block.get("text")))
        elif block.get("type") == "tool_use":
            uses.append(
                ToolUsePart(
                    text_of(block.get("id")),
                    text_of(block.get("name")),
                    arguments_text(block.get("input")),
                )
            )
    counts = object_of(message["usage"])
    usage = Usage(
        input_tokens=tokens(counts.get("input_tokens")),
        output_tokens=tokens(counts.get("output_tokens")),
        cache_read_tokens=tokens(counts.get("cache_read_input_tokens"), optional=True),
        cache_write_tokens=tokens(counts.get("cache_creation_input_tokens"), optional=True),
        calls=1,
    )
    stop = _STOP_REASONS.get(text_of(message.get("stop_reason")), "other")
    if uses and stop != "max_tokens":
        stop = "tool_use"
    text = "\n".join(t for t in texts if t)
    return ChatResponse(text, tuple(uses), stop, usage, model=text_of(message.get("model")))
