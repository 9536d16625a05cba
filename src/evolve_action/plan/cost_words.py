"""The projection and the budget's cut in words: one text for the log, the summary and the
comment, so the three never disagree."""

from __future__ import annotations

from evolve_action.model.spend import cents
from evolve_action.plan import cost_prior
from evolve_action.plan.budget_cut import Cut
from evolve_action.plan.projection import Projection

MAX_NAMED = 10  # cases named one by one in a cut; the rest are counted


def _runs(n: int) -> str:
    return f"{n} run{'s' * (n != 1)}"


def projected(p: Projection) -> str:
    """ "$0.42", "$0.42 + price unknown for 2 runs", "price unknown"."""
    paid = len(p.runs) - p.count("cache")
    if paid and p.unpriced == paid:
        return "price unknown"
    text = cents(p.total_usd)
    if p.unpriced:
        text += f" + price unknown for {_runs(p.unpriced)}"
    return text


def projection_line(p: Projection, *, prices_as_of: str, max_runs: int) -> str:
    """One sentence: the total, where each run's figure came from, the `auto` range."""
    sources = []
    if n := p.count("seen"):
        sources.append(f"{n} from the cache's records of their cases")
    if n := p.count("prior"):
        sources.append(f"{n} from the prior of {cost_prior.PRIOR_AS_OF}")
    if n := p.count("cache"):
        sources.append(f"{n} reused from the cache at no cost")
    text = f"Projected cost: {projected(p)} for {_runs(len(p.runs))}"
    if sources:
        text += f" ({'; '.join(sources)})"
    if p.extra_usd is not None and p.extra_runs:
        text += (
            f"; `runs: auto` costs at least that and at most {cents(p.most_usd)}"
            f" (every case to max-runs {max_runs})"
        )
    return f"{text}. Prices as of {prices_as_of}."


def harness_warning(harness: str) -> str:
    """Said wherever the harness is chosen or a projection is shown under `cli`."""
    if harness != "cli":
        return ""
    return (
        f"`harness: cli` runs the real CLIs, which send about {cost_prior.CLI_TOKEN_FACTOR}×"
        " the tokens of an `sdk` run on the same case (their own system prompt and tools;"
        " bench/README.md)."
    )


def cut_lines(cut: Cut) -> tuple[str, ...]:
    """What `max-cost-usd` cut before the start and why; nothing when it cut nothing."""
    if not cut.any:
        return ()
    lines = [
        f"max-cost-usd ({cents(cut.limit_usd)}) is below the projected {cents(cut.projected_usd)}:"
        f" {len(cut.dropped)} of {_runs(len(cut.kept) + len(cut.dropped))} cut before any call"
        f" (projected now {cents(cut.kept_usd)}): fewer runs per case first, then cases;"
        " unchanged cases before changed ones; never half of a base/head pair."
    ]
    for (rel, case, model), planned, kept in cut.lowered[:MAX_NAMED]:
        lines.append(f"{rel} · {case} on {model}: {kept} of {planned} runs per side")
    for rel, case, model in cut.removed[:MAX_NAMED]:
        lines.append(f"{rel} · {case} on {model}: not run")
    more = max(0, len(cut.lowered) - MAX_NAMED) + max(0, len(cut.removed) - MAX_NAMED)
    if more:
        lines.append(f"and {more} more cases cut (results.json lists every run not made)")
    return tuple(lines)
