"""Server-sent events for the fake LLM server: a rendered answer, replayed as a stream.

The agent CLIs only ever stream (`stream: true`): Claude Code on the Messages API, Codex on
the Responses API. Rather than render twice, the complete answer `llm_wire.py` builds is cut
into the event sequence each vendor sends, so a streamed answer and a plain one always agree.
Chat Completions streaming is not needed by any client we test, so it is not served.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any


def event(name: str, data: Mapping[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def stream(api: str, answer: Mapping[str, Any]) -> bytes:
    """The whole event stream for `answer` (a body `llm_wire.render_reply` returned)."""
    events = _anthropic(answer) if api == "anthropic" else _responses(answer)
    return b"".join(event(name, data) for name, data in events)


def _anthropic(message: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    usage = dict(message["usage"])
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            empty: dict[str, Any] = {"type": "text", "text": ""}
            delta: dict[str, Any] = {"type": "text_delta", "text": block["text"]}
        else:
            empty = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": empty,
            },
        )
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": usage["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _responses(response: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    seq = iter(range(1, 10_000))
    pending = {**response, "status": "in_progress", "output": [], "usage": None}
    yield (
        "response.created",
        {
            "type": "response.created",
            "sequence_number": 0,
            "response": pending,
        },
    )
    yield (
        "response.in_progress",
        {
            "type": "response.in_progress",
            "sequence_number": next(seq),
            "response": pending,
        },
    )
    for index, item in enumerate(response["output"]):
        added = {**item, "status": "in_progress"}
        if item["type"] == "message":
            added["content"] = []
        elif item["type"] == "function_call":
            added["arguments"] = ""
        yield (
            "response.output_item.added",
            {
                "type": "response.output_item.added",
                "sequence_number": next(seq),
                "output_index": index,
                "item": added,
            },
        )
        if item["type"] == "message":
            text = item["content"][0]["text"]
            where = {"item_id": item["id"], "output_index": index, "content_index": 0}
            part = {"type": "output_text", "text": "", "annotations": []}
            yield (
                "response.content_part.added",
                {
                    "type": "response.content_part.added",
                    "sequence_number": next(seq),
                    **where,
                    "part": part,
                },
            )
            yield (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "sequence_number": next(seq),
                    **where,
                    "delta": text,
                },
            )
            yield (
                "response.output_text.done",
                {
                    "type": "response.output_text.done",
                    "sequence_number": next(seq),
                    **where,
                    "text": text,
                },
            )
            yield (
                "response.content_part.done",
                {
                    "type": "response.content_part.done",
                    "sequence_number": next(seq),
                    **where,
                    "part": item["content"][0],
                },
            )
        elif item["type"] == "function_call":
            where = {"item_id": item["id"], "output_index": index}
            yield (
                "response.function_call_arguments.delta",
                {
                    "type": "response.function_call_arguments.delta",
                    "sequence_number": next(seq),
                    **where,
                    "delta": item["arguments"],
                },
            )
            yield (
                "response.function_call_arguments.done",
                {
                    "type": "response.function_call_arguments.done",
                    "sequence_number": next(seq),
                    **where,
                    "arguments": item["arguments"],
                },
            )
        yield (
            "response.output_item.done",
            {
                "type": "response.output_item.done",
                "sequence_number": next(seq),
                "output_index": index,
                "item": item,
            },
        )
    final = "response.incomplete" if response["status"] == "incomplete" else "response.completed"
    yield final, {"type": final, "sequence_number": next(seq), "response": dict(response)}
