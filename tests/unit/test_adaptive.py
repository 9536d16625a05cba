"""The `runs: auto` planner: who gets the next wave, and why the others stop."""

from __future__ import annotations

from evolve_action.verdict.adaptive import (
    Design,
    Extension,
    Stop,
    WavePlan,
    out_of_time,
    plan_wave,
    within_budget,
)
from evolve_action.verdict.sequential import CellKey, Tally

DESIGN = Design(start=2, max_runs=20, alpha=0.05)


def _cells(**moved: Tally) -> dict[CellKey, tuple[Tally, ...]]:
    """Ten stable cases on two models, plus the given cells."""
    cells: dict[CellKey, tuple[Tally, ...]] = {
        ("s", f"c{i}", m): (Tally(2, 2, 2, 2),) for i in range(10) for m in ("a", "o")
    }
    for name, tally in moved.items():
        case, model = name.split("__")
        cells[("s", case, model)] = (tally,)
    return cells


def test_plan_wave__only_the_case_that_dropped_gets_the_next_wave() -> None:
    cells = _cells(greet__a=Tally(2, 2, 0, 2), greet__o=Tally(2, 2, 0, 2))
    wave = plan_wave(cells, dict.fromkeys(cells, 2), DESIGN)
    assert [(e.key, e.runs, e.target) for e in wave.extend] == [
        (("s", "greet", "a"), 2, 4),
        (("s", "greet", "o"), 2, 4),
    ]
    assert {wave.stops[("s", f"c{i}", "a")] for i in range(10)} == {Stop.STABLE}


def test_plan_wave__reasons_for_stopping() -> None:
    cells = _cells(
        rise__a=Tally(0, 2, 2, 2),  # head better: no drop in sight
        new__a=Tally(0, 0, 2, 2),  # one side only
        fixed__a=Tally(2, 2, 0, 2),  # the eval file fixes its runs
        done__a=Tally(2, 2, 0, 2),
    )
    cells[("s", "done", "a")] += (Tally(18, 18, 0, 18),)  # 20/20 → 0/20: decided
    cells[("s", "cap", "a")] = (Tally(2, 2, 1, 2), Tally(17, 18, 12, 18))  # open at the cap
    runs = dict.fromkeys(cells, 2) | {("s", "done", "a"): 20, ("s", "cap", "a"): 20}
    wave = plan_wave(cells, runs, DESIGN, fixed=frozenset({("s", "fixed", "a")}))
    assert not wave.extend
    assert wave.stops[("s", "rise", "a")] is Stop.SETTLED
    assert wave.stops[("s", "new", "a")] is Stop.ONE_SIDE
    assert wave.stops[("s", "fixed", "a")] is Stop.FIXED
    assert wave.stops[("s", "done", "a")] is Stop.DECIDED
    assert wave.stops[("s", "cap", "a")] is Stop.CAP


def test_plan_wave__a_small_chance_drop_late_in_the_runs_is_let_go() -> None:
    cells = _cells(flaky__a=Tally(1, 2, 1, 2))
    cells[("s", "flaky", "a")] += (Tally(5, 7, 4, 7),)  # 6/9 → 5/9 after 9 runs
    wave = plan_wave(cells, dict.fromkeys(cells, 2) | {("s", "flaky", "a"): 9}, DESIGN)
    assert not wave.extend and wave.stops[("s", "flaky", "a")] is Stop.SETTLED


def _ext(case: str, urgency: float) -> Extension:
    return Extension(("s", case, "a"), 4, 6, urgency)


def test_within_budget__keeps_the_most_urgent_that_fit_and_says_why_the_rest_stopped() -> None:
    wave = WavePlan([_ext("near", 1.0), _ext("far", 9.0), _ext("farther", 12.0)])
    kept = within_budget(wave, lambda _key: 0.5, remaining_usd=4.5)  # 2 runs × 2 sides each
    assert [e.key[1] for e in kept.extend] == ["near", "far"]
    assert kept.stops[("s", "farther", "a")] is Stop.BUDGET
    assert within_budget(wave, lambda _key: 0.5, None) is wave
    spent = within_budget(wave, lambda _key: 0.0, remaining_usd=0.0)
    assert not spent.extend and len(spent.stops) == 3


def test_out_of_time__every_open_cell_stops_for_the_clock() -> None:
    stopped = out_of_time(WavePlan([_ext("x", 1.0)], {("s", "y", "a"): Stop.STABLE}))
    assert stopped.stops == {("s", "x", "a"): Stop.TIME, ("s", "y", "a"): Stop.STABLE}
    assert not stopped.extend


def test_design__next_target_follows_the_schedule_up_to_the_cap() -> None:
    assert [DESIGN.next_target(n) for n in (2, 4, 6, 9, 13, 19, 20)] == [4, 6, 9, 13, 19, 20, None]
