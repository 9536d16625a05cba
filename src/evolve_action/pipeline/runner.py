"""Execute one planned run: workspace, agent, grading → a `RunResult` (docs/design.md §Running).

Every failure that leaves nothing gradable becomes a run of status `error` with its kind
(a missing key, a provider outage after retries, a workspace that could not be built); it is
never graded as a failure, and whatever the agent did before is kept in the transcript.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from evolve_action.execute.agent import AgentError, conversation, limits, run_agent
from evolve_action.execute.mcp.servers import open_servers
from evolve_action.execute.sandbox.confine import Confinement
from evolve_action.execute.setup_commands import SetupError, prepare_workspace
from evolve_action.execute.skill_install import SKILLS_DIR, WorkspaceError
from evolve_action.execute.tools.run import WorkspaceTools, system_prompt
from evolve_action.execute.tools.specs import AGENT_TOOLS, JUDGE_TOOLS, TRIGGER_TOOLS
from evolve_action.execute.workspace import Workspace, is_bare, prepare
from evolve_action.model.evals import Case, CaseKind, Suite, split_model
from evolve_action.model.outcomes import ErrorKind, RulerGrade, RunResult, Status, Transcript
from evolve_action.model.provider import ChatRequest, ChatResponse, Provider, ProviderError
from evolve_action.model.snapshot import Snapshot, take
from evolve_action.plan.planning import RunSpec

if TYPE_CHECKING:
    from evolve_action.execute.harness.run import CliHarness
    from evolve_action.grade.grading import Graded

log = logging.getLogger(__name__)

TRIGGER_TURNS = 2  # evolve: `--max-turns 2` with only Skill and Read allowed
TRIGGER_TIMEOUT_S = 120.0


@dataclass
class RunEnvironment:
    """What every run of one job shares: providers, the judge, limits, confinement choices."""

    providers: Mapping[str, Provider]  # by provider id; missing → the run errors with `auth`
    provider_errors: Mapping[str, ProviderError] = field(default_factory=dict)
    judge_provider: Provider | None = None  # None: judge items fail with "no judge configured"
    judge_model: str = ""
    max_turns: int | None = None
    timeout_s: float | None = None
    network: bool = False
    keep_workspaces: bool = False
    harness: CliHarness | None = None  # `harness: cli`: the real CLIs run the agent
    # With several agents (`agents`): each one's harness, which runs the specs naming it.
    agents: Mapping[str, CliHarness] = field(default_factory=dict)

    def cli_for(self, spec: RunSpec) -> CliHarness | None:
        """The harness that runs `spec`'s agent: its agent's, else the job's one."""
        return self.agents.get(spec.agent, self.harness) if spec.agent else self.harness


def error_result(
    spec: RunSpec, kind: ErrorKind, message: str, transcript: Transcript | None = None
) -> RunResult:
    """A run that produced nothing gradable; `transcript` keeps whatever was obtained."""
    return RunResult(
        suite=spec.suite.rel,
        case_id=spec.case.id,
        model=spec.model,
        agent=spec.agent,
        side=spec.side,
        repetition=spec.repetition,
        status=Status.ERROR,
        transcript=transcript if transcript is not None else Transcript(),
        error=message,
        error_kind=kind,
    )


async def run_and_grade(spec: RunSpec, env: RunEnvironment) -> RunResult:
    """Run and grade one (case, model, side, repetition)."""
    provider_id, _ = split_model(spec.model)
    provider = env.providers.get(provider_id)
    if provider is None:
        failure = env.provider_errors.get(provider_id)
        message = str(failure) if failure else f"no provider {provider_id!r} is configured"
        kind = failure.kind if failure else ErrorKind.AUTH
        return error_result(spec, kind, message, Transcript())
    return await in_workspace(
        spec, env, lambda confinement, ws: _run_in(spec, env, provider, confinement, ws)
    )


async def in_workspace(
    spec: RunSpec,
    env: RunEnvironment,
    work: Callable[[Confinement, Workspace], Awaitable[RunResult]],
) -> RunResult:
    """`work` in a fresh workspace of `spec`'s case, confined, removed afterwards."""
    cli = env.cli_for(spec) if spec.suite.agent else None
    # The no-skill arm: the same workspace, no skill listed or loadable.
    with_skill, tracked = spec.suite.agent and spec.with_skill, spec.suite.agent
    make = functools.partial(
        prepare,
        spec.suite,
        spec.case,
        keep=env.keep_workspaces,
        with_skill=with_skill,
        tracked=tracked,
        skills_dir=cli.skills_dir(spec.model) if cli else SKILLS_DIR,
    )
    try:
        if is_bare(spec.case, with_skill=with_skill, tracked=tracked):
            workspace = make()  # a few system calls: less than the hop to a thread and back
        else:
            workspace = await _in_thread(make)
    except (WorkspaceError, OSError) as exc:
        return error_result(spec, ErrorKind.WORKSPACE, f"workspace: {exc}", Transcript())
    confinement = Confinement(workspace.root, network=env.network)
    try:
        return await work(confinement, workspace)
    finally:
        confinement.release()
        if workspace.bare:
            workspace.cleanup()
        else:
            await asyncio.shield(asyncio.to_thread(workspace.cleanup))


async def _in_thread(make: Callable[[], Workspace]) -> Workspace:
    """`make` off the event loop: git and file copies would stall every other run in flight.
    A future, not a task: `asyncio.run` cancels tasks left at its end, and this one must
    complete; a job stopped meanwhile has the workspace removed once it is built."""
    preparing = asyncio.get_running_loop().run_in_executor(None, make)
    try:
        return await asyncio.shield(preparing)
    except asyncio.CancelledError:
        preparing.add_done_callback(_remove_when_built)
        raise


def _remove_when_built(preparing: asyncio.Future[Workspace]) -> None:
    if not preparing.cancelled() and preparing.exception() is None:
        preparing.result().cleanup()


async def _run_in(
    spec: RunSpec,
    env: RunEnvironment,
    provider: Provider,
    confinement: Confinement,
    workspace: Workspace,
) -> RunResult:
    limit = limits(spec.case, env.max_turns, env.timeout_s)
    try:  # before the agent's clock starts: the setup is not the agent's time
        setup_notes = await prepare_workspace(
            spec.case.setup_commands,
            confinement.run,
            workspace.root,
            workspace.rebaseline,
            timeout_s=limit.timeout_s,
        )
    except (SetupError, WorkspaceError) as exc:
        return error_result(spec, ErrorKind.WORKSPACE, f"workspace: {exc}", Transcript())
    trigger = spec.case.kind is CaseKind.TRIGGER
    max_turns = TRIGGER_TURNS if trigger else limit.max_turns
    timeout_s = min(limit.timeout_s, TRIGGER_TIMEOUT_S) if trigger else limit.timeout_s
    try:
        transcript = await _act(spec, env, provider, confinement, workspace, max_turns, timeout_s)
    except AgentError as exc:
        return error_result(spec, exc.kind, str(exc), exc.transcript)
    known = await _settle(transcript, workspace, confinement, setup_notes)
    if (
        transcript.stop_reason == "timeout"
        and not transcript.final_text
        and not transcript.tool_calls
    ):
        return error_result(
            spec, ErrorKind.TIMEOUT, f"no output within {timeout_s:g} s", transcript
        )
    # Taken before any check runs: a `command` check may change the workspace.
    snapshot = Snapshot(complete=False)
    if known:
        arguments = [c.arguments for c in transcript.tool_calls]
        files = transcript.changed_files  # read off the event loop; none: cheaper than a hop
        snap = functools.partial(take, workspace.root, files, transcript.final_text, arguments)
        snapshot = await asyncio.to_thread(snap) if files else snap()
    return await _graded(spec, env, workspace.root, confinement, transcript, snapshot)


async def _act(
    spec: RunSpec,
    env: RunEnvironment,
    provider: Provider,
    confinement: Confinement,
    workspace: Workspace,
    max_turns: int,
    timeout_s: float,
) -> Transcript:
    """The agent's part of the run: the CLI harness, or our SDK loop with the tool set of the
    case's kind. Raises `AgentError` when nothing gradable came out."""
    case, suite, root = spec.case, spec.suite, workspace.root
    cli = env.cli_for(spec)
    if cli is not None and suite.agent:
        return await cli.run(
            spec, root, max_turns=max_turns, timeout_s=timeout_s, network=env.network
        )
    # A suite that evaluates a model rather than a skill offers no tools: one chat turn.
    offer = (TRIGGER_TOOLS if case.kind is CaseKind.TRIGGER else AGENT_TOOLS) if suite.agent else ()
    deadline = time.monotonic() + timeout_s
    system = case.system or ""
    if suite.agent:
        system = system_prompt(workspace.skills, inline_body=case.system)
    # The case's MCP servers live as long as the agent does, inside its confinement; a run
    # offering no tools starts none.
    servers = case.mcp_servers if offer else ()
    async with open_servers(servers, confinement, label=case.id, deadline=deadline) as mcp:
        tools = WorkspaceTools(
            root, confinement, workspace.skills, offer, deadline=deadline, mcp=mcp
        )
        return await run_agent(
            provider=provider,
            model=spec.model,
            system=system,
            messages=conversation(case),
            tools=tools,
            max_turns=max_turns,
            timeout_s=timeout_s,
            label=case.id,
            follow_ups=case.follow_ups,
        )


async def _settle(
    transcript: Transcript,
    workspace: Workspace,
    confinement: Confinement,
    setup_notes: Sequence[str],
) -> bool:
    """Add to the transcript what the workspace shows after the agent (the files it changed)
    and the notes of the setup and confinement. False: its changes cannot be known."""
    known = True
    try:
        # Git off the event loop; an untracked workspace has nothing to ask it.
        if workspace.tracked:
            transcript.changed_files = await asyncio.to_thread(workspace.changed_files)
    except WorkspaceError as exc:  # the agent removed or broke its workspace
        transcript.notes.append(f"changed files unknown: {exc}")
        known = False
    transcript.notes[:0] = setup_notes
    note = confinement.note()
    if note:
        transcript.notes.append(note)
    return known


async def _graded(
    spec: RunSpec,
    env: RunEnvironment,
    root: Path,
    confinement: Confinement,
    transcript: Transcript,
    snapshot: Snapshot,
) -> RunResult:
    ruler = spec.ruler
    also = [(ruler.suite, ruler.case)] if ruler else []
    graded = await grade_in(spec, env, root, confinement, transcript, also)
    if graded.judge.error_kind is not None:
        # The judge's provider failed after retries: the run was not graded, not failed.
        result = error_result(
            spec, graded.judge.error_kind, f"judge: {graded.judge.error}", transcript
        )
        result.judge = graded.judge
        return result
    return RunResult(
        suite=spec.suite.rel,
        case_id=spec.case.id,
        model=spec.model,
        side=spec.side,
        repetition=spec.repetition,
        status=graded.status,
        score=graded.score,
        items=graded.items,
        transcript=transcript,
        judge=graded.judge,
        ruler=ruler_grade(spec, graded.also),
        snapshot=snapshot,
        agent=spec.agent,
    )


async def grade_in(
    spec: RunSpec,
    env: RunEnvironment,
    root: Path,
    confinement: Confinement,
    transcript: Transcript,
    also: Sequence[tuple[Suite, Case]] = (),
) -> Graded:
    """Grade `spec`'s case (and `also` base's, in the same judge call) in this workspace."""
    # Grading is loaded while the first answer is awaited (`pipeline.first_request`),
    # not before the first request.
    from evolve_action.grade.checks import CheckContext
    from evolve_action.grade.grading import JudgeSetup, grade_run

    limit = limits(spec.case, env.max_turns, env.timeout_s)
    ctx = CheckContext(
        suite=spec.suite,
        case=spec.case,
        workspace=root,
        transcript=transcript,
        run_command=confinement.run,
        timeout_s=limit.timeout_s,
        network=env.network,
    )
    judge = None
    if env.judge_provider is not None:
        judge = JudgeSetup(
            provider=env.judge_provider,
            model=env.judge_model,
            tools=WorkspaceTools(root, None, (), JUDGE_TOOLS),
            timeout_s=limit.timeout_s,
        )
    return await grade_run(ctx, judge, also=also)


def ruler_grade(spec: RunSpec, also: Sequence[Graded]) -> RulerGrade | None:
    """The run under base's checks, kept beside its own grading (and in the cache)."""
    if spec.ruler is None or not also:
        return None
    base, ruler = also[0], spec.ruler
    return RulerGrade(ruler.key, ruler.case.id, base.status, base.score, tuple(base.items))


class UnavailableProvider:
    """Stands in for a provider that could not be built (no key): every call fails with why.

    Used for the judge, so its items fail with `judge error: no API key for …` instead of a
    vaguer message, exactly once per run.
    """

    def __init__(self, error: ProviderError) -> None:
        self.id = error.provider or "unavailable"
        self.answers_with_schema = False  # it never answers
        self.error = error

    async def complete(self, request: ChatRequest) -> ChatResponse:
        raise self.error
