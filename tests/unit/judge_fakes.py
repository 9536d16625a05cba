"""A scripted judge provider and a tiny read-only tool box, shared by the judge and grade tests."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evolve_action.model.outcomes import Usage
from evolve_action.model.provider import (
    ChatRequest,
    ChatResponse,
    ToolResultPart,
    ToolSpec,
    ToolUsePart,
)
from evolve_action.model.provider_table import PROVIDERS

Reply = ChatResponse | Exception | Callable[[ChatRequest], ChatResponse]


def submit(payload: dict[str, Any] | str, *, tokens: int = 10) -> ChatResponse:
    """A judge turn that calls submit_grading with `payload` (a dict, or raw argument text)."""
    args = payload if isinstance(payload, str) else json.dumps(payload)
    use = ToolUsePart("call-submit", "submit_grading", args)
    return ChatResponse("", (use,), "tool_use", Usage(input_tokens=tokens, output_tokens=1))


def text(body: str) -> ChatResponse:
    return ChatResponse(body, (), "end_turn", Usage(input_tokens=3, output_tokens=2, calls=1))


def tool(name: str, arguments: dict[str, Any], call_id: str = "call-1") -> ChatResponse:
    use = ToolUsePart(call_id, name, json.dumps(arguments))
    return ChatResponse("let me look", (use,), "tool_use", Usage(input_tokens=5, calls=1))


@dataclass
class ScriptedProvider:
    """Answers each `complete` with the next scripted reply and records every request."""

    replies: list[Reply]
    id: str = "fake"
    requests: list[ChatRequest] = field(default_factory=list)

    @property
    def answers_with_schema(self) -> bool:
        """As the real provider of this id answers (`provider_table.ProviderRow`)."""
        kind = PROVIDERS.get(self.id)
        return kind.answers_with_schema if kind else False

    async def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        if not self.replies:
            raise AssertionError("the judge made more calls than scripted")
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply(request) if callable(reply) else reply

    @property
    def prompt(self) -> str:
        part = self.requests[0].messages[0].parts[0]
        return str(getattr(part, "text", ""))


@dataclass
class FakeToolBox:
    """Read returns canned file contents; every call is recorded."""

    files: dict[str, str]
    calls: list[tuple[str, str]] = field(default_factory=list)

    def specs(self) -> tuple[ToolSpec, ...]:
        schema = {"type": "object", "properties": {"file_path": {"type": "string"}}}
        return (ToolSpec("Read", "Read a file", schema),)

    async def call(self, name: str, arguments: str) -> ToolResultPart:
        self.calls.append((name, arguments))
        path = json.loads(arguments).get("file_path", "")
        if name != "Read" or path not in self.files:
            return ToolResultPart("", f"no such file: {path}", True)
        return ToolResultPart("", self.files[path])
