"""The orchestrator: settings → plan → execute → (grade inside each run) → results.

It only sequences the stages; each stage lives in its own module. Collaborators that touch
the outside world (providers, the clock, where output goes) are built by the caller and
passed in, so tests drive the whole pipeline against loopback fakes.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from evolve_action.cache import RunCache
from evolve_action.changes import affected
from evolve_action.config import RepoConfig
from evolve_action.execution import Budget, execute_plan
from evolve_action.fingerprints import Fingerprinter
from evolve_action.formats import load_all
from evolve_action.harness.run import open_harness
from evolve_action.layering import settings_for
from evolve_action.model import Format, LoadResult, Problem, Suite
from evolve_action.outcomes import RunResult, Side
from evolve_action.planning import Plan, RunSpec, plan_runs
from evolve_action.providers.setup import (
    Providers,
    build_providers,
    choose_judge,
    choose_models,
)
from evolve_action.runner import RunEnvironment, UnavailableProvider
from evolve_action.settings import Mode, Settings, Shard
from evolve_action.sides import Sides

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Request:
    """One invocation: raw input values plus the local-only options."""

    values: Mapping[str, str]  # input name → raw string, as given (flags or INPUT_*)
    environ: Mapping[str, str]  # for the SDKs' own variables (keys, base URLs)
    root: Path
    record_dir: Path | None = None
    replay_dir: Path | None = None
    keep_workspaces: bool = False


@dataclass
class Loaded:
    suites: list[Suite] = field(default_factory=list)
    invalid: list[LoadResult] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


def effective_settings(request: Request) -> tuple[Settings, RepoConfig, tuple[Problem, ...]]:
    """Inputs win over the repository config file, which wins over the defaults
    (`layering.settings_for`, shared with `report`)."""
    return settings_for(request.values, request.root)


def load_suites(root: Path, settings: Settings, config: RepoConfig) -> Loaded:
    out = Loaded()
    for result in load_all(root, paths=settings.paths, layout=config.layout or "auto"):
        if result.ok and result.suite is not None:
            out.suites.append(result.suite)
            out.warnings.extend(p for p in result.problems if p not in result.errors)
        else:
            out.invalid.append(result)
    return out


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
    not_run: list[RunSpec] = field(default_factory=list)
    cached: int = 0
    spent_usd: float = 0.0
    interrupted: bool = False


def prepare_environment(
    request: Request, settings: Settings, models: Sequence[str], judge_model: str
) -> tuple[RunEnvironment, Providers]:
    keys = {"anthropic": settings.anthropic_api_key, "openai": settings.openai_api_key}
    providers = build_providers(
        [*models, judge_model],
        keys=keys,
        environ=request.environ,
        max_concurrency=settings.max_concurrency,
        record_dir=request.record_dir,
        replay_dir=request.replay_dir,
    )
    judge_id = judge_model.split("/", 1)[0]
    judge_provider = providers.built.get(judge_id)
    if judge_provider is None and judge_id in providers.errors:
        judge_provider = UnavailableProvider(providers.errors[judge_id])
    env = RunEnvironment(
        providers=providers.built,
        provider_errors=providers.errors,
        judge_provider=judge_provider,
        judge_model=judge_model,
        max_turns=settings.max_turns,
        timeout_s=settings.timeout_seconds,
        network=settings.agent_network,
        keep_workspaces=request.keep_workspaces,
    )
    return env, providers


def inherit_trigger_models(suites: Sequence[Suite]) -> list[Suite]:
    """A trigger set runs on the models its sibling evals file allows (evolve §2)."""
    evals_models = {
        PurePosixPath(s.rel).parent: s.models for s in suites if s.format is Format.EVOLVE
    }
    out = []
    for suite in suites:
        sibling = evals_models.get(PurePosixPath(suite.rel).parent)
        if suite.format is Format.TRIGGERS and not suite.models and sibling:
            suite = replace(suite, models=sibling)
        out.append(suite)
    return out


@dataclass
class Selection:
    head: list[Suite]
    base: list[Suite]
    removed: list[str]  # eval files the change deleted


def select(head: Sequence[Suite], base: Sequence[Suite], sides: Sides, mode: Mode) -> Selection:
    """The suites to run on each side: all of them, or those the change touched."""
    if sides.base_root is None:
        return Selection(list(head), [], [])
    head_rels = {s.rel for s in head}
    everything = mode is Mode.ALL
    chosen = list(head) if everything else affected(head, sides.head_root, sides.changed)
    rels = {s.rel for s in chosen}
    removed = [
        s.rel
        for s in base
        if s.rel not in head_rels and (mode is Mode.ALL or s.rel in sides.changed)
    ]
    return Selection(chosen, [s for s in base if s.rel in rels], removed)


def shard_plan(plan: Plan, shard: Shard) -> Plan:
    """A stable part of the plan: every run lands in exactly one of `count` shards."""
    if shard.count == 1:
        return plan
    keep = [
        r
        for r in plan.runs
        if int(hashlib.sha256(r.key.encode()).hexdigest()[:8], 16) % shard.count == shard.index - 1
    ]
    return Plan(keep, plan.skipped)


async def run_job(
    request: Request,
    settings: Settings,
    sides: Sides,
    loaded_head: Loaded,
    loaded_base: Loaded | None,
    *,
    on_done: Callable[[RunSpec, RunResult], None] | None = None,
) -> Execution:
    """Plan, then execute with the cache and the budget, for one or both sides."""
    keys = {"anthropic": settings.anthropic_api_key, "openai": settings.openai_api_key}
    replay = request.replay_dir is not None
    models = choose_models(settings.models, keys=keys, environ=request.environ, replay=replay)
    judge = choose_judge(settings.judge_model, keys=keys, environ=request.environ, replay=replay)
    head = inherit_trigger_models(loaded_head.suites)
    base = inherit_trigger_models(loaded_base.suites) if loaded_base else []
    chosen = select(head, base, sides, settings.mode)
    by_side = {Side.HEAD: chosen.head} | ({Side.BASE: chosen.base} if chosen.base else {})
    plan = shard_plan(plan_runs(by_side, models, runs=settings.runs), settings.shard)
    env, providers = prepare_environment(request, settings, models, judge)
    budget = Budget(settings.max_cost_usd)
    try:
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
            outcome = await execute_plan(
                plan,
                env,
                max_concurrency=settings.max_concurrency,
                limiters=providers.limiters,
                fingerprinter=Fingerprinter(judge, env.harness.describe() if env.harness else ""),
                cache=RunCache(settings.cache_dir),
                budget=budget,
                on_done=on_done,
            )
    finally:
        await providers.aclose()
    providers.save_recordings()
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
    )
