"""The projection and the budget's cut in words: one text for the log, the summary and the
comment, so the three never disagree."""

from __future__ import annotations

from collections.abc import Sequence

from evolve_action.model.spend import cents
from evolve_action.plan import cost_prior
from evolve_action.plan.budget_cut import Cut
from evolve_action.plan.planning import RunSpec
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


def range_text(p: Projection) -> str:
    """ "$0.0150 and $0.4100", what the plan's runs cost at the two ends of their ranges."""
    return f"{cents(p.low_usd)} and {cents(p.high_usd)}"


def range_reasons(turn_cap: int | None) -> str:
    """How a run never seen is bracketed: the two behaviours, in words."""
    high = cost_prior.HIGH.words()
    if turn_cap is not None and turn_cap < cost_prior.HIGH.turns:
        high = f"{high}, held to the turn cap of {turn_cap}"
    return (
        f"a run never seen costs at least {cost_prior.LOW.words()} and at most {high}, over its"
        " prompt, its skill and our system prompt, at its model's prices"
    )


def projection_line(
    p: Projection, *, prices_as_of: str, max_runs: int, turn_cap: int | None = None
) -> str:
    """One sentence: the total, where each run's figure came from, its range, the `auto`
    range."""
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
    if p.ranged and not p.unpriced:
        text += f"; between {range_text(p)} ({range_reasons(turn_cap)})"
    elif p.count("seen") and not p.unpriced and p.high_usd > p.low_usd:
        text += f"; between {range_text(p)} (the cheapest and dearest run of each case seen)"
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


def cut_lines(cut: Cut, *, when: str = "") -> tuple[str, ...]:
    """What `max-cost-usd` cut and why: before the start, or `when` ("after the first wave",
    where the limit is what was left of it); nothing when it cut nothing."""
    if not cut.any:
        return ()
    total = _runs(len(cut.kept) + len(cut.dropped))
    if when:
        head = (
            f"{when.capitalize()}, what was left of max-cost-usd ({cents(cut.limit_usd)}) is"
            f" below the {cents(cut.projected_usd)} projected for the {total} left:"
            f" {len(cut.dropped)} cut before they started (projected now {cents(cut.kept_usd)})"
        )
    else:
        head = (
            f"max-cost-usd ({cents(cut.limit_usd)}) is below the projected"
            f" {cents(cut.projected_usd)}: {len(cut.dropped)} of {total} cut before any call"
            f" (projected now {cents(cut.kept_usd)})"
        )
    lines = [
        f"{head}: fewer runs per case first, then cases; unchanged cases before changed ones;"
        " never half of a base/head pair."
    ]
    if when:  # what the cut left is counted against the whole plan elsewhere: say what went
        return (*lines, *_not_started(cut.dropped))
    named = [
        *(((c, f"{kept} of {planned} runs per side")) for c, planned, kept in cut.lowered),
        *((c, "not run") for c in cut.removed),
    ]
    return (*lines, *_named(named))


def _not_started(specs: Sequence[RunSpec]) -> list[str]:
    units: dict[tuple[str, str, str], set[int]] = {}
    for spec in specs:
        units.setdefault((spec.suite.rel, spec.case.id, spec.model), set()).add(spec.repetition)
    return _named(
        [(c, f"{_count(len(r), 'more run')} per side not started") for c, r in units.items()]
    )


def _named(cases: list[tuple[tuple[str, str, str], str]]) -> list[str]:
    lines = [f"{rel} · {case} on {model}: {what}" for (rel, case, model), what in cases]
    if len(lines) > MAX_NAMED:
        more = len(lines) - MAX_NAMED
        return [*lines[:MAX_NAMED], f"and {more} more cases cut (results.json lists every run)"]
    return lines


def refused_lines(
    refused: Sequence[RunSpec], limit_usd: float | None, need: tuple[float, float] | None
) -> tuple[str, ...]:
    """What the ceiling refused while the runs went; nothing when it refused nothing. `need`:
    the least a refused pair needed, and what was left then."""
    if not refused or limit_usd is None:
        return ()
    text = (
        f"max-cost-usd ({cents(limit_usd)}): {_runs(len(refused))} not started, in whole pairs:"
        " a pair starts only when its cost at the dearest run seen of its case (else of its"
        " model, else the high end of its range) fits in what is left after the spend and the"
        " runs in flight"
    )
    if need is not None:
        text += (
            f"; the cheapest needed {cents(need[0])} with {cents(need[1])} left (to start it,"
            " raise max-cost-usd, or lower max-turns, which bounds a run not seen yet)"
        )
    return (f"{text}.", *_not_started(refused))


def over_line(limit_usd: float | None, spent_usd: float, overrun_usd: float) -> tuple[str, ...]:
    """Said when the spend went past `max-cost-usd`: by how much, and why that is bounded."""
    if limit_usd is None or spent_usd <= limit_usd:
        return ()
    return (
        f"Spent {cents(spent_usd)}, {cents(spent_usd - limit_usd)} over max-cost-usd"
        f" ({cents(limit_usd)}): runs already started cost {cents(overrun_usd)} beyond the"
        " estimates they were admitted at, which is the most a budget can be exceeded by"
        " (docs/usage.md, 'The budget is a ceiling').",
    )


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def reprojection_line(made: int, spent_usd: float, left: int, rest_usd: float) -> str:
    """The projection again after the first wave, from what its runs cost."""
    return (
        f"After the first wave ({_runs(made)}, {cents(spent_usd)} spent): the {_runs(left)} left"
        f" are projected at {cents(rest_usd)} from what their cases cost so far, so"
        f" {cents(spent_usd + rest_usd)} in all."
    )
