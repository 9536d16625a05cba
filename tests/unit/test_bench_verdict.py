"""The verdict simulation's helpers (bench/verdict.py); no timing here."""

from __future__ import annotations

import random

from bench.verdict import Config, counts, rates, runs_of, simulate, upper_95
from evolve_action.verdict.decide import decide
from evolve_action.verdict.stats import aggregate


def test_scenarios_set_the_rates_they_name() -> None:
    rng = random.Random(1)
    broke = rates("mirror", 5, 2, rng)
    first = [v for k, v in broke.items() if k[1] == "case-0"]
    second = [v for k, v in broke.items() if k[1] == "case-1"]
    assert first == [(1000, 0)] * 2 and second == [(0, 1000)] * 2
    flip = rates("flip", 1, 3, rng)
    assert list(flip.values()) == [(1000, 0), (0, 1000), (1000, 1000)]
    assert all(b == h for b, h in rates("mixed", 20, 2, rng).values())
    assert {k[0] for k in rates("half", 100, 1, rng)} == {
        f"evals/skill-{i}/evals.json" for i in range(10)
    }  # ten cases to a suite


def test_counts_follow_the_rates_and_runs_stand_for_them() -> None:
    rng = random.Random(2)
    cells = counts(rates("break", 3, 2, rng), 5, rng)
    broken = [c for k, c in cells.items() if k[1] == "case-0"]
    assert all((c.base_passed, c.head_passed) == (5, 0) for c in broken)
    assert all(c.base_passed + c.base_failed == 5 for c in cells.values())
    # The product's aggregate reaches the same decision on the runs these counts stand for.
    runs = runs_of(cells)
    assert len(runs) == 3 * 2 * 2 * 5
    assert aggregate(runs).verdict.regressed == decide(cells, 0.05).regressed


def test_simulate_counts_flagged_prs_and_checks_the_aggregate_path() -> None:
    sure = simulate(Config("break", 1, 2, 5, prs=5, alpha=0.05, seed=3, check=2))
    assert (sure["flagged"], sure["rate"]) == (5, 1.0)
    calm = simulate(Config("high", 5, 1, 3, prs=20, alpha=0.05, seed=3, check=2))
    assert calm["rate"] <= 0.2


def test_upper_bound_brackets_the_observed_share() -> None:
    assert 0.015 < upper_95(15, 1000) < 0.03
    assert upper_95(10, 10) == 1.0
    assert 0.05 < upper_95(300, 6000) < 0.056  # thousands of PRs: no overflow


def test_edited_prs_test_base_ruler_and_agree_with_the_product_path() -> None:
    from bench.ruler_edits import decide_cells, edit, through_product
    from evolve_action.verdict.ruler_cells import is_ruler

    rng = random.Random(4)
    for _ in range(20):
        cells = counts(rates("edited", 6, 2, rng), 5, rng)
        pr = edit(cells, rng)
        decided = decide_cells(pr)
        edited = {d.base_case for d in pr.diffs}
        assert len(decided) == len(cells)
        assert {k[1][2:] for k in decided if is_ruler(k[1])} == edited
        assert all(pr.own_head[k] <= c.head_passed for k, c in cells.items() if k[1] in edited)
        assert through_product(pr, 0.05) == decide(decided, 0.05).regressed
    sure = simulate(Config("edited", 5, 2, 5, prs=10, alpha=0.05, seed=3, check=10))
    assert sure["prs"] == 10
