"""The gate: table-driven over real aggregates built from run outcomes."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from evolve_action.gate import Gate, evaluate, pct
from evolve_action.outcomes import RunResult, Side, Status
from evolve_action.settings import Settings
from evolve_action.stats import aggregate

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


# One case dropping 5/5 → 0/5 is significant alone and for its group (one stratum).
ONE_DROP = both("status-file", (5, 0), (0, 5))
# The same drop among many stable, mixed cases: the case is labelled regressed (Fisher),
# but the group's test over all informative cases does not reject.
NOISE = both("flaky", (5, 0), (0, 5)) + [
    r for i in range(12) for r in both(f"c{i}", (1, 4), (2, 3) if i % 2 else (1, 4))
]
# Many small drops: no case is significant alone, the group is.
SMALL_DROPS = [r for i in range(8) for r in both(f"s{i}", (5, 0), (3, 2))]
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
        "regression ignored when fail_on_regression is off",
        ONE_DROP,
        ("success", "no significant regression (1 eval dropped, within noise for its skill)", 0),
        Settings(fail_on_regression=False),
    ),
    Row(
        "case drop within the group's noise is shown, not gated",
        NOISE,
        ("success", "no significant regression (1 eval dropped, within noise for its skill)", 0),
    ),
    Row(
        "many small drops fail the group",
        SMALL_DROPS,
        ("failure", "1 skill regressed on 1 model", 1),
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
]


@pytest.mark.parametrize("row", TABLE, ids=[r.name for r in TABLE])
def test_gate(row: Row) -> None:
    agg = aggregate(row.runs)
    gate = evaluate(agg, row.settings, **row.kw)  # type: ignore[arg-type]
    assert (gate.conclusion, gate.reason, gate.exit_code) == row.expect


def test_noise_case_is_really_labelled_regressed_alone() -> None:
    # Guards the table above: the row is only meaningful if the case label says regressed.
    agg = aggregate(NOISE)
    assert [c.case_id for c in agg.cases if c.label.value == "regressed"] == ["flaky"]
    assert agg.suites[0].label.value != "regressed"
    assert evaluate(agg, Settings()).regressed_cases == 1


def test_failing_groups_are_named_per_model() -> None:
    agg = aggregate(ONE_DROP + both("status-file", (5, 0), (5, 0), model=M2))
    gate = evaluate(agg, Settings())
    assert gate.regressed_groups == ((SUITE, M1),)
    assert gate.icon == "❌"


def test_outage_on_one_model_does_not_hide_the_other() -> None:
    agg = aggregate(ONE_DROP + runs("status-file", Side.HEAD, 0, 0, 5, model=M2))
    assert evaluate(agg, Settings()) == Gate("failure", "1 eval regressed", 1, ((SUITE, M1),), 1)


def test_pct_keeps_a_decimal_only_when_needed() -> None:
    assert (pct(0.625), pct(0.7), pct(1.0), pct(0.0)) == ("62.5%", "70%", "100%", "0%")
