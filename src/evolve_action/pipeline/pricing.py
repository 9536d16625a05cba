"""The prices a job counts with: the catalog's, dated, with the repository's overrides on top.

The catalog (`execute.providers.catalog`) prices every call as it is made. A repository whose
contract differs, or that runs a model the catalog has no price for, sets its own in
`.evolve.yaml` (evolve's `providers.<name>.models[] {id, input_per_mtok, output_per_mtok}`,
read once into `RepoConfig.prices`). Those win: each finished run is priced again from its
token counts (`reprice`, before the budget is charged), and the projection uses the same
function, so the budget, the comment and the projection all count one way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from evolve_action.execute.providers import catalog
from evolve_action.model.outcomes import RunResult, Usage
from evolve_action.settings.config import ModelPrice


@dataclass(frozen=True)
class Prices:
    overrides: Mapping[str, ModelPrice]

    def cost(self, model: str, usage: Usage) -> float | None:
        """What `usage` costs on `model` (provider-qualified); None: no price anywhere."""
        own = self.overrides.get(model)
        if own is None:
            return catalog.cost_usd(model, usage)
        info = catalog.lookup(model)
        read = info.cache_read_multiplier if info else 0.1
        write = info.cache_write_multiplier if info else 1.25
        inp = own.input_per_mtok
        total = (
            usage.input_tokens * inp
            + usage.cache_read_tokens * inp * read
            + usage.cache_write_tokens * inp * write
            + usage.output_tokens * own.output_per_mtok
        )
        return round(total / 1_000_000, 6)

    def as_of(self) -> str:
        """The prices' date in words, for every place a cost or projection is shown."""
        if not self.overrides:
            return catalog.PRICES_AS_OF
        n = len(self.overrides)
        return f"{catalog.PRICES_AS_OF} ({n} model{'s' * (n != 1)} priced by .evolve.yaml)"

    def reprice(self, run: RunResult) -> RunResult:
        """`run` with its agent's and judge's usage priced by the overrides (as is without)."""
        if not self.overrides:
            return run
        agent, judge = run.transcript.usage, run.judge.usage
        agent_cost = self.cost(run.model, agent) if agent.calls else agent.cost_usd
        judge_cost = judge.cost_usd
        if judge.calls and run.judge.model:
            judge_cost = self.cost(run.judge.model, judge)
        transcript = replace(run.transcript, usage=replace(agent, cost_usd=agent_cost))
        judged = replace(run.judge, usage=replace(judge, cost_usd=judge_cost))
        return replace(run, transcript=transcript, judge=judged)
