"""Neutral chat types ⇄ OpenAI Chat Completions (also vLLM, Ollama and other compatibles).

Chat Completions rather than the Responses API because it is what OpenAI-compatible servers
implement. Tool call `arguments` stay the exact string the model sent.
"""

from __future__ import annotations

from collections.abc import Mapping
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

_FINISH_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}


def _assistant(message: ChatMessage) -> dict[str, Any]:
    text = "\n".join(p.text for p in message.parts if isinstance(p, TextPart) and p.text)
    out: dict[str, Any] = {"role": "assistant", "content": text or None}
    calls = [
        {"id": p.id, "type": "function", "function": {"name": p.name, "arguments": p.arguments}}
        for p in message.parts
        if isinstance(p, ToolUsePart)
    ]
    if calls:
        out["tool_calls"] = calls
    return out


def _user(message: ChatMessage) -> list[dict[str, Any]]:
    # Tool results must directly follow the assistant's tool calls, so they go first.
    out: list[dict[str, Any]] = [
        {
            "role": "tool",
            "tool_call_id": p.tool_use_id,
            # The wire format has no error flag; the model must still see that the call failed.
            "content": f"Error: {p.content}" if p.is_error else p.content,
        }
        for p in message.parts
        if isinstance(p, ToolResultPart)
    ]
    text = "\n".join(p.text for p in message.parts if isinstance(p, TextPart) and p.text)
    if text:
        out.append({"role": message.role, "content": text})
    return out


def _messages(request: ChatRequest) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if request.system:
        out.append({"role": "system", "content": request.system})
    for message in request.messages:
        if message.role == "assistant":
            out.append(_assistant(message))
        else:
            out.extend(_user(message))
    return out


def strict_compatible(schema: Any) -> bool:
    """Whether OpenAI's strict mode accepts `schema`: every object closed, every key required."""
    if isinstance(schema, Mapping):
        if schema.get("type") == "object" or "properties" in schema:
            props = schema.get("properties", {})
            if schema.get("additionalProperties") is not False:
                return False
            if sorted(schema.get("required", [])) != sorted(props):
                return False
        return all(strict_compatible(v) for v in schema.values())
    if isinstance(schema, list):
        return all(strict_compatible(v) for v in schema)
    return True


def build_body(request: ChatRequest) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": request.model,
        "messages": _messages(request),
        # `max_tokens` is refused by reasoning models; compatible servers accept this name too.
        "max_completion_tokens": request.max_tokens,
    }
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": dict(t.input_schema),
                },
            }
            for t in request.tools
        ]
    if request.force_tool is not None:
        body["tool_choice"] = {"type": "function", "function": {"name": request.force_tool}}
    if request.response_schema is not None:
        schema = dict(request.response_schema)
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": "response",
                "schema": schema,
                "strict": strict_compatible(schema),
            },
        }
    if request.temperature is not None:
        body["temperature"] = request.temperature
    return body


def parse_completion(completion: object, *, model: str) -> ChatResponse:
    """The answer, read from its JSON as the server sent it (the adapter asks the SDK for the
    JSON, not its response models: this reads five fields, which building the models for
    every call cost more CPU than). A field of the wrong type raises TypeError or
    KeyError, which the adapter reports as a malformed answer."""
    answer = object_of(completion)
    choices = answer.get("choices")
    if not isinstance(choices, list) or not choices:
        raise MalformedResponse("the answer has no choices")
    choice = object_of(choices[0])
    message = object_of(choice["message"])
    uses = _tool_uses(message.get("tool_calls") or [])
    stop = _FINISH_REASONS.get(str(choice.get("finish_reason")), "other")  # None from some
    if uses and stop != "max_tokens":
        stop = "tool_use"  # some compatible servers say "stop" after tool calls
    content = message.get("content")
    text = content if isinstance(content, str) else ""
    served = str(answer.get("model") or "")
    return ChatResponse(text, uses, stop, _usage(answer.get("usage")), model=served)


def _tool_uses(calls: object) -> tuple[ToolUsePart, ...]:
    if not isinstance(calls, list):
        raise TypeError("tool_calls is not a list")
    uses = []
    for call in map(object_of, calls):
        if call.get("type", "function") != "function":  # a kind of call we never offered
            continue
        fn = object_of(call.get("function"))
        uses.append(
            ToolUsePart(
                text_of(call.get("id")), text_of(fn.get("name")), text_of(fn.get("arguments"))
            )
        )
    return tuple(uses)


def _usage(raw: object) -> Usage:
    """The usage the answer reports; none (absent or null) counts one call and no tokens. A
    usage without its two counts is malformed, as it was when the SDK's models read it: a
    price is never worked out of counts that are not there."""
    usage = Usage(calls=1)
    if raw is None:
        return usage
    counts = object_of(raw)
    details = counts.get("prompt_tokens_details")
    details = {} if details is None else object_of(details)
    cached = tokens(details.get("cached_tokens"), optional=True)
    written = tokens(details.get("cache_write_tokens"), optional=True)
    # prompt_tokens counts cached and freshly cached tokens too; ours are fresh input only.
    usage.input_tokens = max(0, tokens(counts.get("prompt_tokens")) - cached - written)
    usage.output_tokens = tokens(counts.get("completion_tokens"))
    usage.cache_read_tokens = cached
    usage.cache_write_tokens = written
    return usage
