"""What the fake LLM server answers: scripted replies and faults, and the requests it saw.

Written once, vendor-neutral; `llm_wire.py` renders them in each API's wire format. The API
is documented in `llm_server.py`, which re-exports everything here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Call:
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    raw: str | None = None  # exact OpenAI argument text; Anthropic gets the parsed object
    # The Responses API's namespace tool holding the function (Codex offers each MCP server
    # as one, `mcp__<server>`); the other APIs have none and ignore it.
    namespace: str = ""


@dataclass(frozen=True)
class Reply:
    text: str = ""
    calls: tuple[Call, ...] = ()
    stop_reason: str | None = None  # "max_tokens" to fake a cut-off answer
    usage: Mapping[str, int] | None = None


@dataclass(frozen=True)
class Fault:
    status: int
    retry_after: float | None = None
    retry_after_ms: int | None = None
    code: str | None = None
    message: str = ""


@dataclass(frozen=True)
class Stall:
    seconds: float
    then: Answer | None = None


@dataclass(frozen=True)
class Malformed:
    body: str = '{"id": "msg_broken", "content": ['


@dataclass(frozen=True)
class Disconnect:
    pass


Answer = Reply | Fault | Stall | Malformed | Disconnect


def text(value: str) -> Reply:
    return Reply(text=value)


def call(name: str, **arguments: Any) -> Reply:
    return Reply(calls=(Call(name, arguments),))


def calls(*items: Call, text: str = "") -> Reply:
    return Reply(text=text, calls=items)


@dataclass(frozen=True)
class Request:
    """One request as received: which API, its headers (lower-cased names) and JSON body.

    `api` is "anthropic" (Messages), "openai" (Chat Completions) or "responses" (OpenAI's
    Responses API, which Codex speaks); the accessors below read all three.
    """

    index: int  # 1-based arrival number
    api: str  # "anthropic" | "openai" | "responses"
    path: str
    headers: Mapping[str, str]
    body: Mapping[str, Any]
    raw: bytes
    # `time.monotonic()` on arrival: tests order requests against what the job printed.
    received: float = field(default_factory=time.monotonic)

    @property
    def model(self) -> str:
        return str(self.body.get("model", ""))

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))

    @property
    def messages(self) -> list[Mapping[str, Any]]:
        """The conversation: `messages`, or the Responses API's `input` items."""
        if self.api == "responses":
            items = self.body.get("input", [])
            if isinstance(items, str):
                return [{"type": "message", "role": "user", "content": items}]
            return [i for i in items if isinstance(i, Mapping)]
        return list(self.body.get("messages", []))

    @property
    def system(self) -> str:
        """The system prompt, from any of the wire formats."""
        if self.api == "anthropic":
            system = self.body.get("system", [])
            if isinstance(system, str):
                return system
            return "".join(b.get("text", "") for b in system)
        if self.api == "responses":
            parts = [str(self.body.get("instructions") or "")]
            for item in self.messages:
                if item.get("role") in ("system", "developer"):
                    parts.append(_text_of(item.get("content")))
            return "\n".join(p for p in parts if p)
        first = self.messages[:1]
        return (
            str(first[0].get("content", "")) if first and first[0].get("role") == "system" else ""
        )

    @property
    def tool_names(self) -> list[str]:
        tools = self.body.get("tools") or []
        return [str(t.get("name") or t.get("function", {}).get("name", "")) for t in tools]

    @property
    def turn(self) -> int:
        """How many model turns the conversation already holds (0 for a fresh one)."""
        if self.api != "responses":
            return sum(1 for m in self.messages if m.get("role") == "assistant")
        # One model turn is a run of output items (reasoning, text, calls) between inputs.
        turns, inside = 0, False
        for item in self.messages:
            output = item.get("type") in _RESPONSE_OUTPUTS or item.get("role") == "assistant"
            if output and not inside:
                turns += 1
            inside = output
        return turns

    @property
    def tool_results(self) -> list[str]:
        """The contents of the tool results in the request, oldest first."""
        out: list[str] = []
        for m in self.messages:
            if m.get("role") == "tool":
                out.append(str(m.get("content", "")))
            elif m.get("type") in ("function_call_output", "custom_tool_call_output"):
                out.append(_text_of(m.get("output")))
            elif isinstance(m.get("content"), list):
                out.extend(
                    _text_of(b.get("content", ""))
                    for b in m["content"]
                    if b.get("type") == "tool_result"
                )
        return out


_RESPONSE_OUTPUTS = frozenset(
    {"function_call", "custom_tool_call", "reasoning", "local_shell_call"}
)


def _text_of(content: Any) -> str:
    """Text of a string, or of a list of content blocks (`text`, `input_text`, `output_text`)."""
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, Mapping))
    return "" if content is None else str(content)


Script = Callable[[Request], Answer]


def scripted_agent(*turns: Answer, repeat_last: bool = False) -> Script:
    def answer(request: Request) -> Answer:
        if request.turn < len(turns):
            return turns[request.turn]
        if repeat_last and turns:
            return turns[-1]
        return Fault(400, message=f"script exhausted: no answer for turn {request.turn + 1}")

    return answer
