"""The orchestrator: settings → plan → execute → (grade inside each run) → results.

It only sequences the stages; each stage lives in its own package (docs/architecture.md).
Collaborators that touch the outside world (providers, the clock, where output goes) are
built by the caller and passed in, so tests drive the whole pipeline against loopback fakes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from evolve_action.execute.providers.registry import credentials
from evolve_action.execute.providers.setup import (
    ModelChoiceError,
    Providers,
    choose_judge,
    choose_models,
)
from evolve_action.model import provider_table
from evolve_action.model.evals import Suite
from evolve_action.model.outcomes import RunResult, Side
from evolve_action.model.provider import ProviderError
from evolve_action.pipeline.agents import (
    at_home,
    cannot_run,
    job_agents,
    open_harnesses,
    single_agent,
)
from evolve_action.pipeline.cost_plan import Costing, cost_plan
from evolve_action.pipeline.environment import open_harness, prepare_environment
from evolve_action.pipeline.execution import Budget, Outcome, run_plan
from evolve_action.pipeline.pricing import Prices
from evolve_action.pipeline.request import Loaded, Request
from evolve_action.pipeline.runner import RunEnvironment
from evolve_action.pipeline.stopping import Stop
from evolve_action.plan import judge_family
from evolve_action.plan.cache import RunCache
from evolve_action.plan.fingerprints import Fingerprinter
from evolve_action.plan.no_skill import arm_suites
from evolve_action.plan.planning import START_RUNS, Plan, RunSpec, plan_runs
from evolve_action.plan.ruler import CaseDiff, classify_all, skill_touched, with_rulers
from evolve_action.plan.selection import Selection, inherit_trigger_models, select, shard_plan
from evolve_action.plan.sides import Sides
from evolve_action.settings.inputs import Harness, Settings, SettingsError

if TYPE_CHECKING:  # `runs: auto` alone needs them (`run_adaptively`), after the first request
    from evolve_action.verdict.adaptive import Effort

log = logging.getLogger(__name__)


# No generated repr: on Python 3.11, `asyncio.run` ends with `signal.getsignal(SIGINT)`, which
# formats its handler (a partial holding the finished main task, hence its result) into an
# error message it then discards; a dataclass repr of every run cost seconds at 1,000 runs.
@dataclass(repr=False)
class Execution:
    settings: Settings
    models: list[str]
    judge_model: str
    plan: Plan
    results: list[RunResult]
    providers: Providers
    head_suites: list[Suite] = field(default_factory=list)
    base_suites: list[Suite] = field(default_factory=list)
    removed_suites: list[str] = field(default_factory=list)
    case_diffs: list[CaseDiff] = field(default_factory=list)  # what the PR changed in its evals
    not_run: list[RunSpec] = field(default_factory=list)
    cached: int = 0
    spent_usd: float = 0.0
    interrupted: bool = False
    effort: Effort | None = None  # `runs: auto`: runs per cell and why each stopped
    costing: Costing | None = None  # the projection before the first call, and its cut


@dataclass(frozen=True, repr=False)
class JobPlan:
    """What a job will run, decided before any call: planning's answer, executing's input."""

    models: list[str]
    judge: str
    keys: Mapping[str, str]  # each provider's key input (`provider_table.keys_of`)
    chosen: Selection
    plan: Plan
    diffs: list[CaseDiff]  # what the PR changed in its evals
    prices: Prices


@dataclass(repr=False)
class _Ran:
    """What executing a `JobPlan` did, whichever way it ended."""

    plan: Plan
    outcome: Outcome
    effort: Effort | None = None
    costing: Costing | None = None


async def plan_and_run(
    request: Request,
    settings: Settings,
    sides: Sides,
    loaded_head: Loaded,
    loaded_base: Loaded | None,
    *,
    on_done: Callable[[RunSpec, RunResult], None] | None = None,
    stop: Stop | None = None,
    prices: Prices | None = None,
    on_costing: Callable[[Costing], None] | None = None,
) -> Execution:
    """Plan, project its cost (and cut it to `max-cost-usd`), then execute with the cache and
    the budget, for one or both sides. `on_costing` hears the projection before the first
    call. A job told to stop before its first run, or a `dry-run`, plans and runs nothing."""
    job = plan_job(request, settings, sides, loaded_head, loaded_base, prices or Prices({}))
    return await execute_job(request, settings, job, on_done=on_done, stop=stop,
                             on_costing=on_costing)  # fmt: skip


def plan_job(
    request: Request,
    settings: Settings,
    sides: Sides,
    loaded_head: Loaded,
    loaded_base: Loaded | None,
    prices: Prices,
) -> JobPlan:
    """The models (each id checked before anything runs), the judge, the suites of each side
    and arm, and the runs: no provider is built and nothing is called here."""
    keys = provider_table.keys_of(settings)
    replay = request.replay_dir is not None
    priced = prices.overrides
    models = choose_models(
        settings.models, keys=keys, environ=request.environ, replay=replay, priced=priced
    )
    try:
        token = judge_family.judge_token(
            settings.judge_family, settings.judge_model, models,
            lambda p: replay or _keyed(p, keys, request.environ),
        )  # fmt: skip
    except SettingsError as exc:  # refused as a judge-model the job cannot run is
        raise ModelChoiceError(str(exc)) from None
    judge = choose_judge(token, keys=keys, environ=request.environ, replay=replay, priced=priced)
    head = inherit_trigger_models(loaded_head.suites)
    base = inherit_trigger_models(loaded_base.suites) if loaded_base else []
    chosen = select(head, base, sides, settings.mode)
    by_side = {Side.HEAD: chosen.head} | ({Side.BASE: chosen.base} if chosen.base else {})
    armed = arm_suites(chosen.head, settings.baseline, all_base=base if loaded_base else None)
    if armed:
        by_side[Side.NO_SKILL] = armed
    # A shard sees part of the PR only, so no wave can follow: `auto` runs a fixed 3 there.
    start = START_RUNS if settings.shard.count == 1 else None
    touched = {s.rel: skill_touched(s, sides.head_root, sides.changed) for s in chosen.head}
    diffs = classify_all(chosen.base, chosen.head, touched)
    planned = plan_runs(
        by_side, models, runs=settings.runs, start=start,
        agents=job_agents(settings), agent_check=cannot_run,
    )  # fmt: skip
    planned = at_home(planned, settings)
    plan = shard_plan(with_rulers(planned, chosen.base, diffs), settings.shard)
    return JobPlan(models, judge, keys, chosen, plan, diffs, prices)


def _keyed(provider: str, keys: Mapping[str, str], environ: Mapping[str, str]) -> bool:
    """Whether `provider` can be called: a key (input or variable), or a keyless base URL."""
    try:
        credentials(provider, api_key=keys.get(provider) or None, environ=environ)
    except ProviderError:
        return False
    return True


async def execute_job(
    request: Request,
    settings: Settings,
    job: JobPlan,
    *,
    on_done: Callable[[RunSpec, RunResult], None] | None = None,
    stop: Stop | None = None,
    on_costing: Callable[[Costing], None] | None = None,
) -> Execution:
    """Build the providers, project and cut, and run `job` (or only project it: `dry-run`)."""
    env, providers = prepare_environment(request, settings, job.models, job.judge, job.keys)
    budget = Budget(settings.max_cost_usd, prices=job.prices)
    ran = _Ran(job.plan, Outcome(not_run=list(job.plan.runs), interrupted=True))
    try:
        if settings.dry_run:
            ran = _dry_run(settings, job, on_costing)
        elif stop is None or not stop.requested:
            ran = await _run(request, settings, job, env, providers, budget, on_done, stop,
                             on_costing)  # fmt: skip
    finally:
        await providers.aclose()
    if ran.costing is not None and not settings.dry_run:
        providers.save_recordings()
    return Execution(
        settings=settings,
        models=job.models,
        judge_model=job.judge,
        plan=ran.plan,
        results=ran.outcome.results,
        providers=providers,
        head_suites=job.chosen.head,
        base_suites=job.chosen.base,
        removed_suites=job.chosen.removed,
        not_run=ran.outcome.not_run,
        cached=ran.outcome.cached,
        spent_usd=budget.spent_usd,
        interrupted=ran.outcome.interrupted,
        effort=ran.effort,
        case_diffs=job.diffs,
        costing=ran.costing,
    )


def _dry_run(
    settings: Settings, job: JobPlan, on_costing: Callable[[Costing], None] | None
) -> _Ran:
    # Nothing is called: the fingerprints of an SDK run need no harness; a CLI run's would
    # need its CLIs installed, so its cache hits are not seen here.
    costing = cost_plan(
        job.plan, settings=settings, fingerprinter=Fingerprinter(job.judge, ""),
        judge_model=job.judge, prices=job.prices,
    )  # fmt: skip
    if on_costing is not None:
        on_costing(costing)
    return _Ran(job.plan, Outcome(not_run=list(job.plan.runs)), costing=costing)


async def _run(
    request: Request,
    settings: Settings,
    job: JobPlan,
    env: RunEnvironment,
    providers: Providers,
    budget: Budget,
    on_done: Callable[[RunSpec, RunResult], None] | None,
    stop: Stop | None,
    on_costing: Callable[[Costing], None] | None,
) -> _Ran:
    options = dict(
        keys=job.keys, environ=request.environ, cache_dir=settings.cache_dir,
        limiters=providers.limiters, record_dir=request.record_dir, replay_dir=request.replay_dir,
    )  # fmt: skip
    # Several agents, or a skill run on the agent whose folder holds it: a harness each.
    named = tuple(dict.fromkeys(s.agent for s in job.plan.runs if s.agent))
    async with (
        open_harness(
            settings.harness if not job_agents(settings) else Harness.SDK, job.models,
            agent=single_agent(settings), **options,
        ) as env.harness,
        open_harnesses(named, job.models, **options) as env.agents,
    ):  # fmt: skip
        fingerprinter = Fingerprinter(
            job.judge,
            env.harness.describe() if env.harness else "",
            {agent: cli.describe() for agent, cli in env.agents.items()},
        )
        costing = cost_plan(
            job.plan, settings=settings, fingerprinter=fingerprinter, judge_model=job.judge,
            prices=job.prices,
        )  # fmt: skip
        if on_costing is not None:
            on_costing(costing)
        to_run = costing.to_run(job.plan)
        cache = RunCache(settings.cache_dir)

        async def run_wave(wave: Plan) -> Outcome:
            return await run_plan(
                wave, env, max_concurrency=settings.max_concurrency,
                limiters=providers.limiters, fingerprinter=fingerprinter,
                cache=cache, budget=budget, on_done=on_done, stop=stop,
                costing=costing, tell=on_costing,
            )  # fmt: skip

        if not to_run.adaptive:
            return _Ran(job.plan, await run_wave(to_run), costing=costing)
        outcome, effort = await run_adaptively(to_run, run_wave, settings, budget, job.diffs)
    # The waves of `auto` added to the plan that ran.
    ran = Plan([*to_run.runs, *costing.cut_runs], job.plan.skipped, job.plan.adaptive)
    return _Ran(ran, outcome, effort, costing)


async def run_adaptively(
    plan: Plan,
    run_wave: Callable[[Plan], Awaitable[Outcome]],
    settings: Settings,
    budget: Budget,
    diffs: Sequence[CaseDiff] = (),
    clock: Callable[[], float] = time.monotonic,
) -> tuple[Outcome, Effort]:
    """`runs: auto`: the start runs, then waves of extra runs where the verdict is open,
    until `max-runs`, the cost budget or `max-minutes` (counted from here) stops them."""
    from evolve_action.pipeline.adaptive_run import Limits, run_waves
    from evolve_action.verdict.adaptive import Design

    design = Design(START_RUNS, settings.max_runs, settings.alpha)
    limits = Limits(budget, clock() + settings.max_minutes * 60, clock)
    return await run_waves(plan, run_wave, design, limits, diffs)
