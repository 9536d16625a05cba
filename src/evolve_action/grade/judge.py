"""The batched LLM judge: one session per run, covering every judge item (docs/design.md §Judge).

The session is a short tool-use loop. When there is something to inspect (files the agent
changed, staged fixtures, output files) the judge may Read/Glob/Grep the workspace for a few
turns; the answer tool `submit_grading` is forced on the last allowed turn, which gives
structured output on both providers through `ChatRequest.force_tool`. When there is nothing
to inspect no workspace tool is offered and the answer is asked for on the first call, so a
single-turn case costs exactly two provider calls: the agent's and the judge's. That one call
asks for structured output the way docs/design.md §Judge says: a forced `submit_grading` call on
Anthropic, the same shape as a JSON schema for the answer text on OpenAI (and compatible
servers), with no tool at all.

Failures are loud, as in evolve: a missing verdict fails its own item; a session that fails
as a whole (provider error after retries, timeout, no parseable answer) fails every judge
item with `judge error: <why>`. Nothing here marks a run as errored; when the judge's
provider failed (`JudgeReport.error_kind` is set) the runner makes the run an `error`, since a
provider outage must never read as a failed eval (docs/design.md §Pass rate).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

from evolve_action.grade.judge_parse import Grading, failed, find_grading, verdicts
from evolve_action.grade.judge_prompt import (
    SUBMIT_TOOL,
    SYSTEM,
    SYSTEM_JSON,
    build_prompt,
    has_something_to_inspect,
    submit_tool,
)
from evolve_action.model.evals import Case, JudgeItem, split_model
from evolve_action.model.outcomes import ItemResult, JudgeReport, Transcript, Usage
from evolve_action.model.provider import (
    ChatMessage,
    ChatRequest,
    ChatResponse,
    Provider,
    ProviderError,
    TextPart,
    ToolBox,
    ToolResultPart,
    ToolSpec,
)

JUDGE_MAX_TOKENS = 8192
NUDGE = f"Now call {SUBMIT_TOOL} with your grading of every item."


class _NoAnswer(Exception):
    """The session ended without a parseable grading."""


async def judge_run(
    *,
    provider: Provider,
    model: str,
    case: Case,
    items: Sequence[JudgeItem],
    transcript: Transcript,
    tools: ToolBox | None,
    max_turns: int = 4,
    timeout_s: float,
) -> tuple[list[ItemResult], JudgeReport]:
    """Grade `items` (in order, numbered 1..N) in one judge session.

    `model` is provider-qualified (`anthropic/claude-sonnet-4-6`) and recorded in the report;
    `tools` is a read-only, workspace-confined tool box, or None. A one-call grading is a
    JSON schema on the answer when the provider answers that way best, else a forced tool.
    """
    report = JudgeReport(model=model)
    items = list(items)
    if not items:
        return [], report
    report.called = True
    inspect = tools is not None and has_something_to_inspect(case, transcript)
    as_json = not inspect and provider.answers_with_schema
    session = _Session(provider, model, items, tools if inspect else None, report, as_json)
    prompt = build_prompt(case, items, transcript, inspect=inspect, as_json=as_json)
    started = time.monotonic()
    why = ""
    grading: Grading | None = None
    try:
        async with asyncio.timeout(timeout_s):
            grading = await session.run(prompt, max(1, max_turns) if inspect else 1)
    except TimeoutError:
        why = f"timed out after {timeout_s:g}s"
    except ProviderError as exc:
        why = str(exc)
        report.error_kind = exc.kind
    except _NoAnswer as exc:
        why = str(exc)
    finally:
        report.duration_s = time.monotonic() - started
    if grading is None:
        report.error = why
        return [failed(item, why) for item in items], report
    report.claims = grading.claims
    report.feedback = grading.feedback
    report.extractions = {
        items[number - 1].id: value for number, value in sorted(grading.extractions.items())
    }
    return verdicts(items, grading), report


class _Session:
    def __init__(
        self,
        provider: Provider,
        model: str,
        items: list[JudgeItem],
        tools: ToolBox | None,
        report: JudgeReport,
        as_json: bool = False,
    ) -> None:
        self.provider = provider
        self.bare_model = split_model(model)[1]
        self.items = items
        self.tools = tools
        self.report = report
        submit = submit_tool(items)
        # as_json: no tool at all; the answer text follows the submit tool's schema.
        self.schema = submit.input_schema if as_json else None
        if as_json:
            self.specs: tuple[ToolSpec, ...] = ()
        else:
            self.specs = (*tools.specs(), submit) if tools is not None else (submit,)

    async def _call(self, messages: list[ChatMessage], force: bool) -> ChatResponse:
        request = ChatRequest(
            model=self.bare_model,
            system=SYSTEM if self.schema is None else SYSTEM_JSON,
            messages=tuple(messages),
            tools=self.specs,
            max_tokens=JUDGE_MAX_TOKENS,
            force_tool=SUBMIT_TOOL if force and self.schema is None else None,
            response_schema=self.schema,
        )
        response = await self.provider.complete(request)
        usage = response.usage
        # A provider that does not count calls still made one; the report counts it.
        self.report.usage.add(usage if usage.calls else _with_call(usage))
        return response

    async def run(self, prompt: str, turns: int) -> Grading:
        messages = [ChatMessage("user", (TextPart(prompt),))]
        stopped = ""
        for turn in range(1, turns + 1):
            last = turn == turns
            response = await self._call(messages, force=last)
            stopped = response.stop_reason
            answer = next((u for u in response.tool_uses if u.name == SUBMIT_TOOL), None)
            text = answer.arguments if answer is not None else response.text
            grading = find_grading(text, self.items)
            if grading is not None:
                return grading
            if last:
                break
            assistant = [TextPart(response.text)] if response.text else []
            messages.append(ChatMessage("assistant", (*assistant, *response.tool_uses)))
            if not response.tool_uses:
                messages.append(ChatMessage("user", (TextPart(NUDGE),)))
                continue
            results: list[ToolResultPart] = []
            for use in response.tool_uses:
                if use.name == SUBMIT_TOOL or self.tools is None:
                    results.append(
                        ToolResultPart(use.id, "No gradings found in these arguments.", True)
                    )
                else:
                    result = await self.tools.call(use.name, use.arguments)
                    results.append(ToolResultPart(use.id, result.content, result.is_error))
            messages.append(ChatMessage("user", tuple(results)))
        suffix = f" (stopped: {stopped})" if stopped not in ("", "end_turn", "tool_use") else ""
        raise _NoAnswer(f"no JSON verdicts in response{suffix}")


def _with_call(usage: Usage) -> Usage:
    counted = Usage()
    counted.add(usage)
    counted.calls = 1
    return counted
