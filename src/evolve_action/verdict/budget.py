"""How `alpha` is split between the per-case and the per-suite tests, and whether a case that
broke completely could be flagged at all (the "too few runs to tell" question).

The split depends on the margins only, as every exact conditional test here does, so it may
follow them without weakening the guarantee: the suites get 0.2·alpha when some suite's pooled
test could reach that level at these margins (two or more informative cases whose smallest
p-values multiply to at most 0.2·alpha), and nothing otherwise.

A case is *detectable* when its most extreme outcome (every base run passed, every head run
failed, on each of its models) would be rejected at the first step of the case family's
discrete Holm, the other cases as observed. When it is not, `Detector.check` also finds the
fewest graded runs per side that would make it detectable, other cases unchanged: what the
comment suggests, and what an adaptive design would aim for.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from evolve_action.verdict.tails import Tail, extreme_floor

CASE_SHARE = 0.8
SUITE_SHARE = 0.2
MAX_RUNS = 100  # runs per side past which `runs_needed` gives up (None)
TIE = 1e-9  # p-values equal up to float rounding count as equal

CaseKey = tuple[str, str]  # (suite, case id)
Floors = Mapping[str, Mapping[CaseKey, float]]  # suite → informative case → smallest p


def at_level(p: float | None, level: float) -> bool:
    return p is not None and p <= level * (1 + TIE)


def share_for(floors: Floors, alpha: float) -> float:
    """The cases' share of alpha, given each suite's informative cases and their floors."""
    for cases in floors.values():
        if len(cases) >= 2 and at_level(math.prod(cases.values()), SUITE_SHARE * alpha):
            return CASE_SHARE
    return 1.0


class Detector:
    """Answers "could a complete break of this case be flagged here?" for one pull request."""

    def __init__(
        self,
        tails: Sequence[tuple[CaseKey, Tail]],
        floors: Floors,
        alpha: float,
        fixed: float | None = None,
    ) -> None:
        self.tails, self.floors, self.alpha, self.fixed = tails, floors, alpha, fixed
        self._totals: dict[float, float] = {}

    def _others(self, key: CaseKey, c: float) -> float:
        """What every other hypothesis of the case family can spend at threshold `c`."""
        if c not in self._totals:
            self._totals[c] = math.fsum(t.attainable(c) for _, t in self.tails)
        own = math.fsum(t.attainable(c) for k, t in self.tails if k == key)
        return max(0.0, self._totals[c] - own)

    def flagged(self, key: CaseKey, p: float) -> bool:
        """Would case `key` be rejected at the first step if its p-value were `p`, its
        smallest possible (its per-model tests cannot reach below the pooled one)?"""
        share = self.fixed
        if share is None:
            suite = {**self.floors.get(key[0], {}), key: p}
            share = share_for({**self.floors, key[0]: suite}, self.alpha)
        return at_level(self._others(key, p) + p, share * self.alpha)

    def check(self, key: CaseKey, runs: Sequence[tuple[int, int]]) -> tuple[bool, int | None]:
        """(detectable with these (head, base) graded runs per model, else the runs per side
        on each model that would make it so; None past `MAX_RUNS`)."""
        if self.flagged(key, extreme_floor(runs)):
            return True, None
        models = len(runs)
        for n in range(1, MAX_RUNS + 1):
            if self.flagged(key, math.comb(2 * n, n) ** -models):
                return False, n
        return False, None
