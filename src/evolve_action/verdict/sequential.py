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

from evolve_action.verdict.e_values import Tally, cell_evidence, stratified_evidence

# The e-values are re-exported: the planner and the tests read them beside the decisions.
__all__ = [
    "CASE_SHARE",
    "CellKey",
    "Hypothesis",
    "Kind",
    "Tally",
    "Verdict",
    "bar",
    "block_of",
    "boundaries",
    "cell_evidence",
    "closed_test",
    "decide",
    "stratified_evidence",
    "tallies",
]

CASE_SHARE = 0.8  # of alpha, for cases and cells; the rest for suites (as the fixed gate)
GROWTH = 1.4  # each wave adds about 40% more runs (at least 2): few waves, little overshoot

CellKey = tuple[str, str, str]  # (suite rel, case id, model)


class Kind(StrEnum):
    CASE = "case"  # one case pooled over its models
    CELL = "cell"  # one case on one model
    SUITE = "suite"  # every case of a suite, on every model


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
