"""One-sided exact tests on pass counts, with the attainable p-values a discrete correction needs.

Every test here asks one question: did head pass *less* often than base? (An improvement is
the same question asked of the failures.) The statistic is the number of head passes summed
over strata; given each stratum's margins (runs per side, passes on both sides) its null law
is the convolution of the strata's hypergeometric laws: Fisher's exact test for one stratum,
the exact conditional Cochran–Mantel–Haenszel test for several (R's `mantelhaen.test(exact =
TRUE)`, one-sided). Strata whose runs all passed (or all failed) are single points and drop out.

A discrete test cannot produce every p-value: 4/4 → 0/4 gives 1/70 and nothing between 1/70
and 1/14. `Tail` keeps the attainable values (the lower-tail CDF), so the correction can count
what each test can really spend: `discrete_holm` is Holm's step-down with each term `α / m`
replaced by the largest attainable p-value not above the critical value (Westfall and
Wolfinger 1997; Döhler, Durand and Roquain 2018). A stable case that could never reach the
critical value costs nothing, which is what keeps 100 mostly-passing cases from drowning one
that broke.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate

Margins = tuple[int, int, int]  # (head runs, base runs, passes on both sides), graded runs only
_TIE = 1e-9  # p-values equal up to float rounding are the same attainable value
NEGLIGIBLE = 1e-30  # an outcome this unlikely cannot move a sum compared with any level


@dataclass(frozen=True, slots=True)
class Tail:
    """The lower tail of one test: `cdf[i]` = P(T <= lowest + i) under the null, up to at least
    the observed outcome `at` (the rest may be cut off when only the rejection matters)."""

    cdf: tuple[float, ...]
    at: int

    @property
    def p(self) -> float:
        return self.cdf[self.at]

    @property
    def floor(self) -> float:
        """The smallest p-value this test can produce, whatever the outcome."""
        return self.cdf[0]

    def attainable(self, c: float) -> float:
        """The largest attainable p-value not above `c` (0 when even the smallest is above):
        the most this test can add to the chance of a false rejection at threshold `c`."""
        i = bisect_right(self.cdf, c * (1 + _TIE))
        return self.cdf[i - 1] if i else 0.0


def informative(m: Margins) -> bool:
    """A stratum is informative when both sides ran and the passes are not all on one side
    by necessity: every run passed, or every run failed, leaves one possible outcome."""
    n_head, n_base, passes = m
    return n_head > 0 and n_base > 0 and 0 < passes < n_head + n_base


@lru_cache(maxsize=65_536)
def hypergeometric(m: Margins) -> tuple[int, tuple[float, ...]]:
    """Null law of head passes given the margins, as (lowest value, probabilities)."""
    n_head, n_base, passes = m
    low, high = max(0, passes - n_base), min(passes, n_head)
    total = math.comb(n_head + n_base, passes)
    probs = tuple(
        math.comb(n_head, t) * math.comb(n_base, passes - t) / total for t in range(low, high + 1)
    )
    return low, probs


def convolve(a: Sequence[float], b: Sequence[float], limit: int | None = None) -> list[float]:
    """The law of a sum from the laws of two independent parts, cut after index `limit`."""
    if len(a) < len(b):
        a, b = b, a
    size = len(a) + len(b) - 1 if limit is None else min(len(a) + len(b) - 1, limit + 1)
    out = [0.0] * size
    # Loop over the shorter law; each step is one whole-list operation on the longer one.
    for j, y in enumerate(b[:size]):
        stop = min(len(a), size - j)
        out[j : j + stop] = [o + y * x for o, x in zip(out[j : j + stop], a[:stop], strict=True)]
    return out


def _law(strata: tuple[Margins, ...]) -> tuple[int, tuple[float, ...]]:
    low, law = 0, [1.0]
    for m in strata:
        first, probs = hypergeometric(m)
        low += first
        law = convolve(law, probs)
    return low, tuple(accumulate(law))


_pooled = lru_cache(maxsize=65_536)(_law)


@lru_cache(maxsize=262_144)
def _small(key: tuple[Margins, ...], observed: int) -> Tail:
    low, cdf = _pooled(key)
    return Tail(cdf, observed - low)


def tail(strata: Sequence[Margins], observed: int) -> Tail:
    """The one-sided (drop) test of `observed` head passes over informative `strata`.

    A few strata (one case's models) are cached whole: the same margins recur across cases and
    pull requests. Many strata (a suite) are convolved only up to the observed outcome, which
    keeps the p-value and every attainable value below it exact: all a step-down correction
    reads. Outcomes with probability below `NEGLIGIBLE` are dropped along the way, an error no
    larger than float rounding on any p-value a decision compares with a level.
    """
    key = tuple(sorted(strata))
    if len(key) <= 4:
        return _small(key, observed)
    low = sum(hypergeometric(m)[0] for m in key)
    limit = observed - low
    start, law = 0, [1.0]  # law[i] = P(partial sum = start + i), relative to the lows
    for m in key:
        law = convolve(law, hypergeometric(m)[1], limit - start)
        lead = next((i for i, x in enumerate(law) if x >= NEGLIGIBLE), len(law) - 1)
        trail = len(law)
        while trail - 1 > lead and law[trail - 1] < NEGLIGIBLE:
            trail -= 1
        start += lead
        law = law[lead:trail]
    if start > limit:  # the observed outcome is itself negligible: p below NEGLIGIBLE
        return Tail((NEGLIGIBLE,), 0)
    return Tail(tuple(accumulate(law)), min(limit - start, len(law) - 1))


@lru_cache(maxsize=65_536)
def _moments(m: Margins) -> tuple[float, float, float]:
    """Mean, variance and third absolute central moment of one stratum's null law."""
    low, probs = hypergeometric(m)
    mean = math.fsum((low + i) * p for i, p in enumerate(probs))
    var = math.fsum((low + i - mean) ** 2 * p for i, p in enumerate(probs))
    abs3 = math.fsum(abs(low + i - mean) ** 3 * p for i, p in enumerate(probs))
    return mean, var, abs3


def surely_above(strata: Sequence[Margins], observed: int, level: float) -> bool:
    """True when the test's p-value is certainly above `level`, without the convolution.

    Berry–Esseen for independent, non-identical summands bounds the distance between the law
    of the sum and the normal law by 0.56 · Σ E|X - EX|³ / σ³ (Shevtsova 2010), so
    P(T <= observed) >= Φ(z) - that bound. A hypergeometric law is also the law of a sum of
    independent Bernoulli variables (its generating polynomial has only real roots), and a
    Bernoulli's third absolute central moment is at most its variance, so Σ σ² serves as
    well. A simulation asks this of thousands of suites whose p-value sits near the middle;
    only the few it cannot clear are convolved.
    """
    moments = [_moments(m) for m in strata]
    var = math.fsum(v for _, v, _ in moments)
    if var <= 0:
        return False
    sd = math.sqrt(var)
    z = (observed - math.fsum(mu for mu, _, _ in moments)) / sd
    bound = 0.56 * min(var, math.fsum(a for *_, a in moments)) / sd**3
    return 0.5 * (1 + math.erf(z / math.sqrt(2))) - bound > level


def extreme_floor(runs: Sequence[tuple[int, int]]) -> float:
    """The p-value of the most extreme drop (every base run passed, every head run failed) over
    models with these (head runs, base runs): the best evidence these runs could ever give."""
    return math.prod(1 / math.comb(h + b, b) for h, b in runs if h and b)


def discrete_holm(tails: Sequence[Tail], *, stop_above: float = 1.0) -> list[float]:
    """Discrete Holm adjusted p-values, in input order; reject where adjusted <= the level.

    Step j (p-values ascending) sums, over the hypotheses not yet rejected, the largest
    attainable p-value of each not above p_(j); the adjusted p-value is the running maximum.
    Once the running value is past `stop_above` the rest are only known to be at least that
    (enough to decide at any level up to `stop_above`, and cheaper).
    """
    order = sorted(range(len(tails)), key=lambda i: tails[i].p)
    adjusted = [1.0] * len(tails)
    running = 0.0
    for rank, i in enumerate(order):
        if running > stop_above * (1 + _TIE):
            adjusted[i] = running  # at least this; the rest cannot be rejected at the level
            continue
        c = tails[i].p
        total = math.fsum(tails[j].attainable(c) for j in order[rank:])
        running = max(running, min(1.0, total))
        adjusted[i] = running
    return adjusted
