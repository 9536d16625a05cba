"""The fake LLM server's wire formats: answers and errors as Anthropic and OpenAI send them.

Three APIs: Anthropic Messages (`anthropic`), OpenAI Chat Completions (`openai`) and OpenAI
Responses (`responses`, what Codex speaks). Ids are derived from the request bytes, so the
same request gets the same answer bytes and record/replay tests see deterministic
conversations. A request asking for `stream: true` gets the same answer as server-sent
events (`llm_sse.py`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fakes.llm_script import Fault, Reply

CacheHit = Callable[[str], bool]

_ANTHROPIC_ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "api_error",
    529: "overloaded_error",
}
_OPENAI_ERRORS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", None),
}


def tokens(value: str) -> int:
    return max(1, len(value) // 4)


def render_error(api: str, fault: Fault) -> tuple[int, dict[str, Any], dict[str, str]]:
    headers: dict[str, str] = {}
    if fault.retry_after is not None:
        headers["retry-after"] = f"{fault.retry_after:g}"
    if fault.retry_after_ms is not None:
        headers["retry-after-ms"] = str(fault.retry_after_ms)
    message = fault.message or f"fake error {fault.status}"
    if api == "anthropic":
        kind = fault.code or _ANTHROPIC_ERRORS.get(fault.status, "api_error")
        headers["request-id"] = f"req_fake_{fault.status}"
        return fault.status, {"type": "error", "error": {"type": kind, "message": message}}, headers
    kind, code = _OPENAI_ERRORS.get(fault.status, ("server_error", None))
    if fault.code is not None:
        kind = code = fault.code
    error = {"message": message, "type": kind, "param": None, "code": code}
    return fault.status, {"error": error}, headers


def _digest(body: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


def _usage(total: int, prefix: str, reply: Reply, cache_hit: CacheHit) -> dict[str, int]:
    cached = tokens(prefix) if prefix else 0
    hit = bool(prefix) and cache_hit(prefix)
    output = tokens(reply.text + "".join(json.dumps(dict(c.arguments)) for c in reply.calls))
    usage = {
        "input_tokens": max(1, total - cached),
        "output_tokens": output,
        "cache_creation_input_tokens": 0 if hit else cached,
        "cache_read_input_tokens": cached if hit else 0,
    }
    usage.update(reply.usage or {})
    return usage


def render_reply(
    api: str, body: Mapping[str, Any], reply: Reply, cache_hit: CacheHit
) -> dict[str, Any]:
    if api == "anthropic":
        return _anthropic(body, reply, cache_hit)
    if api == "responses":
        return _responses(body, reply, cache_hit)
    return _openai(body, reply, cache_hit)


def _anthropic(body: Mapping[str, Any], reply: Reply, cache_hit: CacheHit) -> dict[str, Any]:
    digest = _digest(body)
    content: list[dict[str, Any]] = []
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for i, c in enumerate(reply.calls):
        args = json.loads(c.raw) if c.raw is not None else dict(c.arguments)
        content.append(
            {"type": "tool_use", "id": f"toolu_{digest}_{i}", "name": c.name, "input": args}
        )
    marked = any("cache_control" in b for b in [*body.get("system", []), *body.get("tools", [])])
    prefix = json.dumps([body.get("tools", []), body.get("system", [])]) if marked else ""
    stop = "tool_use" if reply.calls else (reply.stop_reason or "end_turn")
    return {
        "id": f"msg_{digest}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", ""),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": _usage(tokens(json.dumps(body)), prefix, reply, cache_hit),
    }


def _openai(body: Mapping[str, Any], reply: Reply, cache_hit: CacheHit) -> dict[str, Any]:
    digest = _digest(body)
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None}
    if reply.calls:
        message["tool_calls"] = [
            {
                "id": f"call_{digest}_{i}",
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": c.raw if c.raw is not None else json.dumps(dict(c.arguments)),
                },
            }
            for i, c in enumerate(reply.calls)
        ]
    # OpenAI caches automatically: the system prompt and tools are the stable prefix.
    system = [m for m in body.get("messages", [])[:1] if m.get("role") == "system"]
    prefix = json.dumps([body.get("tools", []), system]) if system or body.get("tools") else ""
    usage = _usage(tokens(json.dumps(body)), prefix, reply, cache_hit)
    cached = usage["cache_read_input_tokens"]
    prompt = usage["input_tokens"] + cached + usage["cache_creation_input_tokens"]
    finish = (
        "tool_calls" if reply.calls else ("length" if reply.stop_reason == "max_tokens" else "stop")
    )
    return {
        "id": f"chatcmpl-{digest}",
        "object": "chat.completion",
        "created": 1_767_225_600,
        "model": body.get("model", ""),
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": usage["output_tokens"],
            "total_tokens": prompt + usage["output_tokens"],
            "prompt_tokens_details": {"cached_tokens": cached},
        },
    }


def _responses(body: Mapping[str, Any], reply: Reply, cache_hit: CacheHit) -> dict[str, Any]:
    """A Responses API `response` object: one `message` item, then one `function_call` each."""
    digest = _digest(body)
    output: list[dict[str, Any]] = []
    if reply.text:
        output.append(
            {
                "type": "message",
                "id": f"msg_{digest}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        )
    for i, c in enumerate(reply.calls):
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{digest}_{i}",
                "call_id": f"call_{digest}_{i}",
                **({"namespace": c.namespace} if c.namespace else {}),
                "name": c.name,
                "arguments": c.raw if c.raw is not None else json.dumps(dict(c.arguments)),
                "status": "completed",
            }
        )
    # Like Chat Completions, the Responses API caches the stable prefix on its own.
    instructions = [i for i in body.get("input", [])[:1] if isinstance(i, Mapping)]
    prefix = json.dumps([body.get("tools", []), body.get("instructions"), instructions])
    usage = _usage(tokens(json.dumps(body)), prefix, reply, cache_hit)
    cached = usage["cache_read_input_tokens"]
    prompt = usage["input_tokens"] + cached + usage["cache_creation_input_tokens"]
    cut = reply.stop_reason == "max_tokens"
    return {
        "id": f"resp_{digest}",
        "object": "response",
        "created_at": 1_767_225_600,
        "status": "incomplete" if cut else "completed",
        "incomplete_details": {"reason": "max_output_tokens"} if cut else None,
        "model": body.get("model", ""),
        "output": output,
        "usage": {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": usage["output_tokens"],
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt + usage["output_tokens"],
        },
    }
