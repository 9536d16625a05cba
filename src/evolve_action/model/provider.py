"""The provider contract: one async call, a conversation with tools in, one assistant turn out.

Adapters (`anthropic.py`, `openai.py`, `replay.py`) translate these neutral types to and from
each SDK's wire format; nothing outside `providers/` sees an SDK type. Model ids are
provider-qualified (`anthropic/claude-sonnet-4-6`); the registry maps the prefix to a factory.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from evolve_action.model.outcomes import ErrorKind, Usage


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    input_schema: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class TextPart:
    text: str


@dataclass(frozen=True, slots=True)
class ToolUsePart:
    id: str
    name: str
    arguments: str  # raw JSON text, kept verbatim for transcripts and `tool_call` checks


@dataclass(frozen=True, slots=True)
class ToolResultPart:
    tool_use_id: str
    content: str
    is_error: bool = False


Part = TextPart | ToolUsePart | ToolResultPart


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: str  # "user" | "assistant"
    parts: tuple[Part, ...]


@dataclass(frozen=True, slots=True)
class ChatRequest:
    model: str  # the bare model id, without the provider prefix
    system: str
    messages: tuple[ChatMessage, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 4096
    # Force a call of this tool (structured output through a tool); None lets the model choose.
    force_tool: str | None = None
    # A JSON schema the final text must follow (OpenAI structured outputs); None for free text.
    response_schema: Mapping[str, Any] | None = None
    temperature: float | None = None


@dataclass(frozen=True, slots=True)
class ChatResponse:
    text: str
    tool_uses: tuple[ToolUsePart, ...]
    stop_reason: str  # end_turn | tool_use | max_tokens | other
    usage: Usage = field(default_factory=Usage)
    # The model the provider says answered: an alias is served by a dated snapshot it may
    # swap without notice (watch reports the swap). "" when the answer did not say.
    model: str = ""


class ProviderError(Exception):
    """A provider call failed for good (after retries); the run ends as `error`, not `fail`."""

    def __init__(self, kind: ErrorKind, message: str, *, provider: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.provider = provider

    def __str__(self) -> str:
        prefix = f"{self.provider}: " if self.provider else ""
        return f"{prefix}{self.kind.value}: {self.message}"


class Provider(Protocol):
    """One vendor's chat API. Implementations must be safe to call concurrently."""

    id: str
    # True: a one-call answer is constrained by a JSON schema on its text (`ChatRequest`'s
    # `response_schema`); False: by forcing a tool call. The judge asks, never the name.
    answers_with_schema: bool

    async def complete(self, request: ChatRequest) -> ChatResponse: ...


ProviderFactory = Callable[..., Provider]


class ToolBox(Protocol):
    """The tools offered to a model in one run (agent or judge), confined to its workspace."""

    def specs(self) -> tuple[ToolSpec, ...]: ...

    async def call(self, name: str, arguments: str) -> ToolResultPart:
        """Run one tool call; `arguments` is the raw JSON text. Never raises for bad input:
        an unknown tool or invalid arguments come back as an `is_error` result."""
        ...
