"""Several agent CLIs in one job (the `agents` input): which ones run, which models each can
run, and each one's harness.

A job of one agent (the `agent` input, or each model's vendor's CLI) is what it always was:
its runs name no agent, so its plan, fingerprints and comment are unchanged. With two or more,
every case runs on each agent that speaks its model's provider (`plan.planning` expands the
runs; an agent that cannot run a model is a note in the comment, not an error), each agent
gets its own harness, and the report keeps each (model, agent) apart (`model.lanes`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evolve_action.model.evals import split_model
from evolve_action.model.lanes import display
from evolve_action.plan.planning import Plan
from evolve_action.settings.inputs import Harness, Settings

if TYPE_CHECKING:
    from evolve_action.execute.harness.run import CliHarness

DEFAULT_FOLDER = ".claude/skills"  # where the SDK loop and Claude Code look: no agent's own


def job_agents(settings: Settings) -> tuple[str, ...]:
    """The agents each run is planned on: two or more named by `agents`, else none."""
    if settings.harness is not Harness.CLI or len(settings.agents) < 2:
        return ()
    return settings.agents


def single_agent(settings: Settings) -> str:
    """The CLI every model runs on in a job of one agent ("" for each vendor's own)."""
    if settings.agent:
        return settings.agent
    return settings.agents[0] if len(settings.agents) == 1 else ""


def home_agent(rel: str) -> str:
    """The agent whose own skills folder holds this eval file (`.github/skills/x/evals/...` is
    Copilot's), "" when it sits in none or in the default one (`.claude/skills`)."""
    from evolve_action.execute.harness import registry

    for harness in registry.HARNESSES.values():
        if rel.startswith(harness.skills_dir + "/") and harness.skills_dir != DEFAULT_FOLDER:
            return harness.name
    return ""


def at_home(plan: Plan, settings: Settings) -> Plan:
    """Under `harness: cli` with no agent chosen, a skill kept only in one agent's folder runs
    on that agent (where it can run the model), so it is never staged where its own agent would
    not look for it unnoticed; the comment names the agent (`model.lanes`)."""
    if settings.harness is not Harness.CLI or settings.agent or settings.agents:
        return plan
    runs = []
    for spec in plan.runs:
        home = home_agent(spec.suite.rel) if spec.suite.agent else ""
        runs.append(
            replace(spec, agent=home) if home and not cannot_run(home, spec.model) else spec
        )
    return Plan(runs, plan.skipped, plan.adaptive)


def cannot_run(agent: str, model: str) -> str:
    """Why `agent` does not run `model` ("" when it does), as the comment's note says it."""
    from evolve_action.execute.harness import registry

    provider, _ = split_model(model)
    harness = registry.HARNESSES.get(agent)
    if harness is None or provider in harness.providers:
        return ""
    able = ", ".join(harness.providers)
    return (
        f"{display(agent)} runs {able} models, not {provider}: this model's runs on it were not"
        " planned (the other agents ran it)"
    )


def recordings_of(directory: Path | None, agent: str) -> Path | None:
    """Where `agent`'s harness keeps its recordings in a job of several (None: none kept)."""
    return None if directory is None else directory / "agents" / agent


@contextlib.asynccontextmanager
async def open_harnesses(
    agents: Sequence[str], models: Sequence[str], **options: Any
) -> AsyncIterator[dict[str, CliHarness]]:
    """One CLI harness per agent (its own proxy and binaries), open for the job. Each records
    to and replays from its own subfolder of the recordings (`recordings_of`): two agents'
    harnesses write the same `cli-<provider>.json` names, and the last to close would
    overwrite the others'."""
    if not agents:  # an SDK job, or one CLI for all: nothing of the harnesses is loaded
        yield {}
        return
    from evolve_action.execute.harness.run import open_cli_harness

    async with contextlib.AsyncExitStack() as stack:
        opened = {}
        for agent in agents:
            able = [m for m in models if not cannot_run(agent, m)]
            own = {k: recordings_of(options.get(k), agent) for k in ("record_dir", "replay_dir")}
            context = open_cli_harness(able, **{**options, **own, "agent": agent})
            opened[agent] = await stack.enter_async_context(context)
        yield opened
