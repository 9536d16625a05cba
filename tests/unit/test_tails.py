"""The decision's exact tests: one-sided tails against exact rational arithmetic, attainable
p-values, discrete Holm, the Berry–Esseen screen and the smallest p-values runs allow."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evolve_action.verdict.tails import (
    Margins,
    Tail,
    discrete_holm,
    extreme_floor,
    informative,
    surely_above,
    tail,
)


def brute_cdf(strata: list[Margins]) -> dict[int, Fraction]:
    """P(total head passes <= t) for every t, by exact enumeration."""
    law: dict[int, Fraction] = {0: Fraction(1)}
    for n_head, n_base, passes in strata:
        step: dict[int, Fraction] = {}
        total = comb(n_head + n_base, passes)
        for t in range(max(0, passes - n_base), min(passes, n_head) + 1):
            p = Fraction(comb(n_head, t) * comb(n_base, passes - t), total)
            for s, q in law.items():
                step[s + t] = step.get(s + t, Fraction(0)) + p * q
        law = step
    out, running = {}, Fraction(0)
    for t in sorted(law):
        running += law[t]
        out[t] = running
    return out


margins = st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(0, 12)).filter(
    lambda m: m[2] <= m[0] + m[1] and informative(m)
)


@settings(max_examples=120, deadline=None)
@given(st.lists(margins, min_size=1, max_size=8), st.data())
def test_tail_matches_exact_enumeration_and_keeps_every_value_below(
    strata: list[Margins], data: st.DataObject
) -> None:
    exact = brute_cdf(strata)
    observed = data.draw(st.sampled_from(sorted(exact)))
    got = tail(strata, observed)
    assert got.p == pytest.approx(float(exact[observed]), rel=1e-9, abs=1e-28)
    below = [float(v) for t, v in exact.items() if t <= observed and v >= 1e-25]
    for value in below:  # every attainable p-value up to the observed one is kept, exactly
        assert got.attainable(value) == pytest.approx(value, rel=1e-9)
    assert got.floor == pytest.approx(float(min(exact.values())), rel=1e-9, abs=1e-28)


def test_fisher_one_sided_known_values() -> None:
    # 4/4 → 0/4: 1/70; Wikipedia's 1 of 12 vs 9 of 12: one-tailed 0.001380.
    assert tail([(4, 4, 4)], 0).p == pytest.approx(1 / 70)
    assert tail([(12, 12, 10)], 1).p == pytest.approx(0.001380, abs=1e-6)


def test_attainable_values_are_what_a_discrete_test_can_spend() -> None:
    t = tail([(4, 4, 4)], 2)  # lower-tail CDF: 1/70, 17/70, 53/70, ...
    assert t.attainable(0.01) == 0.0  # nothing below 1/70: this test cannot err at 0.01
    assert t.attainable(0.05) == pytest.approx(1 / 70)
    assert t.attainable(17 / 70) == pytest.approx(17 / 70)  # its own value, despite rounding
    assert t.p == pytest.approx(53 / 70)


def test_discrete_holm_charges_nothing_for_tests_that_cannot_reach() -> None:
    broke = tail([(5, 5, 5)], 0)  # 1/252
    stable = Tail((0.3, 1.0), 1)  # its smallest p is 0.3
    rose = tail([(5, 5, 5)], 5)  # as small a floor as the break: charged in full
    assert discrete_holm([broke, stable]) == pytest.approx([1 / 252, 1.0])
    adjusted = discrete_holm([broke, rose])
    assert adjusted[0] == pytest.approx(2 / 252)  # Bonferroni where both can reach
    assert adjusted[1] == pytest.approx(1.0)


def test_discrete_holm_steps_down_and_stays_monotone() -> None:
    a, b = tail([(5, 5, 5)], 0), tail([(5, 5, 5)], 1)  # 1/252 and 26/252
    plain = Tail((0.001, 0.02, 1.0), 1)
    adjusted = discrete_holm([plain, a, b])
    # Step 1 at 1/252: a, plain (0.001), b (1/252) → 1/252 + 0.001 + 1/252.
    assert adjusted[1] == pytest.approx(2 / 252 + 0.001)
    # Step 2 at 0.02: plain, b (its largest value not above 0.02 is 1/252).
    assert adjusted[0] == pytest.approx(0.02 + 1 / 252)
    assert adjusted[2] >= adjusted[0]
    cut = discrete_holm([plain, a, b], stop_above=0.005)
    assert cut[1] == adjusted[1] and cut[0] >= 0.005 and cut[2] >= 0.005


@settings(max_examples=200, deadline=None)
@given(st.lists(margins, min_size=2, max_size=10), st.data())
def test_the_screen_never_clears_a_p_value_at_or_below_the_level(
    strata: list[Margins], data: st.DataObject
) -> None:
    exact = brute_cdf(strata)
    observed = data.draw(st.sampled_from(sorted(exact)))
    level = data.draw(st.sampled_from([0.001, 0.01, 0.05, 0.2]))
    if surely_above(strata, observed, level):
        assert float(exact[observed]) > level


def test_floor_is_the_smallest_p_value_and_extreme_floor_the_limit_table() -> None:
    strata = [(4, 4, 4), (3, 5, 2), (6, 2, 5)]
    assert tail(strata, 9).floor == pytest.approx(float(min(brute_cdf(strata).values())))
    # verdict.md: (1 / C(2N, N))^M for N/N → 0/N on every model.
    assert extreme_floor([(3, 3)]) == pytest.approx(0.05)
    assert extreme_floor([(4, 4)] * 2) == pytest.approx(0.000204, rel=1e-2)
    assert extreme_floor([(5, 5)] * 3) == pytest.approx(6.3e-8, rel=1e-2)
    assert extreme_floor([(2, 4), (0, 4)]) == pytest.approx(1 / 15)  # no head run: no evidence
