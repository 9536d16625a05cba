"""The comment's no-skill parts from real runs: the per-skill "no skill" and lift cells with
their adjusted p, the legend, and "Checks that cannot tell" (escaped, counted per arm)."""

from __future__ import annotations

from dataclasses import replace

from evolve_action.model.outcomes import ItemResult, RunResult, Side
from evolve_action.publish.render.build.assemble import build_view
from evolve_action.publish.render.comment import render
from evolve_action.settings.inputs import Settings
from evolve_action.verdict.discrimination import records
from evolve_action.verdict.lift import measure
from tests.fakes.reports import M1, make_report, make_suite, outcome
from tests.unit.test_build_view import rows

POET = make_suite("poet", [("rhyme", 10), ("pipe", 20)])


def without_skill(runs: list[RunResult]) -> list[RunResult]:
    return [replace(r, side=Side.NO_SKILL) for r in runs]


def test_lift_cells_legend_and_the_checks_that_cannot_tell() -> None:
    runs = outcome(POET, "rhyme", M1, base=None, head=(5, 0))
    runs += without_skill(outcome(POET, "rhyme", M1, base=None, head=(0, 5)))
    # `pipe` passes with and without the skill; its check's text holds a pipe.
    why = ("output matches /a|b/", "")
    runs += outcome(POET, "pipe", M1, base=None, head=(5, 0), why=why)
    runs += without_skill(outcome(POET, "pipe", M1, base=None, head=(5, 0), why=why))
    report = make_report(
        [POET], runs, base_sha=None, lift=measure(runs), discrimination=records(runs)
    )
    text = render(build_view(report))
    assert "| skill | model | base → head | verdict | no skill |" in text
    (row,) = rows(text, "| poet |")
    # Head 100%, no skill 50% (mean of 0% and 100%). `pipe` cannot reach any level, so
    # `rhyme` alone spends the family's alpha (p = 1 / C(10, 5), in the view's `lift`).
    assert row[4].strip() == "50%, lift +50 pts ▲ p = 0.004"
    assert "a family of its own at 0.05" in text and "It never fails the check." in text
    section = text.split("Checks that cannot tell (1)", 1)[1]
    (cannot,) = rows(section, "| `pipe`")
    assert cannot[1].strip() == "output matches /a\\|b/"  # the pipe cannot split the row
    assert (
        "passes without the skill" in cannot[2] and cannot[3].strip() == "head 5/5 · no skill 5/5"
    )
    assert "cannot tell a good skill" not in text  # 1 of 2 checks: not most of them


def test_a_lift_that_is_not_significant_says_so_and_the_gate_option_is_named() -> None:
    runs = outcome(POET, "rhyme", M1, base=None, head=(3, 2))
    runs += without_skill(outcome(POET, "rhyme", M1, base=None, head=(2, 3)))
    settings = Settings(fail_without_lift=True)
    report = make_report([POET], runs, base_sha=None, settings=settings, lift=measure(runs))
    text = render(build_view(report))
    (row,) = rows(text, "| poet |")
    assert row[4].strip().startswith("40%, lift +20 pts (p = ")
    assert row[4].strip().endswith(", not significant)")
    assert "`fail-without-lift` fails the check for a skill without one." in text


def test_checks_of_one_case_that_cannot_tell_for_the_same_reason_are_one_row() -> None:
    """Five checks passing with and without the skill are one row naming them, not five."""
    one = outcome(POET, "pipe", M1, base=None, head=(4, 0))
    one += without_skill(outcome(POET, "pipe", M1, base=None, head=(4, 0)))
    checks = [ItemResult(f"a{n}", f"file out{n}.txt exists", True, "") for n in range(5)]
    runs = [replace(r, items=tuple(checks)) for r in one]
    report = make_report([POET], runs, base_sha=None, discrimination=records(runs))
    view = build_view(report)
    (row,) = view.cannot_tell
    assert row.checks == 5
    assert row.item.startswith("5 checks: file out0.txt exists; file out1.txt exists;")
    assert row.item.endswith("; and 2 more")
    text = render(view)
    assert "Checks that cannot tell (5)" in text
    assert len(rows(text.split("Checks that cannot tell", 1)[1], "| `pipe`")) == 1
