"""Evidence that stays valid however many runs were added because of what was seen.

`runs: auto` adds runs only where a verdict is still open, so the number of runs depends on
the outcomes; a fixed-N exact test read after such a design over-reports drops (keep running
the cases that look worse, stop the others, and chance alone crosses any fixed threshold).
This module measures evidence with *e-values*: numbers whose expectation is at most 1 when
nothing got worse, at every wave, whatever the rule that chose to run more. By Ville's
inequality the chance that one ever reaches 1/α under the null is at most α, so a decision
read at any stopping point keeps its false-alarm guarantee (docs/adaptive.md says it in words).

One (suite, case, model) *cell* gets runs in blocks that follow a fixed schedule of run
counts (`boundaries`): the first block is the start wave, every later block a wave of extra
runs. Its evidence of a drop is the product of

- the start block's likelihood ratio *conditional on its margins* (head passes against the
  noncentral hypergeometric law, a mixture over odds ratios ψ < 1): cells whose start block
  passed every run (or failed every run) on both sides carry exactly 1, so they can be left
  out of the family without paying for them (Tarone's idea: margins decide who is tested);
- the later blocks' unconditional likelihood ratio of a drop (θ_base > θ_head) against the
  least-favourable null θ0 = the runs-weighted mean of the two, mixed over a grid of drops
  whose weights are the grid's likelihood on the start block (a plug-in learned from the
  past only). E_{p,p'}[ratio] ≤ 1 for every p' ≥ p: log E is concave in p with its maximum
  0 at θ0, and a higher head rate only lowers it.

Hypotheses mirror the fixed-N gate of the verdict: per case pooled over its models (the
product of its cells), per (case, model) cell when two or more models are informative, at
0.8·α with closed testing over averaged e-values (an e-Holm: valid under any dependence);
per suite a stratified common-odds-ratio e-value over all its cells and blocks, at 0.2·α.
Improvements are measured apart and never enter a regression's evidence.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

CASE_SHARE = 0.8  # of alpha, for cases and cells; the rest for suites (as the fixed gate)
GROWTH = 1.4  # each wave adds about 40% more runs (at least 2): few waves, little overshoot

# The alternatives the later-block mixture weighs: (base rate, head rate) pairs with a drop.
_RATES = (0.02, 0.1, 0.25, 0.4, 0.6, 0.75, 0.9, 0.98)
_DROPS = tuple((b, h) for b in _RATES for h in _RATES if h < b)
# Odds ratios (head against base) the start block's conditional mixture weighs, and their
# prior weights (in logs): a break (ψ near 0) counts double, as it is the drop that matters most.
_PSI = (0.01, 0.03, 0.1, 0.2, 0.35, 0.5, 0.7)
_PSI_PRIOR = tuple(math.log(w / 8) for w in (2, 1, 1, 1, 1, 1, 1))

CellKey = tuple[str, str, str]  # (suite rel, case id, model)


class Kind(StrEnum):
    CASE = "case"  # one case pooled over its models
    CELL = "cell"  # one case on one model
    SUITE = "suite"  # every case of a suite, on every model


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


@lru_cache(maxsize=64)
def boundaries(start: int, max_runs: int) -> tuple[int, ...]:
    """Cumulative runs per side at the end of each wave: start, then ~40% more, up to the cap."""
    out = [start]
    while out[-1] < max_runs:
        out.append(min(max_runs, max(out[-1] + 2, math.ceil(out[-1] * GROWTH))))
    return tuple(out)


def block_of(repetition: int, bounds: Sequence[int]) -> int:
    """The block (0 = the start wave) a 1-based repetition belongs to; past the cap, one more."""
    for index, bound in enumerate(bounds):
        if repetition <= bound:
            return index
    return len(bounds)


def tallies(
    outcomes: Mapping[str, Iterable[tuple[int, bool | None]]], bounds: Sequence[int]
) -> tuple[Tally, ...]:
    """Blocks of one cell from its runs: side ("base"/"head") → (repetition, passed or None
    for an errored run). Errors are neither passes nor failures: they shrink the block."""
    count = len(bounds) + 1
    cells = [[0, 0, 0, 0] for _ in range(count)]
    for side, offset in (("base", 0), ("head", 2)):
        for repetition, passed in outcomes.get(side, ()):
            if passed is None:
                continue
            block = cells[block_of(repetition, bounds)]
            block[offset] += int(passed)
            block[offset + 1] += 1
    while len(cells) > 1 and not any(cells[-1]):
        cells.pop()
    return tuple(Tally(*c) for c in cells)


# --- the e-values ---------------------------------------------------------------------------


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


# --- the family and its decisions -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hypothesis:
    kind: Kind
    suite: str
    case: str  # "" for a suite
    model: str  # "" for a case pooled over its models, or a suite
    log_e: float  # log of the e-value of a drop (of a rise, in `Verdict.rises`)
    adjusted_p: float = 1.0  # on the PR's scale: rejected exactly when at most alpha
    rejected: bool = False


@dataclass(frozen=True, slots=True)
class Verdict:
    """Every hypothesis of a PR, with the levels it was held to."""

    alpha: float
    drops: tuple[Hypothesis, ...]  # cases and cells at 0.8·α, then suites at 0.2·α
    rises: tuple[Hypothesis, ...]  # the same family for improvements (shown, never gating)
    case_bar: float  # log e a case or cell needs alone (Bonferroni over its family)
    suite_bar: float

    def flagged(self, kind: Kind) -> tuple[Hypothesis, ...]:
        return tuple(h for h in self.drops if h.kind is kind and h.rejected)

    @property
    def regressed_cases(self) -> frozenset[tuple[str, str]]:
        """Cases named by a rejected case or cell hypothesis."""
        return frozenset((h.suite, h.case) for h in self.drops if h.rejected and h.case)

    @property
    def regressed_suites(self) -> frozenset[str]:
        return frozenset(h.suite for h in self.flagged(Kind.SUITE))

    @property
    def improved_cases(self) -> frozenset[tuple[str, str]]:
        return frozenset((h.suite, h.case) for h in self.rises if h.rejected and h.case)

    @property
    def fails(self) -> bool:
        return any(h.rejected for h in self.drops)


def closed_test(log_es: Sequence[float], level: float) -> list[float]:
    """Closed testing over averaged e-values, as adjusted levels: hypothesis i is rejected at
    level L when every set holding it averages at least 1/L. The worst set adds the smallest
    others, so i's adjusted level is max over k of (k + 1) / (e_i + the k smallest others).

    Computed exactly where it can be at most `level` (e_i >= 1/level); elsewhere the
    Bonferroni level n / e_i stands in, which is above `level` there as the exact one is."""
    n = len(log_es)
    values = [math.exp(min(v, 700.0)) for v in log_es]
    order = sorted(range(n), key=values.__getitem__)
    prefix = [0.0]
    for i in order:
        prefix.append(prefix[-1] + values[i])
    out = [min(1.0, n / v) if v > 0 else 1.0 for v in values]
    for r, i in enumerate(order):
        if values[i] * level < 1:
            continue
        worst = max(
            (k + 1) / (values[i] + (prefix[k] if k <= r else prefix[k + 1] - values[i]))
            for k in range(n)
        )
        out[i] = min(1.0, worst)
    return out


def _family(
    cells: Mapping[CellKey, Sequence[Tally]], evidence: Callable[[Sequence[Tally]], float]
) -> tuple[list[Hypothesis], list[Hypothesis]]:
    """The informative hypotheses (by the start block's margins) and their log e-values."""
    cases: dict[tuple[str, str], list[CellKey]] = {}
    suites: dict[str, list[CellKey]] = {}
    for key in cells:
        cases.setdefault(key[:2], []).append(key)
        suites.setdefault(key[0], []).append(key)
    log_e = {key: evidence(blocks) for key, blocks in cells.items()}
    useful = {key: bool(blocks) and blocks[0].informative for key, blocks in cells.items()}
    case_family: list[Hypothesis] = []
    for (suite, case), keys in cases.items():
        if not any(useful[k] for k in keys):
            continue
        pooled = math.fsum(log_e[k] for k in keys)
        case_family.append(Hypothesis(Kind.CASE, suite, case, "", pooled))
        informative = [k for k in keys if useful[k]]
        if len(informative) >= 2:
            case_family += [Hypothesis(Kind.CELL, suite, case, k[2], log_e[k]) for k in informative]
    suite_family = [
        Hypothesis(Kind.SUITE, suite, "", "", stratified_evidence(cells[k] for k in keys))
        for suite, keys in suites.items()
        if any(useful[k] for k in keys)
    ]
    return case_family, suite_family


def _judged(family: list[Hypothesis], share: float, alpha: float) -> list[Hypothesis]:
    levels = closed_test([h.log_e for h in family], share * alpha)
    out = []
    for h, level in zip(family, levels, strict=True):
        adjusted = min(1.0, level / share)
        rejected = adjusted <= alpha * (1 + 1e-12)
        out.append(Hypothesis(h.kind, h.suite, h.case, h.model, h.log_e, adjusted, rejected))
    return out


def bar(family_size: int, level: float) -> float:
    """log e-value that rejects on its own whatever the others show (e-Bonferroni)."""
    return math.log(max(1, family_size) / level)


def decide(
    cells: Mapping[CellKey, Sequence[Tally]], alpha: float, *, rises: bool = True
) -> Verdict:
    """The regression verdict of a PR from its cells' blocks; a pure function of the counts.

    Cells only on one side (new or removed cases) carry no comparison and are left out.
    `rises=False` skips the improvements (the planner and the simulations need drops only).
    """
    paired = {k: tuple(b) for k, b in cells.items() if any(t.paired for t in b)}
    case_share, suite_share = CASE_SHARE, 1 - CASE_SHARE
    cases, suites = _family(paired, cell_evidence)
    rise_cases: list[Hypothesis] = []
    rise_suites: list[Hypothesis] = []
    if rises:
        swapped = {k: tuple(t.swapped() for t in b) for k, b in paired.items()}
        rise_cases, rise_suites = _family(swapped, cell_evidence)
    return Verdict(
        alpha=alpha,
        drops=tuple(_judged(cases, case_share, alpha) + _judged(suites, suite_share, alpha)),
        rises=tuple(
            _judged(rise_cases, case_share, alpha) + _judged(rise_suites, suite_share, alpha)
        ),
        case_bar=bar(len(cases), case_share * alpha),
        suite_bar=bar(len(suites), suite_share * alpha),
    )
