"""The orchestrator: settings → plan → execute → (grade inside each run) → results.

It only sequences the stages; each stage lives in its own module. Collaborators that touch
the outside world (providers, the clock, where output goes) are built by the caller and
passed in, so tests drive the whole pipeline against loopback fakes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evolve_action.config import RepoConfig, load_config
from evolve_action.formats import load_all
from evolve_action.model import LoadResult, Problem, Suite
from evolve_action.outcomes import ErrorKind, RunResult, Side, Status
from evolve_action.planning import Plan, RunSpec, plan_runs
from evolve_action.providers.setup import (
    Providers,
    build_providers,
    choose_judge,
    choose_models,
)
from evolve_action.runner import RunEnvironment, UnavailableProvider, execute
from evolve_action.scheduler import Job, Scheduler
from evolve_action.settings import INPUTS, Settings, field_name, from_values

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
    """Inputs win over the repository config file, which wins over the defaults."""
    raw = dict(request.values)
    config_path = Path(raw["config"]) if raw.get("config", "").strip() else None
    loaded = load_config(request.root, config_path)
    config = loaded.config
    for spec in INPUTS:
        if raw.get(spec.name, "").strip():
            continue
        value = getattr(config, field_name(spec.name), None)
        if value is None:
            continue
        if isinstance(value, tuple):
            raw[spec.name] = ",".join(value)
        elif isinstance(value, bool):
            raw[spec.name] = "true" if value else "false"
        else:
            raw[spec.name] = str(value)
    return from_values(raw), config, loaded.problems


def load_suites(root: Path, settings: Settings, config: RepoConfig) -> Loaded:
    out = Loaded()
    for result in load_all(root, paths=settings.paths, layout=config.layout or "auto"):
        if result.ok and result.suite is not None:
            out.suites.append(result.suite)
            out.warnings.extend(p for p in result.problems if p not in result.errors)
        else:
            out.invalid.append(result)
    return out


@dataclass
class Execution:
    settings: Settings
    models: list[str]
    judge_model: str
    plan: Plan
    results: list[RunResult]
    providers: Providers


async def execute_plan(
    plan: Plan,
    env: RunEnvironment,
    *,
    max_concurrency: int,
    providers: Providers,
    on_done: Callable[[RunSpec, RunResult], None] | None = None,
) -> list[RunResult]:
    """Run every planned run concurrently; results come back in plan order."""
    specs = plan.runs

    def job(spec: RunSpec) -> Job[RunResult]:
        async def run() -> RunResult:
            return await execute(spec, env)

        return Job(provider=spec.model.split("/", 1)[0], run=run, label=spec.key)

    def done(index: int, outcome: object) -> None:
        value = getattr(outcome, "value", None)
        if on_done is not None and isinstance(value, RunResult):
            on_done(specs[index], value)

    jobs = [job(spec) for spec in specs]
    scheduler: Scheduler[RunResult] = Scheduler(
        max_concurrency=max_concurrency, limiters=providers.limiters, on_done=done
    )
    outcomes = await scheduler.run(jobs)
    results = []
    for spec, outcome in zip(specs, outcomes, strict=True):
        if outcome.value is not None:
            results.append(outcome.value)
        else:  # a bug of ours in one run must not lose the others
            results.append(
                RunResult(
                    suite=spec.suite.rel,
                    case_id=spec.case.id,
                    model=spec.model,
                    side=spec.side,
                    repetition=spec.repetition,
                    status=Status.ERROR,
                    error=f"internal error: {type(outcome.error).__name__}: {outcome.error}",
                    error_kind=ErrorKind.INTERNAL,
                )
            )
    return results


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


async def run_head_only(
    request: Request,
    settings: Settings,
    suites: Sequence[Suite],
    *,
    on_done: Callable[[RunSpec, RunResult], None] | None = None,
) -> Execution:
    """`run --base none`: every suite of the working tree, head side only."""
    keys = {"anthropic": settings.anthropic_api_key, "openai": settings.openai_api_key}
    replay = request.replay_dir is not None
    models = choose_models(settings.models, keys=keys, environ=request.environ, replay=replay)
    judge = choose_judge(settings.judge_model, keys=keys, environ=request.environ, replay=replay)
    plan = plan_runs({Side.HEAD: suites}, models, runs=settings.runs)
    env, providers = prepare_environment(request, settings, models, judge)
    try:
        results = await execute_plan(
            plan,
            env,
            max_concurrency=settings.max_concurrency,
            providers=providers,
            on_done=on_done,
        )
    finally:
        await providers.aclose()
    providers.save_recordings()
    return Execution(settings, models, judge, plan, results, providers)
