"""The decision itself: its false-alarm rate computed exactly by enumerating every outcome,
the fast path against the detailed one, "too few runs to tell" and the runs that would do."""

from __future__ import annotations

import itertools
import random
from math import comb

import pytest

from evolve_action.verdict.decide import Cell, CellKey, Finding, decide

ALPHA = 0.05


def binomial(n: int, p: float) -> list[float]:
    return [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


def false_alarm(rates: dict[CellKey, tuple[float, float]], n: int) -> float:
    """P(the verdict says regressed), summed exactly over every outcome of every cell."""
    keys = list(rates)
    laws = [(binomial(n, p), binomial(n, q)) for p, q in rates.values()]
    total = 0.0
    outcomes = itertools.product(*[itertools.product(range(n + 1), repeat=2)] * len(keys))
    for outcome in outcomes:
        weight = 1.0
        cells = {}
        for key, (b, h), (base_law, head_law) in zip(keys, outcome, laws, strict=True):
            weight *= base_law[b] * head_law[h]
            cells[key] = Cell(b, n - b, h, n - h)
        if weight and decide(cells, ALPHA, detail=False).regressed:
            total += weight
    return total


@pytest.mark.parametrize(
    ("shape", "n"),
    [
        ("2 cases, 1 model, 1 suite", 3),
        ("2 cases, 1 model, 2 suites", 4),
        ("1 case, 2 models", 4),
        ("3 cases, 1 model, 1 suite", 2),
    ],
)
@pytest.mark.parametrize("base", [0.5, 0.8, "mixed", "improving"])
def test_nothing_got_worse__regressed_at_most_alpha_of_the_time_exactly(
    shape: str, n: int, base: float | str
) -> None:
    if shape.startswith("1 case"):
        keys = [("s", "c0", "m0"), ("s", "c0", "m1")]
    else:
        cases = int(shape[0])
        suites = 2 if "2 suites" in shape else 1
        keys = [(f"s{i % suites}", f"c{i}", "m0") for i in range(cases)]
    if base == "mixed":
        rates = {k: (p, p) for k, p in zip(keys, (0.3, 0.9, 0.6), strict=False)}
    elif base == "improving":
        rates = {k: (p, min(1.0, p + 0.4)) for k, p in zip(keys, (0.5, 0.7, 0.4), strict=False)}
    else:
        assert isinstance(base, float)
        rates = dict.fromkeys(keys, (base, base))
    assert false_alarm(rates, n) <= ALPHA + 1e-12


def random_cells(rng: random.Random) -> dict[CellKey, Cell]:
    cells = {}
    n = rng.choice([2, 3, 5, 8])
    for case in range(rng.randint(1, 14)):
        for model in range(rng.randint(1, 3)):
            p = rng.random()
            q = max(0.0, p - rng.choice([0.0, 0.0, 0.3, 1.0]))
            b, h = (sum(rng.random() < x for _ in range(n)) for x in (p, q))
            cells[(f"s{case % 3}", f"c{case}", f"m{model}")] = Cell(b, n - b, h, n - h)
    return cells


def test_the_fast_path_decides_exactly_what_the_detailed_one_does() -> None:
    rng = random.Random(11)
    for _ in range(300):
        cells = random_cells(rng)
        fast, full = decide(cells, ALPHA, detail=False), decide(cells, ALPHA)
        assert fast.regressed_cases == full.regressed_cases
        assert fast.regressed_suites == full.regressed_suites


def test_a_rise_on_one_model_does_not_hide_a_drop_on_another() -> None:
    cells = {("s", "c", "a"): Cell(5, 0, 0, 5), ("s", "c", "o"): Cell(0, 5, 5, 0)}
    v = decide(cells, ALPHA)
    assert v.regressed_cases == [("s", "c")]
    assert v.cases[("s", "c")].rows["a"].finding is Finding.REGRESSED
    assert v.cases[("s", "c")].rows["o"].finding is Finding.IMPROVED


def test_a_drop_too_small_for_the_pr_is_dropped_with_its_adjusted_p() -> None:
    cells = {("s", f"c{i}", "m"): Cell(2, 3, 3, 2) for i in range(10)}
    cells[("s", "flaky", "m")] = Cell(4, 1, 1, 4)
    case = decide(cells, ALPHA).cases[("s", "flaky")]
    assert case.finding is Finding.DROPPED and case.adjusted_p is not None
    assert case.adjusted_p > ALPHA and case.rows["m"].finding is Finding.DROPPED


def test_errors_shrink_the_evidence_and_are_counted() -> None:
    v = decide({("s", "c", m): Cell(4, 0, 0, 2, 0, 2) for m in ("a", "o")}, ALPHA)
    case = v.cases[("s", "c")]
    assert case.finding is Finding.REGRESSED and (case.runs, case.errored) == (2, 4)
    assert case.adjusted_p == pytest.approx((1 / 15) ** 2)


def test_too_few_runs__and_the_runs_that_would_do_really_do() -> None:
    cells = {("s", "status-file", "m"): Cell(3, 0, 0, 3), ("s", "farewell", "m"): Cell(0, 3, 3, 0)}
    v = decide(cells, ALPHA)
    assert not v.regressed and sorted(v.too_few_runs) == [("s", "farewell"), ("s", "status-file")]
    needed = v.cases[("s", "status-file")].runs_needed
    assert needed == 4
    for runs, flagged in ((needed, True), (needed - 1, False)):
        worst = {**cells, ("s", "status-file", "m"): Cell(runs, 0, 0, runs)}
        assert decide(worst, ALPHA).regressed is flagged


def test_runs_needed_grows_with_the_size_of_the_pr() -> None:
    def needed(others: int) -> int | None:
        # Other cases with 10 runs a side and some movement: each can spend some alpha.
        cells = {(f"s{i % 5}", f"c{i}", "m"): Cell(5, 5, 3, 7) for i in range(1, others + 1)}
        cells[("s0", "c0", "m")] = Cell(2, 0, 0, 2)
        return decide(cells, ALPHA).cases[("s0", "c0")].runs_needed

    small, large = needed(2), needed(40)
    assert small is not None and large is not None and small < large


def test_a_stable_pr_is_detectable_and_says_nothing_else() -> None:
    cells = {("s", f"c{i}", "m"): Cell(5, 0, 5, 0) for i in range(20)}
    v = decide(cells, ALPHA)
    assert not v.regressed and not v.too_few_runs
    assert {c.finding for c in v.cases.values()} == {Finding.UNCHANGED}
    assert v.row(("s", "c3", "m")) is not None and v.row(("s", "nope", "m")) is None


def test_cases_get_all_of_alpha_when_no_suite_test_could_reach_its_share() -> None:
    one_case = decide({("s", "c", "m"): Cell(3, 0, 0, 3)}, ALPHA)
    assert one_case.case_share == 1.0 and one_case.regressed  # 1/20 at alpha 0.05
    two = decide({("s", "c", "m"): Cell(3, 0, 0, 3), ("s", "d", "m"): Cell(3, 0, 1, 2)}, ALPHA)
    assert two.case_share == 0.8
