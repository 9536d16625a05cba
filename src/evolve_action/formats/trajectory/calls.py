"""Whether the agent's tool calls hold a trajectory assertion (`matchers.py` reads it): the
rule of AgentV 5's `agentv.trajectory` (scored as AgentV scores) and promptfoo's
`promptfoo.trajectory`, each registered by its family. Tool names match as globs,
case-sensitive, against every form of a step's name (`model.trajectory`).

Also the one way a check reads the run's trajectory (`run_trajectory`): the case's MCP
server names split the joined tool names some agents report.
"""

from __future__ import annotations

from collections.abc import Sequence

from evolve_action.formats.trajectory.matchers import ToolCount, ToolSequence, ToolsUsed, Trajectory
from evolve_action.formats.trajectory.order import in_order, strict
from evolve_action.formats.trajectory.rules import all_called, called, none_called
from evolve_action.formats.trajectory.wants import Naming, Outcome, named
from evolve_action.model.checking import CheckContext
from evolve_action.model.trajectory import ToolStep, trajectory_of
from evolve_action.model.trajectory import Trajectory as Run


def verdict(params: Trajectory, steps: Sequence[ToolStep]) -> tuple[bool, str]:
    """Whether the calls satisfy the assertion, and the evidence."""
    got = outcome(params, steps)
    return got.passed, got.evidence


def outcome(params: Trajectory, steps: Sequence[ToolStep]) -> Outcome:
    """The assertion's outcome; promptfoo and AgentV 5 score it pass/fail, so the order
    checks' partial credit is rounded down to 0 unless the order holds."""
    if isinstance(params, ToolsUsed):
        wants = [named(t, Naming.GLOB) for t in params.tools]
        # `not-` of a list: none of them was called (promptfoo's reading, not "some missing")
        return none_called(wants, steps) if params.inverse else all_called(wants, steps)
    if isinstance(params, ToolCount):
        got = called(named(params.tool, Naming.GLOB), steps, params.min, params.max)
    else:
        assert isinstance(params, ToolSequence)
        wants = [named(s, Naming.GLOB) for s in params.steps]
        got = strict(wants, steps) if params.exact else in_order(wants, steps)
    got = Outcome(got.passed, 1.0 if got.passed else 0.0, got.evidence)
    return got.inverted() if params.inverse else got


def run_trajectory(ctx: CheckContext) -> Run:
    """The finished run's trajectory, its MCP tools split by the servers the case declares."""
    return trajectory_of(ctx.transcript, (s.name for s in ctx.case.mcp_servers))
