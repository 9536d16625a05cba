"""The e-values of a drop: one cell's, from its blocks of runs, and a suite's, stratified over
its cells (`sequential` explains the design and decides with them).

A cell's evidence is the start block's likelihood ratio conditional on its margins (a mixture
over odds ratios ψ < 1 of the noncentral hypergeometric law) times the later blocks'
unconditional likelihood ratio of a drop against the least-favourable null, mixed over a grid
of drops weighted by their likelihood on the start block. Each is an e-value: its expectation
is at most 1 when nothing got worse, whatever rule chose how many runs to make.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

# The alternatives the later-block mixture weighs: (base rate, head rate) pairs with a drop.
_RATES = (0.02, 0.1, 0.25, 0.4, 0.6, 0.75, 0.9, 0.98)
_DROPS = tuple((b, h) for b in _RATES for h in _RATES if h < b)
# Odds ratios (head against base) the start block's conditional mixture weighs, and their
# prior weights (in logs): a break (ψ near 0) counts double, as it is the drop that matters most.
_PSI = (0.01, 0.03, 0.1, 0.2, 0.35, 0.5, 0.7)
_PSI_PRIOR = tuple(math.log(w / 8) for w in (2, 1, 1, 1, 1, 1, 1))


@dataclass(frozen=True, slots=True)
class Tally:
    """Graded runs of one cell in one block: passes out of graded runs, per side."""

    base_passed: int
    base_graded: int
    head_passed: int
    head_graded: int

    def swapped(self) -> Tally:
        """The same block read for a rise: head and base change places."""
        return Tally(self.head_passed, self.head_graded, self.base_passed, self.base_graded)

    @property
    def paired(self) -> bool:
        return self.base_graded > 0 and self.head_graded > 0

    @property
    def informative(self) -> bool:
        """Both sides graded, and not every run agreeing (all passed or all failed)."""
        passes = self.base_passed + self.head_passed
        return self.paired and 0 < passes < self.base_graded + self.head_graded


def _logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    if top == -math.inf:
        return top
    return top + math.log(math.fsum(math.exp(v - top) for v in values))


@lru_cache(maxsize=65536)
def _conditional_terms(t: Tally) -> tuple[float, ...]:
    """log f_ψ(head passes) / f_1(head passes) for each ψ, given the block's margins."""
    passes = t.base_passed + t.head_passed
    low, high = max(0, passes - t.base_graded), min(passes, t.head_graded)
    support = range(low, high + 1)
    weights = [math.comb(t.head_graded, k) * math.comb(t.base_graded, passes - k) for k in support]
    null = math.log(math.fsum(weights))
    out = []
    for psi in _PSI:
        tilted = math.fsum(w * psi ** (k - low) for w, k in zip(weights, support, strict=True))
        out.append((t.head_passed - low) * math.log(psi) + null - math.log(tilted))
    return tuple(out)


@lru_cache(maxsize=65536)
def _start_evidence(t: Tally) -> float:
    if not t.informative:
        return 0.0
    return _logsumexp([w + x for w, x in zip(_PSI_PRIOR, _conditional_terms(t), strict=True)])


def _bernoulli(passed: int, graded: int, rate: float) -> float:
    return passed * math.log(rate) + (graded - passed) * math.log1p(-rate)


@lru_cache(maxsize=65536)
def _drop_terms(t: Tally) -> tuple[float, ...]:
    """log LR of each (θ_base, θ_head) drop against its least-favourable null θ0."""
    out = []
    n = t.base_graded + t.head_graded
    for base, head in _DROPS:
        null = (t.base_graded * base + t.head_graded * head) / n
        out.append(
            _bernoulli(t.base_passed, t.base_graded, base)
            - _bernoulli(t.base_passed, t.base_graded, null)
            + _bernoulli(t.head_passed, t.head_graded, head)
            - _bernoulli(t.head_passed, t.head_graded, null)
        )
    return tuple(out)


def _merged(blocks: Sequence[Tally]) -> tuple[Tally, ...]:
    """Equal-size blocks share θ0, so their ratios multiply into one block's (a cache key)."""
    even = [0, 0, 0, 0]
    rest: list[Tally] = []
    for t in blocks:
        if not t.paired:
            continue  # one side only: θ0 is that side's rate, the ratio is 1
        if t.base_graded == t.head_graded:
            even = [a + b for a, b in zip(even, (*_fields(t),), strict=True)]
        else:
            rest.append(t)
    return ((Tally(*even),) if even[1] else ()) + tuple(rest)


def _fields(t: Tally) -> tuple[int, int, int, int]:
    return (t.base_passed, t.base_graded, t.head_passed, t.head_graded)


@lru_cache(maxsize=65536)
def _later_evidence(start: Tally, later: tuple[Tally, ...]) -> float:
    if not later:
        return 0.0
    prior = [
        _bernoulli(start.base_passed, start.base_graded, b)
        + _bernoulli(start.head_passed, start.head_graded, h)
        for b, h in _DROPS
    ]
    total = list(prior)
    for t in later:
        total = [a + x for a, x in zip(total, _drop_terms(t), strict=True)]
    return _logsumexp(total) - _logsumexp(prior)


def cell_evidence(blocks: Sequence[Tally]) -> float:
    """log e-value of a drop in one cell (0 when nothing was graded)."""
    return _cell_evidence(tuple(blocks))


@lru_cache(maxsize=65536)
def _cell_evidence(blocks: tuple[Tally, ...]) -> float:
    if not blocks:
        return 0.0
    start = blocks[0]
    return _start_evidence(start) + _later_evidence(start, _merged(blocks[1:]))


def stratified_evidence(cells: Iterable[Sequence[Tally]]) -> float:
    """log e-value of a common drop over many cells: every block conditional on its margins,
    one odds ratio ψ < 1 shared by all (the e-value twin of the exact stratified test)."""
    total = [0.0] * len(_PSI)
    for blocks in cells:
        for t in blocks:
            if t.informative:
                total = [a + x for a, x in zip(total, _conditional_terms(t), strict=True)]
    return _logsumexp([w + x for w, x in zip(_PSI_PRIOR, total, strict=True)])
