"""The fake LLM server's Gemini API wire: `generateContent`, `streamGenerateContent` and
`countTokens`, as Gemini CLI and the `google-genai` SDK call them.

The routes are `/v1beta/models/<model>:<method>` (the model is in the path, not the body).
A request's conversation is `contents` (roles `user` and `model`, each a list of `parts`),
the system prompt `systemInstruction`, the tools `tools[].functionDeclarations`; a tool's
result comes back as a `functionResponse` part. Answers render the same `Reply` the other
wires render: text as a `text` part, each `Call` as a `functionCall` part, the token counts
as `usageMetadata` (about four characters a token; the stable prefix, tools and system
prompt, counted as `cachedContentTokenCount` from its second sighting, as Gemini's implicit
cache does). `streamGenerateContent?alt=sse` sends the same answer as server-sent events,
one `data:` line per chunk: the text, then the calls, the usage on the last chunk.
Errors come in Google's shape: `{"error": {"code", "message", "status"}}`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from tests.fakes.llm_script import Fault, Reply, Request
from tests.fakes.llm_wire import tokens

API = "gemini"
_PATH = re.compile(r"^/v1(?:beta|alpha)?/models/(?P<model>[^/:]+):(?P<method>[A-Za-z]+)$")
_METHODS = frozenset({"generateContent", "streamGenerateContent", "countTokens"})
_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def is_route(path: str) -> bool:
    """Whether `path` (without its query) is a Gemini API method this fake serves."""
    found = _PATH.match(path)
    return found is not None and found["method"] in _METHODS


def method(path: str) -> str:
    found = _PATH.match(path)
    return found["method"] if found else ""


def _model(path: str) -> str:
    found = _PATH.match(path)
    return found["model"] if found else ""


class GeminiRequest(Request):
    """A `Request` whose accessors read Gemini's `contents` (scripts stay wire-neutral)."""

    @property
    def model(self) -> str:
        return _model(self.path)

    @property
    def stream(self) -> bool:
        return method(self.path) == "streamGenerateContent"

    @property
    def messages(self) -> list[Mapping[str, Any]]:
        contents = self.body.get("contents", [])
        return [c for c in contents if isinstance(c, Mapping)] if isinstance(contents, list) else []

    @property
    def system(self) -> str:
        instruction = self.body.get("systemInstruction")
        return _text(instruction.get("parts")) if isinstance(instruction, Mapping) else ""

    @property
    def tool_names(self) -> list[str]:
        return [str(d.get("name", "")) for d in _declarations(self.body)]

    @property
    def turn(self) -> int:
        return sum(1 for m in self.messages if m.get("role") == "model")

    @property
    def tool_results(self) -> list[str]:
        out: list[str] = []
        for message in self.messages:
            for part in _parts(message):
                answer = part.get("functionResponse")
                if isinstance(answer, Mapping):
                    out.append(json.dumps(answer.get("response", {}), ensure_ascii=False))
        return out


def _parts(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    parts = message.get("parts", [])
    return [p for p in parts if isinstance(p, Mapping)] if isinstance(parts, list) else []


def _text(parts: Any) -> str:
    if not isinstance(parts, list):
        return ""
    return "".join(str(p.get("text", "")) for p in parts if isinstance(p, Mapping))


def _declarations(body: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    out: list[Mapping[str, Any]] = []
    for tool in body.get("tools") or []:
        if isinstance(tool, Mapping):
            out += [d for d in tool.get("functionDeclarations") or [] if isinstance(d, Mapping)]
    return out


def render_error(fault: Fault) -> tuple[int, dict[str, Any], dict[str, str]]:
    headers = {"retry-after": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
    status = fault.code or _STATUS.get(fault.status, "UNKNOWN")
    message = fault.message or f"fake error {fault.status}"
    error = {"code": fault.status, "message": message, "status": status}
    return fault.status, {"error": error}, headers


def render_reply(
    path: str, body: Mapping[str, Any], reply: Reply, cache_hit: Callable[[str], bool]
) -> dict[str, Any]:
    """The answer to `path`: a `GenerateContentResponse`, or `countTokens`' count."""
    if method(path) == "countTokens":
        return {"totalTokens": tokens(json.dumps(body))}
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]
    parts: list[dict[str, Any]] = [{"text": reply.text}] if reply.text else []
    for i, c in enumerate(reply.calls):
        args = json.loads(c.raw) if c.raw is not None else dict(c.arguments)
        parts.append({"functionCall": {"id": f"fc_{digest}_{i}", "name": c.name, "args": args}})
    finish = "MAX_TOKENS" if reply.stop_reason == "max_tokens" else "STOP"
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}
        ],
        "usageMetadata": _usage(body, reply, cache_hit),
        "modelVersion": _model(path),
        "responseId": f"resp_{digest}",
    }


def _usage(
    body: Mapping[str, Any], reply: Reply, cache_hit: Callable[[str], bool]
) -> dict[str, int]:
    prefix = json.dumps([body.get("tools", []), body.get("systemInstruction")])
    cached = tokens(prefix) if cache_hit(prefix) else 0
    prompt = max(1, tokens(json.dumps(body)))
    output = tokens(reply.text + "".join(json.dumps(dict(c.arguments)) for c in reply.calls))
    if reply.usage:  # Anthropic's names, as every other wire takes them
        cached = int(reply.usage.get("cache_read_input_tokens", cached))
        prompt = int(reply.usage.get("input_tokens", prompt - cached)) + cached
        output = int(reply.usage.get("output_tokens", output))
    usage = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": output,
        "totalTokenCount": prompt + output,
    }
    if cached:
        usage["cachedContentTokenCount"] = cached
    return usage


def stream(response: Mapping[str, Any]) -> bytes:
    """`response` as `alt=sse` sends it: one chunk per part, the usage on the last one."""
    candidate = response["candidates"][0]
    parts = candidate["content"]["parts"] or [{"text": ""}]
    chunks = []
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        chunk: dict[str, Any] = {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [part]},
                    "index": 0,
                    **({"finishReason": candidate["finishReason"]} if last else {}),
                }
            ],
            "modelVersion": response["modelVersion"],
            "responseId": response["responseId"],
        }
        if last:
            chunk["usageMetadata"] = response["usageMetadata"]
        chunks.append(f"data: {json.dumps(chunk)}\r\n\r\n".encode())
    return b"".join(chunks)
