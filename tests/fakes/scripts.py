"""Scripts for the fake LLM that play both roles of a pipeline run: the agent and the judge.

A request that offers the `submit_grading` tool is the judge: it passes every pass/fail item
(or those `judge_verdict` picks) and gives scored items `score`. Any other request is the
agent, answered turn by turn from `turns`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tests.fakes.llm_server import Answer, Call, Request, calls, scripted_agent

_ITEM = re.compile(r"^(\d+)\. ", re.MULTILINE)


def tool_names(request: Request) -> list[str]:
    names = []
    for tool in request.body.get("tools") or []:
        names.append(str(tool.get("name") or (tool.get("function") or {}).get("name") or ""))
    return names


def user_text(request: Request) -> str:
    users = [m for m in request.messages if m.get("role") == "user"]
    content = users[0].get("content", "") if users else ""
    if isinstance(content, list):
        return "\n".join(
            str(block.get("text", "")) for block in content if isinstance(block, Mapping)
        )
    return str(content)


def grading(request: Request, verdict: Callable[[int, str], bool] = lambda _n, _t: True) -> Answer:
    text = user_text(request)
    numbers = [int(n) for n in _ITEM.findall(text)]
    expectations = [
        {"id": n, "passed": verdict(n, text), "evidence": "seen in the workspace"} for n in numbers
    ]
    args: dict[str, Any] = {
        "expectations": expectations,
        "claims": [],
        "eval_feedback": {
            "suggestions": [{"reason": "No item checks that the greeting names the guest."}],
            "overall": "Mostly sound.",
        },
    }
    return calls(Call("submit_grading", args))


def agent_and_judge(
    turns: Sequence[Answer],
    verdict: Callable[[int, str], bool] = lambda _n, _t: True,
    *,
    judge: Callable[[Request], Answer] | None = None,
) -> Callable[[Request], Answer]:
    """The agent plays `turns`; the judge is `judge`, or passes the items `verdict` picks."""
    agent = scripted_agent(*turns)

    def script(request: Request) -> Answer:
        if "submit_grading" in tool_names(request):
            return judge(request) if judge else grading(request, verdict)
        return agent(request)

    return script
