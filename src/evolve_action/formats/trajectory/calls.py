"""Whether the agent's tool calls hold a trajectory assertion (`matchers.py` reads it): the
rule of AgentV 5's `agentv.trajectory` (scored as AgentV scores) and promptfoo's
`promptfoo.trajectory`, each registered by its family. Tool names match as globs,
case-sensitive."""

from __future__ import annotations

from evolve_action.formats.trajectory.matchers import ToolCount, ToolSequence, ToolsUsed, Trajectory
from evolve_action.model.outcomes import Transcript
from evolve_action.util.globs import name_matches


def verdict(params: Trajectory, tools: list[str]) -> tuple[bool, str]:
    """Whether the calls satisfy the assertion, and the evidence."""
    actual = ", ".join(tools) or "(none)"
    if isinstance(params, ToolsUsed):
        used = [p for p in params.tools if any(name_matches(p, t) for t in tools)]
        held = not used if params.inverse else len(used) == len(params.tools)
        return held, f"used {used or 'none'} of {list(params.tools)}; calls: {actual}"
    if isinstance(params, ToolCount):
        count = sum(name_matches(params.tool, t) for t in tools)
        inside = count >= params.min and (params.max is None or count <= params.max)
        return inside != params.inverse, f"{params.tool} called {count} time(s); calls: {actual}"
    assert isinstance(params, ToolSequence)
    steps = params.steps
    if params.exact:
        held = len(tools) == len(steps) and all(
            name_matches(s, t) for t, s in zip(tools, steps, strict=False)
        )
    else:
        at = 0
        for tool in tools:
            if at < len(steps) and name_matches(steps[at], tool):
                at += 1
        held = at == len(steps)
    return held != params.inverse, f"calls: {actual}"


def tool_names(transcript: Transcript) -> list[str]:
    return [c.name for c in transcript.tool_calls]
