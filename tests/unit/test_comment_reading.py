"""The comment read in ten seconds: rates that compare like with like, one row per failed check,
one name per case, labels that blame what failed, cells short enough for GitHub's width."""

from __future__ import annotations

from dataclasses import replace

from evolve_action.model.evals import CaseKind, Format
from evolve_action.model.outcomes import RunResult
from evolve_action.publish.check_output import notes
from evolve_action.publish.render.build.assemble import build_view
from evolve_action.publish.render.comment import render
from evolve_action.publish.render.cost_rows import change, per_run
from evolve_action.publish.render.escape import cell, shorten
from evolve_action.verdict.cost_delta import deltas
from evolve_action.verdict.discrimination import records
from tests.fakes.reports import M1, M2, make_report, make_suite, outcome
from tests.unit.test_build_view import rows

GREETER = make_suite("greeter", [("greet-one", 10), ("greet-two", 20)])
FAREWELL = make_suite("farewell", [("bye", 10), ("later", 20)])


def test_a_pr_whose_head_runs_all_errored_shows_no_headline_delta() -> None:
    """Head's rate over the runs that did not error would read as an improvement."""
    runs: list[RunResult] = []
    for m in (M1, M2):
        runs += outcome(GREETER, "greet-one", m, base=(3, 0), head=(0, 0), errored=3)
        runs += outcome(GREETER, "greet-two", m, base=(0, 3), head=(0, 0), errored=3)
    view = build_view(make_report([GREETER], runs))
    assert view.overall_delta == "incomplete: 2 evals not graded on head"
    assert "pts" not in view.overall_delta
    assert (view.overall_base, view.overall_head) == ("—", "—")
    assert all(s.rates == "not graded on head" for s in view.suites)
    text = render(view)
    assert "Run the job again: 2 evals could not be graded on head" in text


def test_one_skill_errored_on_head_is_left_out_of_both_rates() -> None:
    runs: list[RunResult] = []
    for m in (M1, M2):
        runs += outcome(GREETER, "greet-one", m, base=(3, 0), head=(0, 0), errored=3)
        runs += outcome(FAREWELL, "bye", m, base=(3, 0), head=(3, 0))
        runs += outcome(FAREWELL, "later", m, base=(2, 1), head=(2, 1))
    view = build_view(make_report([GREETER, FAREWELL], runs))
    # Over farewell's two cases only, on both sides; the delta is withheld.
    assert (view.overall_base, view.overall_head) == ("83.3%", "83.3%")
    assert view.overall_what == "**the 2 evals graded on both sides**"
    assert view.overall_delta == "incomplete: 1 eval not graded on head"
    by_skill = {(s.skill, s.model): s.rates for s in view.suites}
    assert by_skill[("greeter", M1)] == "not graded on head"
    assert by_skill[("farewell", M1)] == "83.3% → 83.3% (±0 pts)"


def test_a_check_failing_identically_on_12_runs_is_one_row() -> None:
    why = ("file impossible.txt exists", "file impossible.txt missing")
    runs: list[RunResult] = []
    for m in (M1, M2):
        runs += outcome(GREETER, "greet-one", m, base=(0, 6), head=(0, 6), why=why)
    view = build_view(make_report([GREETER], runs))
    (row,) = view.failures
    assert (row.assertion, row.evidence) == why
    assert row.runs == "12 of 12 runs, both models"
    text = render(view)
    assert "Failed checks: 1 (in 12 failed head runs)" in text
    assert text.count("file impossible.txt missing") == 1


def test_differing_evidence_keeps_the_most_common_and_counts_the_rest() -> None:
    runs = outcome(GREETER, "greet-one", M1, base=(0, 3), head=(0, 3), why=("x", "exit 1"))
    runs += outcome(GREETER, "greet-one", M2, base=(0, 1), head=(0, 1), why=("x", "exit 2"))
    (row,) = build_view(make_report([GREETER], runs)).failures
    assert row.evidence == "exit 1 (another evidence on 1 run)"
    assert row.runs == "4 of 4 runs, both models"


def named_greeter() -> object:
    cases = tuple(replace(c, name=f"Greet {c.id[6:]} person") for c in GREETER.cases)
    return replace(GREETER, cases=cases)


def test_a_case_has_one_name_everywhere_its_name_with_its_id() -> None:
    suite = named_greeter()
    runs: list[RunResult] = []
    for m in (M1, M2):
        runs += outcome(
            suite,  # type: ignore[arg-type]
            "greet-one",
            m,
            base=(4, 0),
            head=(0, 4),
            suggestion={"reason": "check the second line"},
        )
    report = make_report([suite], runs, cost_deltas=deltas(runs, None))  # type: ignore[list-item]
    view = build_view(report)
    name = "Greet one person `greet-one`"
    assert [r.case for r in view.regressions] == [name]
    assert [f.case for f in view.failures] == [name]
    assert [s.target for s in view.suggestions] == [name]
    assert {c.what for c in view.costs} >= {name}
    assert {n.title for n in notes(report) if n.level == "failure"} == {
        f"Greet one person (greet-one) regressed on {M1}",
        f"Greet one person (greet-one) regressed on {M2}",
    }
    warning = next(n for n in notes(report) if n.level == "warning")
    assert warning.title.startswith("Greet one person (greet-one): failed in 8 head run(s)")


def trigger_suite() -> object:
    suite = make_suite("greeter", [("Translate 'hello' into Portuguese", 5)], "evals/t.json")
    case = replace(suite.cases[0], kind=CaseKind.TRIGGER, should_trigger=False)
    case = replace(case, prompt=case.id)
    return replace(suite, format=Format.TRIGGERS, cases=(case,))


def test_a_must_not_fire_trigger_failing_everywhere_blames_the_skill() -> None:
    suite = trigger_suite()
    why = ("skill greeter does not fire", 'fired: Skill {"skill":"greeter"}')
    runs = outcome(
        suite,  # type: ignore[arg-type]
        "Translate 'hello' into Portuguese",
        M1,
        base=(0, 3),
        head=(0, 3),
        why=why,
    )
    view = build_view(make_report([suite], runs, discrimination=records(runs)))  # type: ignore[list-item]
    (row,) = view.cannot_tell
    assert "broken or too strict" not in row.finding
    assert row.finding.startswith("the skill fires on a prompt it must not fire on")
    assert row.case == "“Translate 'hello' into Portuguese” (must not fire)"
    assert view.unchanged_failures[0].startswith(row.case)


def test_a_command_cut_inside_its_code_span_keeps_its_closing_backtick() -> None:
    check = "command `python3 -c " + "x " * 80 + "` exits 0"
    cut = cell(check, 60)
    assert cut.endswith("…`") and cut.count("`") == 2
    assert shorten("plain words " * 20, 30).endswith("…")
    assert shorten("``a b c d e f g h i j``", 10) == "``a b c…``"


def test_money_and_changes_are_short_and_noise_is_left_out() -> None:
    assert (per_run(0.0071), per_run(0.12), per_run(0.0007), per_run(1.4)) == (
        "0.71¢",
        "12¢",
        "0.07¢",
        "$1.40",
    )
    assert (change(1, 1.19), change(1, 0.59), change(1, 1.02), change(1, 20)) == (
        "+19%",
        "−41%",
        "",
        "×20",
    )
    runs = outcome(GREETER, "greet-one", M1, base=(3, 0), head=(3, 0))
    view = build_view(make_report([GREETER], runs, cost_deltas=deltas(runs, None)))
    # Runs of no measurable wall time: "<1s", never "0.0s → 0.0s (×15.43)".
    assert [c.duration for c in view.costs] == ["⏱ <1s → <1s"] * len(view.costs)
    text = render(view)
    header = next(line for line in text.splitlines() if line.startswith("| case | model | cost"))
    assert header == (
        "| case | model | cost per run | per passing run | tokens per run | turns | time |"
    )
    table = text[text.index("Cost and behaviour") :]
    assert "0.0s" not in table and "×" not in table


def test_the_first_screen_says_what_got_worse_then_what_to_do() -> None:
    runs: list[RunResult] = []
    for m in (M1, M2):
        runs += outcome(GREETER, "greet-one", m, base=(4, 0), head=(0, 4))
        runs += outcome(GREETER, "greet-two", m, base=(4, 0), head=(4, 0))
    text = render(build_view(make_report([GREETER], runs)))
    order = ["### ❌", "| **all affected evals** |", "**▼ Regressed**", "**What to do**"]
    assert [text.index(part) for part in order] == sorted(text.index(part) for part in order)
    assert text.index("**What to do**") < text.index("| skill | model |")
    regressed = rows(text.split("**▼ Regressed**")[1], "| [`greet-one`]")[0]
    assert regressed[1].strip() == "both models"
