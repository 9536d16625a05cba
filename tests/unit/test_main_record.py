"""A pull request's regressed and dropped rows say how the case fared on the default branch,
read from the history, when enough runs of that very case are recorded to tell a flaky case
from a regression."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from evolve_action.pipeline.watch_compare import (
    NO_RECORD,
    cell_fingerprints,
    default_branch_records,
)
from evolve_action.publish import history
from evolve_action.publish.history import CaseHistory, Counts, Record
from evolve_action.publish.render.build.assemble import build_view
from evolve_action.publish.render.comment import render
from tests.fakes.reports import M1, make_report, make_suite, outcome

SUITE = make_suite("greeter", [("hello", 3), ("bye", 9)])
RUNS = [
    *outcome(SUITE, "hello", M1, base=(10, 0), head=(0, 10)),  # regressed
    *outcome(SUITE, "bye", M1, base=(4, 0), head=(3, 1)),  # dropped, not significant
]


def _comment(record: dict[tuple[str, str, str], CaseHistory]) -> str:
    report = replace(make_report([SUITE], RUNS), main_record=record)
    return render(build_view(report))


def test_regressed_and_dropped_rows_say_the_record_on_main() -> None:
    text = _comment({
        (SUITE.rel, "hello", M1): CaseHistory(passed=40, runs=42, jobs=7),
        (SUITE.rel, "bye", M1): CaseHistory(passed=12, runs=20, jobs=4),
    })  # fmt: skip
    hello = next(line for line in text.splitlines() if "hello" in line and "10/10" in line)
    bye = next(line for line in text.splitlines() if "bye" in line and "4/4" in line)
    assert "on main: passed 40 of the last 42 runs" in hello
    assert "on main: passed 12 of the last 20 runs" in bye


def test_too_few_recorded_runs_say_nothing() -> None:
    assert "on main" not in _comment({(SUITE.rel, "hello", M1): CaseHistory(8, 9, 3)})
    assert "on main" not in _comment({})


def test_the_record_is_read_for_the_very_same_cell_from_the_history(tmp_path: Path) -> None:
    prints = cell_fingerprints([SUITE], [M1], "anthropic/judge")
    key = (SUITE.rel, "hello", M1)
    for n in range(6):
        cells = {key: Counts(prints[key], passed=2, failed=int(n == 0), errored=1)}
        # A cell of another tree (another fingerprint) is not this case's record.
        cells[(SUITE.rel, "bye", M1)] = Counts("0" * 16, passed=2, failed=0)
        history.append(tmp_path, Record(f"2026-11-0{n + 1}T00:00:00Z", "abc", "schedule", cells))

    found = default_branch_records(tmp_path, [SUITE], [M1], "anthropic/judge")

    assert found.counts == {key: CaseHistory(passed=12, runs=13, jobs=6)}
    assert [(p.at[:10], p.passed, p.runs) for p in found.series[key]][:2] == [
        ("2026-11-01", 2, 3), ("2026-11-02", 2, 2),
    ]  # fmt: skip
    assert list(found.series) == [key]
    assert default_branch_records(None, [SUITE], [M1], "anthropic/judge") == NO_RECORD
