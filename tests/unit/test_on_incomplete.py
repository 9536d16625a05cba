"""`on-incomplete`: a job that could not judge ends neutral by default and failure when asked
to fail closed; what was judged (a pass, too few runs) or had nothing to judge is unchanged."""

from __future__ import annotations

import pytest

from evolve_action.model.outcomes import RunResult, Side, Status
from evolve_action.settings.inputs import OnIncomplete, Settings, SettingsError, from_values
from evolve_action.verdict.gate import Shortfall, evaluate
from evolve_action.verdict.stats import aggregate

SUITE = "evals/greeter/evals.json"
M1 = "anthropic/claude-sonnet-4-6"
CLOSED = Settings(on_incomplete=OnIncomplete.FAILURE)


def runs(case: str, side: Side, *statuses: Status) -> list[RunResult]:
    return [
        RunResult(SUITE, case, M1, side, i + 1, s, 1.0 if s is Status.PASS else 0.0)
        for i, s in enumerate(statuses)
    ]


P, F, E = Status.PASS, Status.FAIL, Status.ERROR
ERRORED = runs("a", Side.BASE, E, E, E) + runs("a", Side.HEAD, E, E, E)
HEAD_ERRORED = runs("a", Side.BASE, P, P, P) + runs("a", Side.HEAD, E, E, E)
STABLE = runs("a", Side.BASE, P, P, P, P, P) + runs("a", Side.HEAD, P, P, P, P, P)
TOO_FEW = runs("a", Side.BASE, P, P) + runs("a", Side.HEAD, P, F)
BUDGET_CUT_ALL = Shortfall(planned=8, done=0, cut=("the cost budget ran out",))

# name, runs, keywords of `evaluate`, conclusion by default, conclusion failing closed
CASES = [
    ("no key: nothing could run", [], {"errors_only": True}, "neutral", "failure"),
    ("every run errored", ERRORED, {}, "neutral", "failure"),
    ("every head run of an eval errored", HEAD_ERRORED, {}, "neutral", "failure"),
    ("the budget cut every run", [], {"shortfall": BUDGET_CUT_ALL}, "neutral", "failure"),
    ("a shard never reported", STABLE, {"shortfall": Shortfall(20, 10)}, "neutral", "failure"),
    ("nothing was affected", [], {}, "neutral", "neutral"),
    ("a complete pass", STABLE, {}, "success", "success"),
    ("too few runs to tell (judged, inconclusive)", TOO_FEW, {}, "neutral", "neutral"),
]


@pytest.mark.parametrize(
    ("runs_", "kw", "default", "closed"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_on_incomplete_decides_only_the_could_not_judge_ends(
    runs_: list[RunResult], kw: dict[str, object], default: str, closed: str
) -> None:
    agg = aggregate(runs_)
    neutral = evaluate(agg, Settings(), **kw)  # type: ignore[arg-type]
    failing = evaluate(agg, CLOSED, **kw)  # type: ignore[arg-type]
    assert (neutral.conclusion, failing.conclusion) == (default, closed)
    assert neutral.exit_code == (1 if default == "failure" else 0)
    assert failing.exit_code == (1 if closed == "failure" else 0)
    if closed == "failure" and default != "failure":
        # The same reason, and the input that turned it red, so the author knows why.
        assert failing.reason == f"{neutral.reason} (on-incomplete: failure)"


def test_invalid_files_fail_whatever_on_incomplete_says() -> None:
    gate = evaluate(aggregate(ERRORED), Settings(), invalid_files=1)
    assert (gate.conclusion, gate.exit_code) == ("failure", 1)
    assert gate.reason.startswith("1 invalid eval file; evals could not run")


def test_on_incomplete_takes_only_its_two_values() -> None:
    assert Settings().on_incomplete is OnIncomplete.NEUTRAL
    assert from_values({"on-incomplete": " Failure "}).on_incomplete is OnIncomplete.FAILURE
    with pytest.raises(SettingsError, match="input on-incomplete: 'fail' is not one of"):
        from_values({"on-incomplete": "fail"})
