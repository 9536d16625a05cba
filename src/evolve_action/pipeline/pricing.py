"""The prices a job counts with: the price table's, dated, with the repository's overrides on top.

The catalog (`execute.providers.catalog`, the `genai-prices` package read offline) prices
every call as it is made; `Prices.source` names that package, its version and its date. A
repository whose contract differs, or that runs a model the table has no price for, sets its
own in `.evolve.yaml` (evolve's `providers.<name>.models[] {id, input_per_mtok,
output_per_mtok}`, read once into `RepoConfig.prices`). Those win: each finished run is
priced again from its token counts (`reprice`, before the budget is charged), and the
projection uses the same function, so the budget, the comment and the projection all count
one way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from evolve_action.execute.providers import catalog
from evolve_action.model.outcomes import RunResult, Usage
from evolve_action.settings.config import ModelPrice


@dataclass(frozen=True)
class Prices:
    overrides: Mapping[str, ModelPrice]
    # The package and date of the table beneath the overrides, named wherever a cost is.
    source: catalog.PriceSource = field(default_factory=catalog.source)

    def cost(self, model: str, usage: Usage) -> float | None:
        """What `usage` costs on `model` (provider-qualified); None: no price anywhere."""
        own = self.overrides.get(model)
        if own is None:
            return catalog.cost_usd(model, usage)
        return _overridden(own, catalog.lookup(model)).cost_usd(usage)

    def as_of(self) -> str:
        """The prices' source and date in words, for every place a cost or projection is shown."""
        if not self.overrides:
            return str(self.source)
        n = len(self.overrides)
        return f"{self.source} ({n} model{'s' * (n != 1)} priced by .evolve.yaml)"

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


def _overridden(own: ModelPrice, known: catalog.ModelInfo | None) -> catalog.Rates:
    """The override's input and output rates; its cache rates in the table's proportion to
    input when the table knows the model, else the common 0.1× read and 1.25× write."""
    read, write = 0.1, 1.25
    if known is not None and known.rates is not None and known.rates.input.base > 0:
        base = known.rates.input.base
        read = known.rates.cache_read.base / base
        write = known.rates.cache_write.base / base
    inp = own.input_per_mtok
    return catalog.Rates(
        catalog.Rate(inp),
        catalog.Rate(own.output_per_mtok),
        catalog.Rate(inp * read),
        catalog.Rate(inp * write),
    )
