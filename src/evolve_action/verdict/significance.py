"""Descriptive exact tests on pass counts, and the labels a row or group can carry.

Per case and model: Fisher's exact test on the 2×2 table (head passed/failed against base
passed/failed). Per suite, per model and overall: the exact *stratified* test of the same null
(the conditional test behind Cochran–Mantel–Haenszel, as R's `mantelhaen.test(exact = TRUE)`):
each case is a stratum, the statistic is the total number of head passes, and its null law
given each case's margins is the convolution of the cases' hypergeometric laws.

These figures are uncorrected: each one looked at alone would call some unchanged pull request
"regressed" one time in twenty, and a pull request has many of them. They are written to
results.json as descriptions and decide nothing. Every "regressed" and "improved" the reader,
the check and the exit code see comes from `verdict.decide`, one family of one-sided tests with
a correction over the whole pull request.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from evolve_action.settings.inputs import default_of
from evolve_action.verdict.tails import convolve, hypergeometric

# The chance of a false "regressed" the check allows per pull request: the `alpha` input's.
DEFAULT_ALPHA: float = default_of("alpha")
# Outcomes whose probability equals the observed one up to rounding count as "as extreme".
_RELATIVE_TIE = 1e-7


class Label(StrEnum):
    REGRESSED = "regressed"
    IMPROVED = "improved"
    UNCHANGED = "no significant change"
    NEW = "new"  # only on head
    REMOVED = "removed"  # only on base
    ERROR = "error"  # ran on both sides, but one side has no graded run
    NOT_RUN = "not run"  # planned on both sides, but one side's runs were never made
    NOT_COMPARED = "not compared"  # the PR changed its task, or its checks


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
        low, probs = hypergeometric((n_head, n_base, c.head_passed + c.base_passed))
        if len(probs) > 1:
            informative += 1
        offset += low
        dist = convolve(dist, probs)
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
