"""The step outputs carry the comment's headline figures: like with like, no delta when
incomplete, so a workflow reading `delta` never sees an improvement the comment withholds."""

from __future__ import annotations

from evolve_action.model.outcomes import RunResult
from evolve_action.publish.check_output import outputs
from evolve_action.publish.render.build.assemble import build_view
from tests.fakes.reports import M1, M2, make_report, make_suite, outcome

GREETER = make_suite("greeter", [("greet-one", 10), ("greet-two", 20)])
FAREWELL = make_suite("farewell", [("bye", 10), ("later", 20)])


def _outputs(runs: list[RunResult], suites: list = [GREETER], **kw: object) -> dict[str, str]:  # noqa: B006
    report = make_report(suites, runs, **kw)  # type: ignore[arg-type]
    return outputs(report, report.gate, "")


def test_every_head_run_errored_gives_no_rates_and_no_delta() -> None:
    runs: list[RunResult] = []
    for m in (M1, M2):
        runs += outcome(GREETER, "greet-one", m, base=(3, 0), head=(0, 0), errored=3)
        runs += outcome(GREETER, "greet-two", m, base=(0, 3), head=(0, 0), errored=3)
    out = _outputs(runs)
    assert (out["base-pass-rate"], out["pass-rate"], out["delta"]) == ("", "", "")


def test_an_errored_skill_is_left_out_of_both_rates_and_the_delta_is_withheld() -> None:
    runs: list[RunResult] = []
    for m in (M1, M2):
        runs += outcome(GREETER, "greet-one", m, base=(3, 0), head=(0, 0), errored=3)
        runs += outcome(FAREWELL, "bye", m, base=(3, 0), head=(3, 0))
        runs += outcome(FAREWELL, "later", m, base=(2, 1), head=(1, 2))
    report = make_report([GREETER, FAREWELL], runs)
    out = outputs(report, report.gate, "")
    view = build_view(report)
    assert (view.overall_base, view.overall_head) == ("83.3%", "66.7%")
    assert (out["base-pass-rate"], out["pass-rate"]) == ("0.8333", "0.6667")
    assert out["delta"] == ""  # the comment says "incomplete", not a number


def test_complete_data_gives_the_headline_delta() -> None:
    runs: list[RunResult] = []
    for m in (M1, M2):
        runs += outcome(GREETER, "greet-one", m, base=(3, 0), head=(3, 0))
        runs += outcome(GREETER, "greet-two", m, base=(3, 0), head=(0, 3))
    out = _outputs(runs)
    found = (out["base-pass-rate"], out["pass-rate"], out["delta"])
    assert found == ("1.0000", "0.5000", "-0.5000")


def test_without_a_base_only_head_s_rate_is_given() -> None:
    runs: list[RunResult] = []
    for m in (M1, M2):
        runs += outcome(GREETER, "greet-one", m, base=(0, 0), head=(3, 0))
        runs += outcome(GREETER, "greet-two", m, base=(0, 0), head=(1, 2))
    out = _outputs(runs, base_sha=None)
    assert (out["base-pass-rate"], out["pass-rate"], out["delta"]) == ("", "0.6667", "")
