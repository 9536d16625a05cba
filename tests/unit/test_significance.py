"""The descriptive exact tests on pass counts: known values and exactness (they decide nothing;
the decision's tests are in test_tails.py and test_verdict.py)."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evolve_action.verdict.significance import Counts, fisher_exact, stratified_exact


def test_fisher_four_of_four_against_none() -> None:
    test = fisher_exact(Counts(head_passed=0, head_failed=4, base_passed=4, base_failed=0))
    assert test.p_value == pytest.approx(2 / 70)  # 0.0286
    assert test.direction == -1 and test.method == "fisher"
    assert test.p_directional == pytest.approx(1 / 70)


def test_fisher_textbook_values() -> None:
    # Fisher's tea-tasting table: two-sided 0.4857, one-sided 0.2429 (17/70).
    tea = fisher_exact(Counts(3, 1, 1, 3))
    assert tea.p_value == pytest.approx(34 / 70)
    assert tea.p_directional == pytest.approx(17 / 70) and tea.direction == 1
    # Wikipedia's worked example (1 of 12 vs 9 of 12): the table itself has
    # probability 0.001346; with the one more extreme table, one-tailed 0.001380;
    # two-tailed 0.002759.
    example = fisher_exact(Counts(1, 11, 9, 3))
    assert example.p_value == pytest.approx(0.002759, abs=1e-6)
    assert example.p_directional == pytest.approx(0.001380, abs=1e-6)


def test_swapping_sides_flips_direction_not_p() -> None:
    a = fisher_exact(Counts(5, 0, 1, 4))
    b = fisher_exact(Counts(1, 4, 5, 0))
    assert a.p_value == pytest.approx(b.p_value) and (a.direction, b.direction) == (1, -1)


def test_no_information_means_no_change() -> None:
    for counts in (Counts(5, 0, 5, 0), Counts(0, 3, 0, 3), Counts(0, 0, 4, 1)):
        test = stratified_exact([counts, counts])
        assert (test.p_value, test.direction, test.strata) == (1.0, 0, 0)


def _brute_fisher(c: Counts) -> Fraction:
    n1, n0 = c.head_passed + c.head_failed, c.base_passed + c.base_failed
    m = c.head_passed + c.base_passed

    def prob(t: int) -> Fraction:
        return Fraction(comb(n1, t) * comb(n0, m - t), comb(n1 + n0, m))

    observed = prob(c.head_passed)
    support = range(max(0, m - n0), min(m, n1) + 1)
    return sum((prob(t) for t in support if prob(t) <= observed), Fraction(0))


counts = st.builds(
    Counts,
    st.integers(0, 8),
    st.integers(0, 8),
    st.integers(0, 8),
    st.integers(0, 8),
).filter(lambda c: c.head_passed + c.head_failed > 0 and c.base_passed + c.base_failed > 0)


@settings(max_examples=150, deadline=None)
@given(counts)
def test_fisher_matches_exact_rational_arithmetic(c: Counts) -> None:
    assert fisher_exact(c).p_value == pytest.approx(float(_brute_fisher(c)), rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(counts, min_size=2, max_size=4))
def test_stratified_matches_brute_force_enumeration(strata: list[Counts]) -> None:
    # Enumerate every joint outcome with the same margins and sum by total head passes.
    dist: dict[int, Fraction] = {0: Fraction(1)}
    for c in strata:
        n1, n0 = c.head_passed + c.head_failed, c.base_passed + c.base_failed
        m = c.head_passed + c.base_passed
        step: dict[int, Fraction] = {}
        for t in range(max(0, m - n0), min(m, n1) + 1):
            p = Fraction(comb(n1, t) * comb(n0, m - t), comb(n1 + n0, m))
            for total, q in dist.items():
                step[total + t] = step.get(total + t, Fraction(0)) + p * q
        dist = step
    observed = sum(c.head_passed for c in strata)
    two_sided = sum((p for p in dist.values() if p <= dist[observed]), Fraction(0))
    lower = sum((p for t, p in dist.items() if t <= observed), Fraction(0))
    upper = sum((p for t, p in dist.items() if t >= observed), Fraction(0))
    test = stratified_exact(strata)
    assert test.p_value == pytest.approx(float(two_sided), rel=1e-9)
    if test.direction < 0:
        assert test.p_directional == pytest.approx(float(lower), rel=1e-9)
    elif test.direction > 0:
        assert test.p_directional == pytest.approx(float(upper), rel=1e-9)


@pytest.mark.parametrize("margins", [(5, 5, 7), (5, 5, 5), (4, 6, 3), (10, 10, 12)])
def test_fisher_never_rejects_more_often_than_alpha(margins: tuple[int, int, int]) -> None:
    # Exactness: under the null, P(p <= alpha) <= alpha for every alpha, given the margins.
    n1, n0, m = margins
    support = range(max(0, m - n0), min(m, n1) + 1)
    outcomes = [
        (Counts(t, n1 - t, m - t, n0 - m + t), comb(n1, t) * comb(n0, m - t) / comb(n1 + n0, m))
        for t in support
    ]
    for alpha in (0.01, 0.05, 0.1, 0.3):
        size = sum(p for c, p in outcomes if fisher_exact(c).p_value <= alpha)
        assert size <= alpha + 1e-12
