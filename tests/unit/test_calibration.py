"""The calibration's rules: the runs per side that would catch a complete break (written once,
on the verdict's own tests), what counts as moved, flipped and flagged, and its check."""

from __future__ import annotations

import math

import pytest

from evolve_action.model.outcomes import RunResult, Side, Status, Transcript
from evolve_action.verdict.budget import MAX_RUNS
from evolve_action.verdict.calibration import (
    break_cell,
    calibrate,
    calibration_gate,
    runs_needed,
)
from evolve_action.verdict.decide import Cell
from evolve_action.verdict.gate import Gate
from evolve_action.verdict.stats import aggregate

KEY = ("evals/a.json", "case", "anthropic/m")


def alone(rate: float, alpha: float) -> int | None:
    """The same question answered from scratch: Fisher's one-sided p of k of n passes against
    0 of n is C(n, k) / C(2n, k) (every pass on one side)."""
    for n in range(1, MAX_RUNS + 1):
        k = math.floor(rate * n + 1e-9)
        if k and math.comb(n, k) / math.comb(2 * n, k) <= alpha * (1 + 1e-9):
            return n
    return None


def test_break_cell__rounds_the_unbroken_side_down() -> None:
    assert break_cell(0.5, 3) == Cell(base_passed=1, base_failed=2, head_passed=0, head_failed=3)
    assert break_cell(1.0, 4) == Cell(4, 0, 0, 4)
    assert break_cell(0.7, 10).base_passed == 7  # 0.7 · 10 is 6.999… in floating point


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.1])
@pytest.mark.parametrize("rate", [1.0, 0.9, 0.75, 0.5, 0.3, 0.2])
def test_runs_needed__alone_is_the_exact_test_at_alpha(rate: float, alpha: float) -> None:
    assert runs_needed(KEY, rate, {}, alpha) == alone(rate, alpha)


def test_runs_needed__known_values() -> None:
    assert runs_needed(KEY, 1.0, {}, 0.05) == 3  # 3/3 → 0/3: p = 1/20
    assert runs_needed(KEY, 1.0, {}, 0.01) == 5  # 4/4 → 0/4 is 1/70; 5/5 → 0/5 is 1/252
    assert runs_needed(KEY, 0.5, {}, 0.05) == 8


def test_runs_needed__nothing_to_break_or_out_of_reach() -> None:
    assert runs_needed(KEY, 0.0, {}, 0.05) is None  # never passes
    assert runs_needed(KEY, 0.02, {}, 0.05) is None  # past MAX_RUNS per side


def test_runs_needed__other_unstable_evals_ask_for_more() -> None:
    noisy = {("evals/a.json", f"other{i}", "anthropic/m"): Cell(2, 2, 2, 2) for i in range(20)}
    stable = {("evals/a.json", f"other{i}", "anthropic/m"): Cell(4, 0, 4, 0) for i in range(20)}
    assert runs_needed(KEY, 1.0, stable, 0.05) == 3  # stable evals spend nothing
    assert runs_needed(KEY, 1.0, noisy, 0.05) == 5


def run(case: str, side: Side, rep: int, passed: bool) -> RunResult:
    status = Status.PASS if passed else Status.FAIL
    return RunResult(
        suite="evals/a.json", case_id=case, model="anthropic/m", side=side, repetition=rep,
        status=status, score=1.0 if passed else 0.0, transcript=Transcript(),
    )  # fmt: skip


def runs(case: str, a: int, b: int, n: int) -> list[RunResult]:
    return [run(case, Side.BASE, i + 1, i < a) for i in range(n)] + [
        run(case, Side.HEAD, i + 1, i < b) for i in range(n)
    ]


def test_calibrate__moved_flipped_and_a_false_alarm() -> None:
    made = runs("steady", 6, 6, 6) + runs("wobbly", 4, 2, 6) + runs("broke", 6, 0, 6)
    measured = calibrate(aggregate(made, alpha=0.05))
    rows = {r.case_id: r for r in measured.rows}
    assert not rows["steady"].moved and rows["steady"].spread == 0
    assert rows["wobbly"].moved and rows["wobbly"].flipped  # 4/6 passes, 2/6 does not
    assert rows["wobbly"].spread == pytest.approx(math.sqrt(0.5 * 0.5 / 6))
    assert rows["broke"].flagged and not rows["wobbly"].flagged
    # The skill's pooled test also fires (wobbly fell too): counted as the check counts it.
    assert measured.flagged_skills == ("evals/a.json",) and measured.false_alarms == 2
    assert measured.flip_rate == pytest.approx(2 / 3)  # wobbly and broke flipped
    gate = calibration_gate(Gate("success", "1 eval and 1 skill regressed (…)", 0, 2), measured)
    assert gate.conclusion == "neutral" and gate.exit_code == 0
    assert gate.reason.startswith("2 false alarms on an unchanged tree (alpha 0.05: at most 5%")


def test_calibration_gate__green_only_when_whole() -> None:
    measured = calibrate(aggregate(runs("steady", 3, 3, 3), alpha=0.05))
    assert measured.false_alarms == 0 and measured.flip_rate == 0
    green = calibration_gate(Gate("success", "all 1 eval pass", 0), measured)
    assert green == Gate("success", "no false alarm; flip rate 0%", 0)
    for kept in (
        Gate("neutral", "incomplete: 3 of 6 runs done; the cost budget ran out", 0),
        Gate("cancelled", "stopped before the end: 3 of 6 runs done", 143),
        Gate("failure", "1 invalid eval file", 1),
    ):
        assert calibration_gate(kept, measured) == kept


def test_markdown__names_the_false_alarms_and_quotes_names_safely() -> None:
    from evolve_action.publish.render.calibration import markdown

    made = runs("steady", 6, 6, 6) + runs("wobbly", 4, 2, 6) + runs("broke", 6, 0, 6)
    made += runs("a|b @team", 3, 3, 6)
    measured = calibrate(aggregate(made, alpha=0.05))
    gate = calibration_gate(Gate("success", "…", 0, 1), measured)
    text = markdown(measured, gate)
    # A fourth eval that held steady keeps the skill's pooled test quiet: one alarm, named.
    assert text.startswith("### ⚠️ evolve calibration: 1 false alarm on an unchanged tree")
    assert "**1 false alarm**: `broke` on `anthropic/m`. Nothing changed" in text
    assert "**Flip rate 50%**: 2 of 4 evals changed their own pass/fail verdict" in text
    assert "| `broke` | `anthropic/m` | 6/6 | 0/6 | flagged ❗, flipped |" in text
    # In a code span a pipe is escaped and a mention is literal text: GitHub pings no one.
    assert "| `a\\|b @team` | `anthropic/m` | 3/6 | 3/6 |  |" in text
    incomplete = markdown(measured, Gate("neutral", "incomplete", 0), complete=False)
    assert "**1 false alarm**" in incomplete  # alarms are named whatever else is missing


def test_false_alarms_stay_within_alpha_over_seeded_calibrations() -> None:
    """Many A/As of evals with assorted pass rates (seeded, so the count is fixed): the share
    of calibrations with a false alarm is within alpha, up to the simulation's own noise."""
    import random

    rng = random.Random(25)
    trials, alarmed = 300, 0
    for _ in range(trials):
        made: list[RunResult] = []
        for index in range(8):
            rate = rng.choice([0.2, 0.5, 0.8, 0.9, 1.0])
            for side in Side:
                made += [run(f"c{index}", side, i + 1, rng.random() < rate) for i in range(4)]
        alarmed += calibrate(aggregate(made, alpha=0.05)).false_alarms > 0
    assert alarmed / trials <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / trials)
