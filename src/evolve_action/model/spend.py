"""What a job paid, and what its cache saved: the one split of the runs' costs into the two.

A run taken from the cache was paid for by an earlier job; counting it again would report a
second push that spent $0.57 as $1.06. So the `cost-usd` output, the comment's spend and the
budget count the runs made here (`paid_usd`), and the reused runs' cost is a separate figure
(`saved_usd`). A run whose model has no price is never counted as $0: it is counted in
`unpriced`, and the money reads "price unknown" (`money`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from evolve_action.model.outcomes import RunResult
from evolve_action.model.records import run_cost

PRICE_UNKNOWN = "price unknown"


@dataclass(frozen=True, slots=True)
class Spend:
    paid_usd: float  # runs made by this job, priced ones only
    saved_usd: float  # runs reused from the cache: what they cost when they were made
    paid_runs: int
    saved_runs: int
    unpriced: int  # runs made here whose model has no price (their cost is not in `paid_usd`)

    @property
    def known(self) -> bool:
        """Every run made here has a price, so `paid_usd` is the whole spend."""
        return self.unpriced == 0


def spend_of(runs: Iterable[RunResult]) -> Spend:
    paid: list[float] = []
    saved: list[float] = []
    paid_runs = saved_runs = unpriced = 0
    for run in runs:
        cost = run_cost(run)
        if run.cached:
            saved_runs += 1
            if cost is not None:
                saved.append(cost)
            continue
        paid_runs += 1
        if cost is None:
            # An error before any call costs nothing and has no usage to price.
            if run.transcript.usage.calls or run.judge.usage.calls:
                unpriced += 1
        else:
            paid.append(cost)
    return Spend(math.fsum(paid), math.fsum(saved), paid_runs, saved_runs, unpriced)


def cents(usd: float) -> str:
    """Dollars to compare small sums by: four decimals under a dollar ("$0.0421"), two above.
    A projection or a cost per run of cents must still show which is larger."""
    return f"${usd:.4f}" if usd < 1 else f"${usd:.2f}"


def money(usd: float | None) -> str:
    """Dollars for people: "$1.23", "<$0.01", or "price unknown" (never "$0" for a guess)."""
    if usd is None or not math.isfinite(usd):
        return PRICE_UNKNOWN
    return "<$0.01" if 0 < usd < 0.005 else f"${usd:.2f}"


def between(low: float, high: float) -> str:
    """A range of dollars for people: "$0.02 to $13.84"."""
    return f"{money(low)} to {money(high)}"


def spend_text(spend: Spend) -> str:
    """This job's spend in words: "$0.57", "$0.57 + price unknown for 2 runs"."""
    if spend.paid_runs and not spend.paid_usd and spend.unpriced == spend.paid_runs:
        return PRICE_UNKNOWN
    text = money(spend.paid_usd)
    if spend.unpriced:
        text += f" + {PRICE_UNKNOWN} for {spend.unpriced} run{'s' * (spend.unpriced != 1)}"
    return text
