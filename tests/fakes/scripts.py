"""Scripts for the fake LLM that play both roles of a pipeline run: the agent and the judge.

A request that offers the `submit_grading` tool is the judge: it passes every pass/fail item
(or those `judge_verdict` picks) and gives scored items `score`. Any other request is the
agent, answered turn by turn from `turns`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tests.fakes.llm_server import Answer, Call, Request, call, calls, scripted_agent, text

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


def skill_follower(request: Request) -> Answer:
    """An agent that loads the one skill installed (`farewell` or `greeter`) and writes what it
    says (`Write `...`` or `SHOUT `...``) to message.txt; the judge passes every item."""
    if "submit_grading" in tool_names(request):
        return grading(request)
    system = json.dumps(request.body.get("system", "")) + json.dumps(request.messages[:1])
    skill = "farewell" if "- farewell:" in system else "greeter"
    if request.turn == 0:
        return call("Skill", skill=skill)
    if request.turn == 1:
        body = " ".join(request.tool_results)
        match = re.search(r"(?:Write|SHOUT) `([^`]+)`", body)
        return call(
            "Write", file_path="message.txt", content=(match.group(1) if match else "?") + "\n"
        )
    return text("Done.")
