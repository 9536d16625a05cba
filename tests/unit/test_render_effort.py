"""The comment under `runs: auto`: where the runs went, what was cut and why, what it saved."""

from __future__ import annotations

from evolve_action.publish.render.build.assemble import build_view
from evolve_action.publish.render.comment import render
from evolve_action.verdict.adaptive import CellEffort, Design, Effort, Stop
from tests.fakes.reports import M1, M2, make_report, make_suite, outcome

SUITE = make_suite("greeter", [("greet", 3), ("a", 10), ("b", 17), ("c", 24), ("d", 31)])
DESIGN = Design(start=2, max_runs=20)


def _effort(*cells: tuple[str, str, int, Stop], waves: int = 2) -> Effort:
    return Effort(
        DESIGN,
        tuple(CellEffort((SUITE.rel, c, m), n, n, stop) for c, m, n, stop in cells),
        waves,
    )


def test_effort__the_moved_case_its_runs_the_cuts_and_the_savings() -> None:
    runs = outcome(SUITE, "greet", M1, base=(6, 0), head=(0, 6))
    runs += outcome(SUITE, "greet", M2, base=(6, 0), head=(0, 6))
    for case in "abcd":
        runs += outcome(SUITE, case, M1, base=(2, 0), head=(2, 0))
    effort = _effort(
        ("greet", M1, 6, Stop.DECIDED),
        ("greet", M2, 6, Stop.DECIDED),
        ("a", M1, 4, Stop.BUDGET),
        ("b", M1, 4, Stop.BUDGET),
        ("c", M1, 4, Stop.BUDGET),
        ("d", M1, 2, Stop.STABLE),
    )
    view = build_view(make_report([SUITE], runs, effort=effort))
    text = " ".join(view.effort)
    assert "`runs: auto`: 2 runs per side to start, then 2 waves of extra runs" in text
    assert "5 cases got more" not in text and "4 cases got more" in text
    assert "3 cases stopped at 4 runs: budget" in text
    # Fixed 6 everywhere: greet 0 more, a–c 2 more per side, d 4 more per side: 20 runs.
    assert "saved 20 runs (≈20k tokens)" in text
    assert [(r.case, r.base, r.head, r.stopped) for r in view.effort_rows][:2] == [
        ("`greet`", 6, 6, "decided"),
        ("`greet`", 6, 6, "decided"),
    ]
    comment = render(view)
    assert "**Runs:** `runs: auto`" in comment
    assert "| case | model | base runs | head runs | stopped |" in comment


def test_effort__nothing_open_says_so_and_fixed_runs_say_nothing() -> None:
    runs = outcome(SUITE, "a", M1, base=(2, 0), head=(2, 0))
    settled = build_view(make_report([SUITE], runs, effort=_effort(("a", M1, 2, Stop.STABLE))))
    assert settled.effort == (
        "`runs: auto`: every case settled at its 2 start runs per side; no verdict was open.",
    )
    assert not settled.effort_rows
    cut = _effort(("a", M1, 2, Stop.BUDGET), waves=0)
    assert build_view(make_report([SUITE], runs, effort=cut)).effort == (
        "`runs: auto`: 2 runs per side; no wave of extra runs started.",
        "1 case stopped at 2 runs: budget",
    )
    assert build_view(make_report([SUITE], runs)).effort == ()
