"""What runs need around them: the provider clients and the judge, and the harness (none
for the SDK loop, the real CLIs for `harness: cli`)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from evolve_action.execute.providers.setup import (
    Providers,
    build_providers,
)
from evolve_action.pipeline.request import Request
from evolve_action.pipeline.runner import RunEnvironment, UnavailableProvider
from evolve_action.settings.inputs import Harness, Settings

if TYPE_CHECKING:
    from evolve_action.execute.harness.run import CliHarness


@contextlib.asynccontextmanager
async def open_harness(
    harness: Harness, models: Sequence[str], **options: Any
) -> AsyncIterator[CliHarness | None]:
    """The job's harness: None for the SDK loop, else `open_cli_harness(models, **options)`,
    imported only then (its proxy, installer and staging are no part of an SDK run)."""
    if harness is Harness.SDK:
        yield None
        return
    from evolve_action.execute.harness.run import open_cli_harness

    async with open_cli_harness(models, **options) as cli:
        yield cli


def prepare_environment(
    request: Request,
    settings: Settings,
    models: Sequence[str],
    judge_model: str,
    keys: Mapping[str, str],
) -> tuple[RunEnvironment, Providers]:
    """The providers of `models` and the judge (keys: `provider_table.keys_of`), built, and
    what every run of the job shares."""
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
