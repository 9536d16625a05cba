"""The sequential evidence: e-values whose mean is at most 1 under "nothing got worse", exactly,
and decisions that mirror the fixed gate's family (cases and cells, suites apart)."""

from __future__ import annotations

import math
import random
from itertools import product

import pytest

from evolve_action.verdict.sequential import (
    Kind,
    Tally,
    block_of,
    boundaries,
    cell_evidence,
    closed_test,
    decide,
    stratified_evidence,
    tallies,
)


def _binom(n: int, k: int, p: float) -> float:
    return math.comb(n, k) * p**k * (1 - p) ** (n - k)


def _expected(blocks: list[tuple[int, int]], base: float, head: float) -> float:
    """E[e] over every outcome of blocks of (base runs, head runs) at these true rates."""
    total = 0.0
    outcomes = [range(b + 1) for b, _ in blocks] + [range(h + 1) for _, h in blocks]
    for counts in product(*outcomes):
        xs, ys = counts[: len(blocks)], counts[len(blocks) :]
        prob = math.prod(_binom(b, x, base) for (b, _), x in zip(blocks, xs, strict=True))
        prob *= math.prod(_binom(h, y, head) for (_, h), y in zip(blocks, ys, strict=True))
        cells = tuple(Tally(x, b, y, h) for (b, h), x, y in zip(blocks, xs, ys, strict=True))
        total += prob * math.exp(cell_evidence(cells))
    return total


@pytest.mark.parametrize("blocks", [[(2, 2)], [(2, 2), (2, 2)], [(3, 2), (1, 3)], [(2, 2), (3, 3)]])
@pytest.mark.parametrize(
    "base, head", [(0.5, 0.5), (0.9, 0.9), (0.2, 0.2), (0.6, 0.8), (0.05, 0.95), (0.7, 0.7001)]
)
def test_cell_evidence__mean_is_at_most_one_whenever_head_is_not_worse(
    blocks: list[tuple[int, int]], base: float, head: float
) -> None:
    assert _expected(blocks, base, head) <= 1 + 1e-9


def test_cell_evidence__grows_with_a_break_and_shrinks_with_a_rise() -> None:
    broke = [Tally(2, 2, 0, 2), Tally(2, 2, 0, 2), Tally(3, 3, 0, 3)]
    assert cell_evidence(broke[:1]) < cell_evidence(broke[:2]) < cell_evidence(broke)
    assert math.exp(cell_evidence(broke)) > 100
    rose = [Tally(0, 2, 2, 2), Tally(0, 2, 2, 2)]
    assert cell_evidence(rose) < 0
    assert cell_evidence([Tally(2, 2, 2, 2)]) == 0  # stable start: exactly 1, costs nothing


def test_stratified_evidence__mean_is_at_most_one_for_a_common_null() -> None:
    total = 0.0
    for x1, y1, x2, y2 in product(range(3), range(3), range(4), range(4)):
        prob = _binom(2, x1, 0.7) * _binom(2, y1, 0.7) * _binom(3, x2, 0.3) * _binom(3, y2, 0.4)
        cells = [[Tally(x1, 2, y1, 2)], [Tally(x2, 3, y2, 3)]]
        total += prob * math.exp(stratified_evidence(cells))
    assert total <= 1 + 1e-9


def test_boundaries_and_blocks__start_then_about_forty_percent_more_up_to_the_cap() -> None:
    assert boundaries(2, 20) == (2, 4, 6, 9, 13, 19, 20)
    assert boundaries(3, 3) == (3,)
    bounds = boundaries(2, 20)
    assert [block_of(r, bounds) for r in (1, 2, 3, 4, 5, 20, 21)] == [0, 0, 1, 1, 2, 6, 7]
    runs = {"base": [(1, True), (2, True), (3, None)], "head": [(1, False), (2, True), (3, False)]}
    assert tallies(runs, bounds) == (Tally(2, 2, 1, 2), Tally(0, 0, 0, 1))  # errors left out


def test_closed_test__one_strong_e_value_is_bonferroni_and_strong_pairs_help_each_other() -> None:
    log = math.log
    alone = closed_test([log(200), log(0.5), log(0.5), log(0.5)], 0.05)
    assert alone[0] == pytest.approx(max(1 / 200, 2 / 200.5, 3 / 201, 4 / 201.5))
    assert alone[1:] == [1.0, 1.0, 1.0]
    pair = closed_test([log(60), log(60), log(0.1), log(0.1)], 0.05)
    assert pair[0] == pytest.approx(3 / 60.2) and pair[0] < 4 / 60  # Bonferroni: 4 / 60


def _break(runs: int) -> list[Tally]:
    bounds = boundaries(2, 20)
    return list(tallies({"base": [(r, True) for r in range(1, runs + 1)],
                         "head": [(r, False) for r in range(1, runs + 1)]}, bounds))  # fmt: skip


def _same(runs: int, passed: bool) -> list[Tally]:
    bounds = boundaries(2, 20)
    rows = [(r, passed) for r in range(1, runs + 1)]
    return list(tallies({"base": rows, "head": rows}, bounds))


def test_decide__a_break_on_every_model_is_named_and_a_rise_elsewhere_does_not_hide_it() -> None:
    cells = {("s", "status-file", m): _break(6) for m in ("a", "o")}
    cells |= {("s", "farewell", m): [t.swapped() for t in _break(6)] for m in ("a", "o")}
    cells |= {("s", f"c{i}", m): _same(2, i % 2 == 0) for i in range(16) for m in ("a", "o")}
    verdict = decide(cells, 0.05)
    assert verdict.regressed_cases == {("s", "status-file")}
    assert verdict.fails
    assert ("s", "farewell") in verdict.improved_cases
    rejected = {(h.kind, h.case, h.model) for h in verdict.drops if h.rejected}
    assert (Kind.CASE, "status-file", "") in rejected


def test_decide__a_drop_on_one_model_is_not_cancelled_by_a_rise_on_another() -> None:
    cells = {("s", "flip", "a"): _break(9), ("s", "flip", "o"): [t.swapped() for t in _break(9)]}
    verdict = decide(cells, 0.05)
    assert verdict.regressed_cases == {("s", "flip")}
    assert [h.model for h in verdict.flagged(Kind.CELL)] == ["a"]


def test_decide__nothing_moved_or_only_rises_never_fails() -> None:
    same = {("s", f"c{i}", "a"): _same(4, i % 3 > 0) for i in range(20)}
    assert not decide(same, 0.05).fails
    rises = {("s", f"c{i}", "a"): [t.swapped() for t in _break(9)] for i in range(3)}
    verdict = decide(rises, 0.05)
    assert not verdict.fails and len(verdict.improved_cases) == 3


def test_decide__three_runs_each_way_on_one_model_is_not_enough() -> None:
    cells = {("s", "a", "m"): _break(3), ("s", "b", "m"): [t.swapped() for t in _break(3)]}
    verdict = decide(cells, 0.05)
    assert not verdict.fails
    assert all(h.adjusted_p > 0.05 for h in verdict.drops)


def test_decide__new_and_removed_cases_are_left_out() -> None:
    only_head = [Tally(0, 0, 0, 2)]
    verdict = decide({("s", "new", "a"): only_head}, 0.05)
    assert verdict.drops == () and not verdict.fails


def test_decide__false_alarms_stay_under_alpha_when_runs_follow_what_was_seen() -> None:
    """A greedy peeker: after every wave, add runs to each cell whose head looks worse, up to
    20; read the verdict at the end. The e-values keep the PR's false alarms under alpha."""
    rng = random.Random(15)
    bounds = boundaries(2, 20)
    alarms = 0
    prs = 150
    for _ in range(prs):
        rates = {("s", f"c{i}", "m"): rng.uniform(0.3, 0.9) for i in range(5)}
        outcomes = {k: {"base": [], "head": []} for k in rates}
        runs = dict.fromkeys(rates, 0)
        open_cells = set(rates)
        for bound in bounds:
            for key in open_cells:
                for side in ("base", "head"):
                    outcomes[key][side] += [
                        (r, rng.random() < rates[key]) for r in range(runs[key] + 1, bound + 1)
                    ]
                runs[key] = bound
            cells = {k: tallies(v, bounds) for k, v in outcomes.items()}
            open_cells = {
                k for k, v in outcomes.items()
                if sum(p for _, p in v["head"]) < sum(p for _, p in v["base"])
            }  # fmt: skip
        alarms += decide(cells, 0.05, rises=False).fails
    assert alarms / prs <= 0.05
