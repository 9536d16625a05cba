"""The orchestrator: settings → plan → execute → (grade inside each run) → results.

It only sequences the stages; each stage lives in its own package (docs/architecture.md).
Collaborators that touch the outside world (providers, the clock, where output goes) are
built by the caller and passed in, so tests drive the whole pipeline against loopback fakes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from evolve_action.execute.providers.setup import (
    Providers,
    choose_judge,
    choose_models,
)
from evolve_action.model.evals import Suite
from evolve_action.model.outcomes import RunResult, Side
from evolve_action.pipeline.adaptive_run import Limits, run_waves
from evolve_action.pipeline.cost_plan import Costing, cost_plan
from evolve_action.pipeline.environment import open_harness, prepare_environment
from evolve_action.pipeline.execution import Budget, Outcome, run_plan
from evolve_action.pipeline.pricing import Prices
from evolve_action.pipeline.request import Loaded, Request
from evolve_action.pipeline.stopping import Stop
from evolve_action.plan.cache import RunCache
from evolve_action.plan.fingerprints import Fingerprinter
from evolve_action.plan.no_skill import arm_suites
from evolve_action.plan.planning import START_RUNS, Plan, RunSpec, plan_runs
from evolve_action.plan.ruler import CaseDiff, classify_all, skill_touched, with_rulers
from evolve_action.plan.selection import Selection, inherit_trigger_models, select, shard_plan
from evolve_action.plan.sides import Sides
from evolve_action.settings.inputs import Settings
from evolve_action.verdict.adaptive import Design, Effort

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
    keys = {"anthropic": settings.anthropic_api_key, "openai": settings.openai_api_key}
    replay = request.replay_dir is not None
    models = choose_models(settings.models, keys=keys, environ=request.environ, replay=replay)
    judge = choose_judge(settings.judge_model, keys=keys, environ=request.environ, replay=replay)
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
    planned = plan_runs(by_side, models, runs=settings.runs, start=start)
    plan = shard_plan(with_rulers(planned, chosen.base, diffs), settings.shard)
    env, providers = prepare_environment(request, settings, models, judge)
    prices = prices or Prices({})
    budget = Budget(settings.max_cost_usd, prices=prices)
    cache = RunCache(settings.cache_dir)
    effort = None
    outcome = Outcome(not_run=list(plan.runs), interrupted=True)
    costing: Costing | None = None
    try:
        if settings.dry_run:
            # Nothing is called: the fingerprints of an SDK run need no harness; a CLI run's
            # would need its CLIs installed, so its cache hits are not seen here.
            costing = cost_plan(
                plan, settings=settings, fingerprinter=Fingerprinter(judge, ""),
                judge_model=judge, prices=prices,
            )  # fmt: skip
            if on_costing is not None:
                on_costing(costing)
            outcome = Outcome(not_run=list(plan.runs))
            done = _execution(
                settings, models, judge, plan, providers, chosen, outcome, budget, diffs=diffs
            )
            done.costing = costing
            return done
        if stop is not None and stop.requested:
            return _execution(
                settings, models, judge, plan, providers, chosen, outcome, budget, diffs=diffs
            )
        async with open_harness(
            settings.harness,
            models,
            keys=keys,
            environ=request.environ,
            cache_dir=settings.cache_dir,
            limiters=providers.limiters,
            record_dir=request.record_dir,
            replay_dir=request.replay_dir,
        ) as env.harness:
            fingerprinter = Fingerprinter(judge, env.harness.describe() if env.harness else "")
            costing = cost_plan(
                plan, settings=settings, fingerprinter=fingerprinter, judge_model=judge,
                prices=prices,
            )  # fmt: skip
            if on_costing is not None:
                on_costing(costing)
            to_run = costing.to_run(plan)

            async def run_wave(wave: Plan) -> Outcome:
                return await run_plan(
                    wave,
                    env,
                    max_concurrency=settings.max_concurrency,
                    limiters=providers.limiters,
                    fingerprinter=fingerprinter,
                    cache=cache,
                    budget=budget,
                    on_done=on_done,
                    stop=stop,
                    costing=costing,
                    tell=on_costing,
                )

            if to_run.adaptive:
                outcome, effort = await run_adaptively(to_run, run_wave, settings, budget, diffs)
            else:
                outcome = await run_wave(to_run)
            if to_run is not plan:  # the waves of `auto` added to the plan that ran
                plan = Plan([*to_run.runs, *costing.cut_runs], plan.skipped, plan.adaptive)
    finally:
        await providers.aclose()
    providers.save_recordings()
    done = _execution(
        settings, models, judge, plan, providers, chosen, outcome, budget, effort, diffs=diffs
    )
    done.costing = costing
    return done


def _execution(
    settings: Settings,
    models: list[str],
    judge: str,
    plan: Plan,
    providers: Providers,
    chosen: Selection,
    outcome: Outcome,
    budget: Budget,
    effort: Effort | None = None,
    *,
    diffs: list[CaseDiff],
) -> Execution:
    return Execution(
        settings=settings,
        models=models,
        judge_model=judge,
        plan=plan,
        results=outcome.results,
        providers=providers,
        head_suites=chosen.head,
        base_suites=chosen.base,
        removed_suites=chosen.removed,
        not_run=outcome.not_run,
        cached=outcome.cached,
        spent_usd=budget.spent_usd,
        interrupted=outcome.interrupted,
        effort=effort,
        case_diffs=diffs,
    )


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
    design = Design(START_RUNS, settings.max_runs, settings.alpha)
    limits = Limits(budget, clock() + settings.max_minutes * 60, clock)
    return await run_waves(plan, run_wave, design, limits, diffs)
