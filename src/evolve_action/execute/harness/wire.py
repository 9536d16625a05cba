"""What the credential proxy needs to know about the vendors' wire formats, and no more.

Which requests are model calls (the ones that count as turns and cost money), the usage an
answer reports (JSON or a stream of server-sent events), and the error bodies each vendor
sends, so that an error made up by the proxy reads like one from the API to the CLI.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from evolve_action.model.outcomes import Usage
from evolve_action.model.provider_table import PROVIDERS

ANTHROPIC = "anthropic"
OPENAI = "openai"
GEMINI = "gemini"
# Gemini's model calls name the model and the method in the path:
# `/v1beta/models/MODEL:streamGenerateContent?alt=sse`, `...:generateContent`.
_GEMINI_PATH = re.compile(r"/models/(?P<model>[^/:?]+):(?:stream)?[gG]enerateContent$")


def api_of(path: str) -> str | None:
    """The model-calling API a request path names ("messages", "responses", "chat"), if any.

    `path` is what follows the upstream base URL, query string included or not.
    """
    bare = "/" + path.split("?", 1)[0].strip("/")
    if bare.endswith("/messages"):
        return "messages"
    if bare.endswith("/responses"):
        return "responses"
    if bare.endswith("/chat/completions"):
        return "chat"
    if _GEMINI_PATH.search(bare):
        return GEMINI
    return None


def model_in_path(path: str) -> str:
    """The model a Gemini call names in its path ("" for the other APIs, whose body does)."""
    found = _GEMINI_PATH.search("/" + path.split("?", 1)[0].strip("/"))
    return found["model"] if found else ""


def events(body: bytes) -> Iterator[dict[str, Any]]:
    """The JSON `data:` payloads of a server-sent event stream, in order."""
    text = body.decode("utf-8", errors="replace").replace("\r\n", "\n")
    for block in text.split("\n\n"):
        data = "\n".join(
            line[5:].lstrip() for line in block.split("\n") if line.startswith("data:")
        )
        if not data or data == "[DONE]":
            continue
        try:
            value = json.loads(data)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            yield value


def _int(mapping: Mapping[str, Any] | None, *path: str) -> int:
    value: Any = mapping
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _anthropic_usage(raw: Mapping[str, Any]) -> Usage:
    return Usage(
        input_tokens=_int(raw, "input_tokens"),
        output_tokens=_int(raw, "output_tokens"),
        cache_read_tokens=_int(raw, "cache_read_input_tokens"),
        cache_write_tokens=_int(raw, "cache_creation_input_tokens"),
        calls=1,
    )


def _openai_usage(raw: Mapping[str, Any]) -> Usage:
    # OpenAI counts cached input inside the input total; ours is fresh input only.
    if "prompt_tokens" in raw:
        total, cached = (
            _int(raw, "prompt_tokens"),
            _int(raw, "prompt_tokens_details", "cached_tokens"),
        )
        output = _int(raw, "completion_tokens")
    else:
        total, cached = (
            _int(raw, "input_tokens"),
            _int(raw, "input_tokens_details", "cached_tokens"),
        )
        output = _int(raw, "output_tokens")
    return Usage(
        input_tokens=max(0, total - cached), output_tokens=output, cache_read_tokens=cached, calls=1
    )


def _gemini_usage(raw: Mapping[str, Any]) -> Usage:
    # Gemini counts cached input inside the prompt total, and thinking apart from the answer.
    cached = _int(raw, "cachedContentTokenCount")
    return Usage(
        input_tokens=max(0, _int(raw, "promptTokenCount") - cached),
        output_tokens=_int(raw, "candidatesTokenCount") + _int(raw, "thoughtsTokenCount"),
        cache_read_tokens=cached,
        calls=1,
    )


def _gemini_usage_of(content_type: str, body: bytes) -> Usage | None:
    """`usageMetadata` of a whole answer, or of a stream's last chunk that has one (its
    counts are cumulative)."""
    if "event-stream" in content_type:
        found = [
            e["usageMetadata"] for e in events(body) if isinstance(e.get("usageMetadata"), dict)
        ]
        return _gemini_usage(found[-1]) if found else None
    try:
        doc = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    raw = doc.get("usageMetadata") if isinstance(doc, dict) else None
    return _gemini_usage(raw) if isinstance(raw, dict) else None


def usage_of(api: str, content_type: str, body: bytes) -> Usage | None:
    """The usage one successful model call reported, or None when it reported none."""
    if api == GEMINI:
        return _gemini_usage_of(content_type, body)
    if "event-stream" not in content_type:
        try:
            doc = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return None
        raw = doc.get("usage") if isinstance(doc, dict) else None
        if not isinstance(raw, dict):
            return None
        return _anthropic_usage(raw) if api == "messages" else _openai_usage(raw)
    if api == "messages":
        merged: dict[str, Any] = {}
        for event in events(body):
            if event.get("type") == "message_start":
                merged.update((event.get("message") or {}).get("usage") or {})
            elif event.get("type") == "message_delta":
                # Counts in a delta are cumulative: they replace, never add.
                merged.update(
                    {k: v for k, v in (event.get("usage") or {}).items() if v is not None}
                )
        return _anthropic_usage(merged) if merged else None
    found: Usage | None = None
    for event in events(body):
        response = event.get("response")
        if event.get("type", "").startswith("response.") and isinstance(response, dict):
            if isinstance(response.get("usage"), dict):
                found = _openai_usage(response["usage"])
        elif isinstance(event.get("usage"), dict):  # Chat Completions' last chunk
            found = _openai_usage(event["usage"])
    return found


def served_model_of(api: str, content_type: str, body: bytes) -> str:
    """The model a successful answer says served it (a dated snapshot behind the alias the
    CLI asked for); "" when it does not say."""
    if "event-stream" not in content_type:
        return model_of(body)
    for event in events(body):
        held = event.get("message") if api == "messages" else event.get("response")
        source = held if isinstance(held, dict) else event
        if source.get("model"):
            return str(source["model"])
    return ""


def model_of(body: bytes) -> str:
    try:
        doc = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return ""
    return str(doc.get("model", "")) if isinstance(doc, dict) else ""


def wire_of(provider: str) -> str:
    """The API shape the proxy speaks to a provider for a CLI (its row's `proxy_wire`):
    `ANTHROPIC`, `OPENAI` or `GEMINI`."""
    row = PROVIDERS.get(provider)
    return row.proxy_wire if row is not None else provider


def error_body(provider: str, status: int, message: str) -> bytes:
    """An error in the vendor's own shape, so the CLI reports it as it would the API's."""
    if wire_of(provider) == GEMINI:
        kinds = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 429: "RESOURCE_EXHAUSTED"}
        error = {"code": status, "message": message, "status": kinds.get(status, "INTERNAL")}
        return json.dumps({"error": error}).encode()
    if wire_of(provider) == ANTHROPIC:
        kinds = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error"}
        kind = kinds.get(status, "api_error")
        return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()
    code = {401: "invalid_api_key", 429: "rate_limit_exceeded"}.get(status)
    kind = "invalid_request_error" if status < 500 else "server_error"
    error = {"message": message, "type": kind, "param": None, "code": code}
    return json.dumps({"error": error}).encode()


def error_detail(body: bytes) -> tuple[str, str]:
    """(type or code, message) from either vendor's error body."""
    try:
        doc = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return "", body[:300].decode("utf-8", errors="replace")
    error = doc.get("error") if isinstance(doc, dict) else None
    if isinstance(error, dict):
        code = error.get("code") or error.get("type") or ""
        return str(code), str(error.get("message") or "")
    return "", str(doc)[:300]
