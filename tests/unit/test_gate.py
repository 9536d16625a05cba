"""The gate: table-driven over real aggregates built from run outcomes."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from evolve_action.model.outcomes import RunResult, Side, Status
from evolve_action.settings.inputs import Settings
from evolve_action.util.text import pct
from evolve_action.verdict.gate import Gate, Shortfall, evaluate
from evolve_action.verdict.stats import aggregate

M1, M2 = "anthropic/claude-sonnet-4-6", "openai/gpt-5.4"
SUITE = "evals/greeter/evals.json"


def runs(
    case: str, side: Side, passed: int, failed: int, errored: int = 0, model: str = M1
) -> list[RunResult]:
    statuses = [Status.PASS] * passed + [Status.FAIL] * failed + [Status.ERROR] * errored
    return [
        RunResult(SUITE, case, model, side, i + 1, s, 1.0 if s is Status.PASS else 0.0)
        for i, s in enumerate(statuses)
    ]


def both(
    case: str, base: tuple[int, int], head: tuple[int, int], model: str = M1
) -> list[RunResult]:
    return runs(case, Side.BASE, *base, model=model) + runs(case, Side.HEAD, *head, model=model)


# One case dropping 5/5 → 0/5: significant alone.
ONE_DROP = both("status-file", (5, 0), (0, 5))
# A 4/5 → 1/5 drop among 12 flaky cases: Fisher alone says p = 0.10 one-sided; after the
# correction it is a drop, shown, not a regression.
NOISE = both("flaky", (4, 1), (1, 4)) + [
    r for i in range(12) for r in both(f"c{i}", (1, 4), (2, 3) if i % 2 else (1, 4))
]
# Many small drops: no case is significant alone, the skill is.
SMALL_DROPS = [r for i in range(8) for r in both(f"s{i}", (5, 0), (3, 2))]
# 3/3 → 0/3 on one model beside a rise: nothing at 3 runs could be flagged among two cases.
TOO_FEW = both("status-file", (3, 0), (0, 3)) + both("farewell", (0, 3), (3, 0))
STABLE = both("a", (4, 0), (4, 0)) + both("b", (2, 2), (2, 2))
ALL_PASS = both("a", (4, 0), (4, 0)) + both("b", (3, 1), (4, 0))
IMPROVED = both("farewell", (0, 5), (5, 0))
ERRORED = runs("a", Side.BASE, 0, 0, 3) + runs("a", Side.HEAD, 0, 0, 3)
HALF = runs("a", Side.HEAD, 1, 1) + runs("b", Side.HEAD, 2, 0)


@dataclass
class Row:
    name: str
    runs: list[RunResult]
    expect: tuple[str, str, int]
    settings: Settings = field(default_factory=Settings)
    kw: dict[str, object] = field(default_factory=dict)


TABLE = [
    Row("one case regressed", ONE_DROP, ("failure", "1 eval regressed", 1)),
    Row(
        "a regression is still named when fail_on_regression is off",
        ONE_DROP,
        (
            "success",
            "1 eval regressed (not failing the check: fail-on-regression is off)",
            0,
        ),
        Settings(fail_on_regression=False),
    ),
    Row(
        "a drop that is not significant after correction is said so, not gated",
        NOISE,
        ("success", "no significant regression (1 eval dropped, not significant)", 0),
    ),
    Row(
        "many small drops fail the skill",
        SMALL_DROPS,
        ("failure", "1 skill regressed (many small drops)", 1),
    ),
    Row(
        "too few runs for anything to be flagged: neutral, with the runs that would do",
        TOO_FEW,
        ("neutral", "too few runs to tell (2 evals; 4 runs per side would do)", 0),
    ),
    Row("stable", STABLE, ("success", "no significant change", 0)),
    Row("everything passes", ALL_PASS, ("success", "all 2 evals pass", 0)),
    Row("improved", IMPROVED, ("success", "1 eval improved", 0)),
    Row(
        "all runs errored is an outage",
        ERRORED,
        ("neutral", "evals could not run (every run of 1 eval errored)", 0),
    ),
    Row("nothing affected", [], ("neutral", "no affected evals", 0)),
    Row(
        "errors only, said by the caller",
        [],
        ("neutral", "evals could not run", 0),
        kw={"errors_only": True},
    ),
    Row(
        "below the minimum pass rate",
        STABLE,
        ("failure", "pass rate 75% is below the minimum 80%", 1),
        Settings(min_pass_rate=0.8),
    ),
    Row(
        "the floor is head's rate as the headline gives it: a case new on head is apart",
        STABLE + runs("brand-new", Side.HEAD, 0, 4),
        ("failure", "pass rate 75% is below the minimum 80%", 1),
        Settings(min_pass_rate=0.8),
    ),
    Row(
        "a new failing case does not pull the compared cases under the floor",
        ALL_PASS + runs("brand-new", Side.HEAD, 0, 8),
        ("success", "no significant change", 0),
        Settings(min_pass_rate=0.9),
    ),
    Row(
        "regression and pass rate both named",
        ONE_DROP,
        ("failure", "1 eval regressed; pass rate 0% is below the minimum 50%", 1),
        Settings(min_pass_rate=0.5),
    ),
    Row(
        "invalid files fail", STABLE, ("failure", "1 invalid eval file", 1), kw={"invalid_files": 1}
    ),
    Row(
        "invalid files fail even when nothing ran",
        [],
        ("failure", "2 invalid eval files", 1),
        kw={"invalid_files": 2},
    ),
    Row(
        "no base: head rates only",
        HALF,
        ("success", "1 of 2 evals pass", 0),
        kw={"has_base": False},
    ),
    Row(
        "no base: a drop cannot regress",
        runs("a", Side.HEAD, 0, 4),
        ("success", "0 of 1 eval pass", 0),
        kw={"has_base": False},
    ),
    Row(
        "no base: min pass rate still applies",
        HALF,
        ("failure", "pass rate 75% is below the minimum 90%", 1),
        Settings(min_pass_rate=0.9),
        {"has_base": False},
    ),
    Row(
        "stopped by a signal: cancelled, whatever the runs done say",
        ALL_PASS,
        ("cancelled", "stopped before the end: 16 of 20 runs done", 143),
        kw={"shortfall": Shortfall(20, 16, "SIGTERM")},
    ),
    Row(
        "stopped by SIGINT, with a regression found: still cancelled, exit 130",
        ONE_DROP,
        ("cancelled", "stopped before the end: 10 of 12 runs done", 130),
        kw={"shortfall": Shortfall(12, 10, "SIGINT")},
    ),
    Row(
        "stopped, with invalid files: both said",
        [],
        ("cancelled", "stopped before the end: 0 of 4 runs done; 1 invalid eval file", 143),
        kw={"shortfall": Shortfall(4, 0, "SIGTERM"), "invalid_files": 1},
    ),
    Row(
        "runs the budget left out: not green",
        ALL_PASS,
        ("neutral", "incomplete: 16 of 20 runs done; the cost budget ran out", 0),
        kw={"shortfall": Shortfall(20, 16, cut=("the cost budget ran out",))},
    ),
    Row(
        "evals the clock cut while open: not green",
        NOISE,
        (
            "neutral",
            "incomplete: max-minutes ran out with 1 eval still open",
            0,
        ),
        kw={"shortfall": Shortfall(130, 130, cut=("max-minutes ran out with 1 eval still open",))},
    ),
    Row(
        "nothing ran because the budget was spent before the first run: not 'no affected evals'",
        [],
        ("neutral", "incomplete: 0 of 8 runs done; the cost budget ran out", 0),
        kw={"shortfall": Shortfall(8, 0, cut=("the cost budget ran out",))},
    ),
    Row(
        "runs missing do not hide a regression found in the runs made",
        ONE_DROP,
        ("failure", "1 eval regressed", 1),
        kw={"shortfall": Shortfall(12, 10, cut=("the cost budget ran out",))},
    ),
    Row(
        "an eval whose every head run errored has no verdict: not green",
        ALL_PASS + runs("c", Side.BASE, 4, 0) + runs("c", Side.HEAD, 0, 0, 4),
        ("neutral", "incomplete: 1 eval not graded (every run on a side errored)", 0),
    ),
    Row(
        "a regression named with fail-on-regression off, runs missing: neutral",
        ONE_DROP,
        ("neutral", "incomplete: 8 of 10 runs done; 1 eval regressed", 0),
        Settings(fail_on_regression=False),
        {"shortfall": Shortfall(10, 8)},
    ),
]


@pytest.mark.parametrize("row", TABLE, ids=[r.name for r in TABLE])
def test_gate(row: Row) -> None:
    agg = aggregate(row.runs)
    gate = evaluate(agg, row.settings, **row.kw)  # type: ignore[arg-type]
    assert (gate.conclusion, gate.reason, gate.exit_code) == row.expect


def test_noise_case_really_dropped_and_fisher_alone_would_have_called_it() -> None:
    # Guards the table above: the row is only meaningful if the drop is real and uncorrected
    # Fisher (what the table used to show) would have rejected it one-sided at 0.10.
    agg = aggregate(NOISE)
    [flaky] = [c for c in agg.cases if c.case_id == "flaky"]
    assert flaky.delta is not None and flaky.delta < 0 and flaky.label.value != "regressed"
    assert flaky.test is not None and flaky.test.p_directional < 0.11
    assert flaky.adjusted_p is not None and flaky.adjusted_p > 0.05
    assert evaluate(agg, Settings()).regressions == 0


def test_one_eval_regressed_on_one_model_is_counted_once() -> None:
    agg = aggregate(ONE_DROP + both("status-file", (5, 0), (5, 0), model=M2))
    gate = evaluate(agg, Settings())
    assert (gate.reason, gate.regressions, gate.icon) == ("1 eval regressed", 1, "❌")
    assert [c.model for c in agg.cases if c.label.value == "regressed"] == [M1]


def test_outage_on_one_model_does_not_hide_the_other() -> None:
    agg = aggregate(ONE_DROP + runs("status-file", Side.HEAD, 0, 0, 5, model=M2))
    assert evaluate(agg, Settings()) == Gate("failure", "1 eval regressed", 1, 1)


def test_some_evals_too_few_to_tell_is_said_beside_a_success() -> None:
    stable = [r for i in range(3) for r in both(f"ok{i}", (5, 0), (5, 0))]
    agg = aggregate(stable + runs("thin", Side.BASE, 1, 0) + runs("thin", Side.HEAD, 1, 0))
    gate = evaluate(agg, Settings())
    assert (gate.conclusion, gate.reason) == (
        "success",
        "all 4 evals pass; too few runs to tell for 1 of 4 evals",
    )


def test_pct_keeps_a_decimal_only_when_needed() -> None:
    assert (pct(0.625), pct(0.7), pct(1.0), pct(0.0)) == ("62.5%", "70%", "100%", "0%")
