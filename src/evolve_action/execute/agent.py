"""The agent loop: one model turn after another, running its tool calls, until it answers.

Stops when the model answers without a tool call (`end_turn`, or `max_tokens` when the answer
was cut), after `max_turns` model turns (`max_turns`; the final text is the last text seen),
or at the run deadline (`timeout`; the in-flight call is cancelled). All three are gradable
outcomes. A provider failure that survived the retries raises `AgentError`, which carries the
partial transcript so the caller records an `error` run without losing what was obtained.

A case with `follow_ups` is a conversation: once the agent answers, the next user turn is
sent in the same conversation, until the last is answered. The turn cap and the deadline are
the whole conversation's, as they are a run's; each answer and its time are recorded, so a
grader can read the turn it names.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from evolve_action.model.evals import Case, split_model
from evolve_action.model.outcomes import ToolCall, Transcript
from evolve_action.model.provider import (
    ChatMessage,
    ChatRequest,
    Part,
    Provider,
    ProviderError,
    TextPart,
    ToolBox,
    ToolResultPart,
    ToolUsePart,
)

DEFAULT_MAX_TURNS = 20  # evolve's default
DEFAULT_TIMEOUT_S = 600.0  # evolve's default


class AgentError(ProviderError):
    """The provider failed for good mid-run; `transcript` holds everything obtained before."""

    def __init__(self, cause: ProviderError, transcript: Transcript, *, label: str = "") -> None:
        message = f"{cause.message} (case {label})" if label else cause.message
        super().__init__(cause.kind, message, provider=cause.provider)
        self.transcript = transcript


@dataclass(frozen=True, slots=True)
class Limits:
    max_turns: int
    timeout_s: float


def limits(case: Case, input_max_turns: int | None, input_timeout_s: float | None) -> Limits:
    """The case's own limits, else the action inputs, else evolve's defaults (20 turns, 600 s)."""
    turns = case.max_turns or input_max_turns or DEFAULT_MAX_TURNS
    timeout = case.timeout_seconds or input_timeout_s or DEFAULT_TIMEOUT_S
    return Limits(turns, float(timeout))


def conversation(case: Case) -> tuple[ChatMessage, ...]:
    """A case's authored turns (system turns excluded: they belong to the system prompt)
    followed by its prompt as the last user message."""
    earlier = tuple(
        ChatMessage(m.role, (TextPart(m.content),))
        for m in case.messages
        if m.role in ("user", "assistant")
    )
    return (*earlier, ChatMessage("user", (TextPart(case.prompt),)))


async def run_agent(
    *,
    provider: Provider,
    model: str,
    system: str,
    messages: Sequence[ChatMessage],
    tools: ToolBox,
    max_turns: int,
    timeout_s: float,
    max_tokens: int = 4096,
    temperature: float | None = None,
    label: str = "",
    clock: Callable[[], float] = time.monotonic,
    follow_ups: Sequence[str] = (),
) -> Transcript:
    """Run the agent on `messages` until it answers (each of `follow_ups` too, in turn), runs
    out of turns or of time.

    `model` may be bare or qualified by `provider.id`. `label` (the case id) is added to an
    `AgentError`'s message, so a replay miss or an outage says which case it hit.
    """
    _, bare = split_model(model) if model.startswith(f"{provider.id}/") else ("", model)
    loop = _Loop(provider, bare, system, tools, max_tokens, temperature, clock)
    start = clock()
    try:
        async with asyncio.timeout(timeout_s):
            await loop.converse(list(messages), follow_ups, max_turns)
    except TimeoutError:
        loop.interrupted()
        loop.transcript.stop_reason = "timeout"
        loop.transcript.notes.append(f"timed out after {timeout_s:g} s")
    except ProviderError as exc:
        loop.transcript.stop_reason = "error"
        loop.transcript.duration_s = clock() - start
        raise AgentError(exc, loop.transcript, label=label) from exc
    loop.transcript.duration_s = clock() - start
    return loop.transcript


class _Loop:
    def __init__(
        self,
        provider: Provider,
        model: str,
        system: str,
        tools: ToolBox,
        max_tokens: int,
        temperature: float | None,
        clock: Callable[[], float],
    ) -> None:
        self.provider = provider
        self.model = model
        self.system = system
        self.tools = tools
        self.specs = tools.specs()
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.clock = clock
        self.transcript = Transcript()
        self.running: tuple[ToolUsePart, float] | None = None

    async def converse(
        self, conversation: list[ChatMessage], follow_ups: Sequence[str], max_turns: int
    ) -> None:
        """Each user turn after the agent's answer to the one before; one turn is `run`."""
        transcript = self.transcript
        pending = list(follow_ups)
        while True:
            started = self.clock()
            transcript.final_text = ""  # an answer is the text of its own user turn
            await self.run(conversation, max_turns)
            if follow_ups:
                transcript.answers.append(transcript.final_text)
                transcript.answer_durations_s.append(self.clock() - started)
            if not pending or transcript.stop_reason != "end_turn":
                break
            conversation.append(ChatMessage("user", (TextPart(pending.pop(0)),)))
        if pending:
            said = len(follow_ups) + 1 - len(pending)
            transcript.notes.append(
                f"the conversation stopped at user turn {said} of {len(follow_ups) + 1}"
            )

    async def run(self, conversation: list[ChatMessage], max_turns: int) -> None:
        transcript = self.transcript
        while transcript.turns < max_turns:
            response = await self.provider.complete(
                ChatRequest(
                    model=self.model,
                    system=self.system,
                    messages=tuple(conversation),
                    tools=self.specs,
                    max_tokens=self.max_tokens,
                    temperature=self.temperature,
                )
            )
            transcript.turns += 1
            transcript.usage.add(response.usage)
            transcript.served_by = response.model or transcript.served_by
            if response.text:
                transcript.final_text = response.text
            said: list[Part] = [TextPart(response.text)] if response.text else []
            conversation.append(ChatMessage("assistant", (*said, *response.tool_uses)))
            if not response.tool_uses:
                transcript.stop_reason = (
                    "max_tokens" if response.stop_reason == "max_tokens" else "end_turn"
                )
                return
            results = [await self._call(use) for use in response.tool_uses]
            conversation.append(ChatMessage("user", tuple(results)))
        transcript.stop_reason = "max_turns"
        transcript.notes.append(f"stopped at the turn cap ({max_turns} turns)")

    async def _call(self, use: ToolUsePart) -> ToolResultPart:
        started = self.clock()
        self.running = (use, started)
        result = await self.tools.call(use.name, use.arguments)
        self.running = None
        self.transcript.tool_calls.append(
            ToolCall(
                name=use.name,
                arguments=use.arguments,
                result=result.content,
                is_error=result.is_error,
                call_id=use.id,
                duration_s=self.clock() - started,
            )
        )
        return ToolResultPart(use.id, result.content, result.is_error)

    def interrupted(self) -> None:
        """Record the tool call the deadline cut short: the model did ask for it."""
        if self.running is None:
            return
        use, started = self.running
        self.transcript.tool_calls.append(
            ToolCall(
                name=use.name,
                arguments=use.arguments,
                result="interrupted: the run's time limit was reached",
                is_error=True,
                call_id=use.id,
                duration_s=self.clock() - started,
            )
        )
