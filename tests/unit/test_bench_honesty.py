"""The honesty simulation's helpers (bench/honesty.py); no timing here."""

from __future__ import annotations

import random

from bench.honesty import flagged, simulate_pr, upper_95
from evolve_action.outcomes import Side, Status


def test_simulate_pr_builds_every_run_of_both_sides() -> None:
    runs = simulate_pr(random.Random(1), 1.0, 0.0, cases=3, runs=4)
    assert len(runs) == 2 * 3 * 4
    assert all(r.status is Status.PASS for r in runs if r.side is Side.BASE)
    assert all(r.status is Status.FAIL for r in runs if r.side is Side.HEAD)


def test_a_certain_drop_is_flagged_and_no_change_is_not() -> None:
    drop = simulate_pr(random.Random(2), 1.0, 0.0, cases=3, runs=5)
    same = simulate_pr(random.Random(3), 1.0, 1.0, cases=3, runs=5)
    assert flagged(drop, 0.05)[0] is True
    assert flagged(same, 0.05) == (False, 0)


def test_upper_bound_brackets_the_observed_share() -> None:
    assert 0.015 < upper_95(15, 1000) < 0.03
    assert upper_95(10, 10) == 1.0
