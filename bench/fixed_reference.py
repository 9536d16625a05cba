"""The reference fixed-N rule of the study before issue 11, small, for comparisons only.

bench/adaptive.py compares `runs: auto` with fixed designs judged by this rule: per case a
one-sided exact stratified test pooled over its models, plus one per (case, model) cell when
two or more models are informative, with discrete Holm (attainable p-values) at 0.8·alpha;
per suite the same test over its cells, discrete Holm over suites at 0.2·alpha. The product's
own fixed-N gate (issue 11) replaces this module when the branches meet.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from functools import lru_cache

Counts = tuple[int, int, int, int]  # base passed, base runs, head passed, head runs
CellKey = tuple[str, str, str]


@lru_cache(maxsize=65536)
def _hypergeometric(counts: Counts) -> tuple[int, tuple[float, ...]]:
    base_passed, base_runs, head_passed, head_runs = counts
    passes = base_passed + head_passed
    low, high = max(0, passes - base_runs), min(passes, head_runs)
    total = math.comb(base_runs + head_runs, passes)
    return low, tuple(
        math.comb(head_runs, k) * math.comb(base_runs, passes - k) / total
        for k in range(low, high + 1)
    )


def _informative(c: Counts) -> bool:
    return c[1] > 0 and c[3] > 0 and 0 < c[0] + c[2] < c[1] + c[3]


@lru_cache(maxsize=65536)
def lower_tail(strata: tuple[Counts, ...]) -> tuple[float, tuple[float, ...]] | None:
    """(p, attainable p-values) of a drop, or None when no stratum is informative."""
    offset, dist, observed = 0, [1.0], 0
    used = [c for c in strata if _informative(c)]
    if not used:
        return None
    for c in used:
        low, probs = _hypergeometric(c)
        out = [0.0] * (len(dist) + len(probs) - 1)
        for i, x in enumerate(dist):
            for j, y in enumerate(probs):
                out[i + j] += x * y
        dist, offset, observed = out, offset + low, observed + c[2]
    cdf = []
    running = 0.0
    for p in dist:
        running += p
        cdf.append(min(1.0, running))
    return cdf[observed - offset], tuple(cdf)


def _attainable(cdf: Sequence[float], c: float) -> float:
    i = bisect_right(cdf, c * (1 + 1e-9))
    return cdf[i - 1] if i else 0.0


def discrete_holm(tests: Sequence[tuple[float, Sequence[float]]], level: float) -> list[bool]:
    order = sorted(range(len(tests)), key=lambda i: tests[i][0])
    remaining = set(range(len(tests)))
    rejected = [False] * len(tests)
    for i in order:
        p = tests[i][0]
        if math.fsum(_attainable(tests[j][1], p) for j in remaining) > level * (1 + 1e-9):
            break
        rejected[i] = True
        remaining.discard(i)
    return rejected


def flagged(cells: Mapping[CellKey, Counts], alpha: float) -> tuple[set[tuple[str, str]], bool]:
    """(cases named, whether anything, a case or a suite, was flagged)."""
    by_case: dict[tuple[str, str], list[Counts]] = {}
    by_suite: dict[str, list[Counts]] = {}
    for (suite, case, _model), c in cells.items():
        by_case.setdefault((suite, case), []).append(c)
        by_suite.setdefault(suite, []).append(c)
    owners: list[tuple[str, str]] = []
    tests: list[tuple[float, Sequence[float]]] = []
    for key, strata in by_case.items():
        pooled = lower_tail(tuple(strata))
        if pooled is None:
            continue
        owners.append(key)
        tests.append(pooled)
        informative = [c for c in strata if _informative(c)]
        if len(informative) >= 2:
            for c in informative:
                one = lower_tail((c,))
                assert one is not None
                owners.append(key)
                tests.append(one)
    named = {o for o, r in zip(owners, discrete_holm(tests, 0.8 * alpha), strict=True) if r}
    suite_tests = [t for s in by_suite.values() if (t := lower_tail(tuple(s))) is not None]
    suites = any(discrete_holm(suite_tests, 0.2 * alpha))
    return named, bool(named) or suites
