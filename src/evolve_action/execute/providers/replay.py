"""Record and replay provider exchanges, so a whole run can be repeated offline and keyless.

An exchange is keyed by the SHA-256 of the canonical JSON of the neutral `ChatRequest`
(model, system, messages, tools, force_tool, response_schema, max_tokens, temperature), so
only what the model would see matters, never SDK headers or keys. A key holds the list of
answers recorded for it (repetitions of a case send the same first request); replay hands
them out in order, cycling.

A cassette is one JSON file; since keys are content hashes, any grouping works (the pipeline
keeps one per provider, `<provider>.json`). Sorted keys, two-space indent, the request stored
beside its answers so a diff shows what changed. It holds no secrets (no headers) and no
paths beyond what the model itself was shown. Writes are atomic (temp file + rename).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evolve_action.model.outcomes import ErrorKind, Usage
from evolve_action.model.provider import (
    ChatMessage,
    ChatRequest,
    ChatResponse,
    Part,
    Provider,
    ProviderError,
    TextPart,
    ToolUsePart,
)
from evolve_action.model.provider_table import PROVIDERS
from evolve_action.model.records import usage_doc

CASSETTE_VERSION = 1


def _plain(value: Any) -> Any:
    """Mappings (read-only proxies included) and sequences as plain JSON values."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _part(part: Part) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, ToolUsePart):
        return {"type": "tool_use", "id": part.id, "name": part.name, "arguments": part.arguments}
    return {
        "type": "tool_result",
        "tool_use_id": part.tool_use_id,
        "content": part.content,
        "is_error": part.is_error,
    }


def _message(message: ChatMessage) -> dict[str, Any]:
    return {"role": message.role, "parts": [_part(p) for p in message.parts]}


def canonical_request(request: ChatRequest) -> dict[str, Any]:
    return {
        "model": request.model,
        "system": request.system,
        "messages": [_message(m) for m in request.messages],
        "tools": [
            {"name": t.name, "description": t.description, "input_schema": _plain(t.input_schema)}
            for t in request.tools
        ],
        "force_tool": request.force_tool,
        "response_schema": _plain(request.response_schema),
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
    }


def request_key(request: ChatRequest) -> str:
    canonical = json.dumps(
        canonical_request(request), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def response_to_json(response: ChatResponse) -> dict[str, Any]:
    return {
        "text": response.text,
        "tool_uses": [
            {"id": t.id, "name": t.name, "arguments": t.arguments} for t in response.tool_uses
        ],
        "stop_reason": response.stop_reason,
        "model": response.model,
        "usage": usage_doc(response.usage),
    }


def response_from_json(data: dict[str, Any]) -> ChatResponse:
    uses = tuple(ToolUsePart(t["id"], t["name"], t["arguments"]) for t in data["tool_uses"])
    # Cassettes recorded before the served model was kept have no "model": unknown.
    served = str(data.get("model") or "")
    return ChatResponse(
        data["text"], uses, data["stop_reason"], Usage(**data["usage"]), model=served
    )


@dataclass
class Cassette:
    # key → {"request": canonical request, "responses": [response json, ...]}
    exchanges: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(self, request: ChatRequest, response: ChatResponse) -> None:
        key = request_key(request)
        entry = self.exchanges.setdefault(
            key, {"request": canonical_request(request), "responses": []}
        )
        entry["responses"].append(response_to_json(response))

    def responses(self, request: ChatRequest) -> list[dict[str, Any]] | None:
        entry = self.exchanges.get(request_key(request))
        return None if entry is None else list(entry["responses"])


def save_cassette(path: Path, cassette: Cassette) -> None:
    data = {"version": CASSETTE_VERSION, "exchanges": cassette.exchanges}
    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_cassette(path: Path) -> Cassette:
    """The cassette at `path`; an absent file is an empty cassette (nothing recorded yet)."""
    if not path.exists():
        return Cassette()
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("version") != CASSETTE_VERSION:
        raise ValueError(
            f"{path}: cassette version {data.get('version')!r} is not {CASSETTE_VERSION}; "
            "re-record it"
        )
    return Cassette(dict(data["exchanges"]))


class RecordingProvider:
    """Calls `inner` and stores every successful exchange in `cassette` (failures are not
    stored: a replay should see the answer the run finally got)."""

    def __init__(self, inner: Provider, cassette: Cassette) -> None:
        self.id = inner.id
        self.answers_with_schema = inner.answers_with_schema
        self.inner = inner
        self.cassette = cassette

    async def complete(self, request: ChatRequest) -> ChatResponse:
        response = await self.inner.complete(request)
        self.cassette.add(request, response)
        return response


class ReplayProvider:
    """Answers from `cassette` alone: no network, no key. A request never recorded is a
    `REPLAY_MISS` error (`run_agent` adds the case id to its message)."""

    def __init__(self, provider_id: str, cassette: Cassette) -> None:
        self.id = provider_id
        # As the provider recorded would answer: the requests must be the ones recorded.
        known = PROVIDERS.get(provider_id)
        self.answers_with_schema = known.answers_with_schema if known else False
        self.cassette = cassette
        self._served: dict[str, int] = {}

    async def complete(self, request: ChatRequest) -> ChatResponse:
        key = request_key(request)
        responses = self.cassette.responses(request)
        if not responses:
            raise ProviderError(
                ErrorKind.REPLAY_MISS,
                f"no recorded exchange for this request to {request.model} "
                f"(key {key[:12]}, {len(request.messages)} messages): the eval or the skill "
                "changed since the cassette was recorded; record it again",
                provider=self.id,
            )
        n = self._served.get(key, 0)
        self._served[key] = n + 1
        return response_from_json(responses[n % len(responses)])
