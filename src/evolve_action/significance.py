"""Is a change in pass rate real? Exact tests on pass counts, standard library only.

Per case and model: Fisher's exact test, two-sided, on the 2×2 table (head passed/failed
against base passed/failed).

Per suite, per model and overall: the exact *stratified* test of the same null (the
conditional test behind Cochran–Mantel–Haenszel, as R's `mantelhaen.test(exact = TRUE)`).
Each case is a stratum: within a case the head is compared with its own base, so the test is
paired by case, and the statistic — the total number of head passes — pools every run of
every case. Its null distribution, given each case's margins, is the convolution of the
cases' hypergeometric distributions. Cases whose runs all passed (or all failed) on both
sides carry no information and drop out by themselves (their hypergeometric is one point).

Why this test and not a sign test or Wilcoxon over per-case rate differences: those throw
the run counts away and cannot reach p < 0.05 at all with fewer than six cases (the smallest
two-sided p of a sign test over k cases is 2/2^k), and a single case with 5 runs per side
reaches it only when nearly every run flips (about 12% power for a 0.9 → 0.5 drop, with any
exact test). The stratified test is exact — it conditions on each case's margins, so its
false-alarm rate stays under α whatever the cases' base rates — and keeps all the evidence.

The group label is decided by a one-sided test in the observed direction, each direction at
α: "regressed" is claimed when P(head passes ≤ observed) ≤ α, "improved" when
P(≥ observed) ≤ α. That is exactly the guarantee a reader needs (a false "regressed" at
most α of the time, likewise a false "improved"), and it buys power over splitting α between
the two tails. Simulated with 5 runs per side and a 0.9 → 0.5 drop in every case, power is
12% for one case, 47% for two, 67% for three, 82% for four and 95% for six, while A/A runs
at base rates 0.5–0.9 report a false regression 0.5–3% of the time (tests/unit/
test_significance.py checks both). Per-case labels keep the two-sided Fisher p-value, which
is also what the comment shows; `holm` adjusts a family of them for a family-wise gate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

DEFAULT_ALPHA = 0.05
# Outcomes whose probability equals the observed one up to rounding count as "as extreme".
_RELATIVE_TIE = 1e-7


class Label(StrEnum):
    REGRESSED = "regressed"
    IMPROVED = "improved"
    UNCHANGED = "no significant change"
    NEW = "new"  # only on head
    REMOVED = "removed"  # only on base
    ERROR = "error"  # ran on both sides, but one side has no graded run


@dataclass(frozen=True, slots=True)
class Counts:
    """Pass counts of one case on one model: head against base (graded runs only)."""

    head_passed: int
    head_failed: int
    base_passed: int
    base_failed: int


@dataclass(frozen=True, slots=True)
class TestResult:
    p_value: float  # two-sided (Fisher's rule: outcomes no more likely than the observed one)
    p_directional: float  # one-sided, in the observed direction
    # -1 when head passed less often than the null expects, +1 when more, 0 when exactly.
    direction: int
    method: str  # "fisher" | "stratified-exact"
    strata: int  # informative strata (cases) that entered the test


def _hypergeometric(c: Counts) -> tuple[int, list[float]]:
    """The null distribution of head passes given the margins, as (first value, probs)."""
    n_head = c.head_passed + c.head_failed
    n_base = c.base_passed + c.base_failed
    passes = c.head_passed + c.base_passed
    low, high = max(0, passes - n_base), min(passes, n_head)
    total = math.comb(n_head + n_base, passes)
    probs = [
        math.comb(n_head, t) * math.comb(n_base, passes - t) / total for t in range(low, high + 1)
    ]
    return low, probs


def _convolve(a: list[float], b: list[float]) -> list[float]:
    out = [0.0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


def stratified_exact(strata: Sequence[Counts]) -> TestResult:
    """Two-sided exact test that head and base share each stratum's pass probability."""
    offset, dist = 0, [1.0]
    observed = 0
    expected = 0.0
    informative = 0
    for c in strata:
        n_head = c.head_passed + c.head_failed
        n_base = c.base_passed + c.base_failed
        if not n_head or not n_base:
            continue
        low, probs = _hypergeometric(c)
        if len(probs) > 1:
            informative += 1
        offset += low
        dist = _convolve(dist, probs)
        observed += c.head_passed
        expected += n_head * (c.head_passed + c.base_passed) / (n_head + n_base)
    method = "fisher" if len(strata) == 1 else "stratified-exact"
    if informative == 0:
        return TestResult(1.0, 1.0, 0, method, 0)
    at = observed - offset
    cutoff = dist[at] * (1 + _RELATIVE_TIE)
    p_value = min(1.0, math.fsum(p for p in dist if p <= cutoff))
    gap = observed - expected
    direction = 0 if abs(gap) < 1e-9 else (1 if gap > 0 else -1)
    tail = dist[at:] if direction > 0 else dist[: at + 1]
    p_directional = min(1.0, math.fsum(tail)) if direction else 1.0
    return TestResult(p_value, p_directional, direction, method, informative)


def fisher_exact(c: Counts) -> TestResult:
    """Fisher's exact test, two-sided, on one case's 2×2 table."""
    return stratified_exact([c])


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values, in the input order (for family-wise gating)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def label(test: TestResult | None, alpha: float = DEFAULT_ALPHA, *, directional: bool) -> Label:
    """`regressed` / `improved` only when the test rejects at `alpha`.

    `directional` picks the one-sided p-value (group labels) over the two-sided one (cases).
    """
    if test is None or test.direction == 0:
        return Label.UNCHANGED
    p_value = test.p_directional if directional else test.p_value
    if p_value > alpha:
        return Label.UNCHANGED
    return Label.IMPROVED if test.direction > 0 else Label.REGRESSED
