"""The history of record: one compact line per job, read back whole, bounded in lines and
bytes, a bad line skipped; a case's record on the default branch read from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evolve_action.publish import history
from evolve_action.publish.history import Counts, Record, case_history

CELL = ("evals/a/evals.json", "greet", "anthropic/m")


def record(n: int, *, passed: int = 3, failed: int = 0, fp: str = "f" * 16) -> Record:
    return Record(
        at=f"2026-01-{n % 28 + 1:02d}T06:00:00Z",
        sha=f"{n:040x}",
        event="schedule",
        cells={CELL: Counts(fp, passed, failed, 1), (CELL[0], "other", CELL[2]): Counts(fp, 1, 1)},
        snapshots={"anthropic/m": "m-2026"},
        cli="evolve-action 1.0",
        prices={"anthropic/m": "$3 in, $15 out"},
        full=n % 2 == 0,
        flagged=("evals/a/evals.json",) if n == 3 else (),
    )


def test_a_record_round_trips_through_its_line() -> None:
    one = record(3)
    line = history.encode(one)
    assert "\n" not in line and history.decode(line) == one


def test_append_then_read_keeps_order(tmp_path: Path) -> None:
    for n in range(5):
        history.append(tmp_path, record(n))
    assert [r.sha for r in history.read(tmp_path)] == [f"{n:040x}" for n in range(5)]
    assert history.read(tmp_path / "absent") == [] and history.read(None) == []


def test_past_the_bound_the_oldest_lines_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history, "MAX_RECORDS", 4)
    for n in range(7):
        history.append(tmp_path, record(n))
    kept = history.read(tmp_path)
    assert [int(r.sha, 16) for r in kept] == [3, 4, 5, 6]
    assert len((tmp_path / history.FILE).read_text().splitlines()) == 4


def test_a_bad_line_is_skipped_not_fatal(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    history.append(tmp_path, record(1))
    with (tmp_path / history.FILE).open("a") as handle:
        handle.write('{"v": 1, "cells": [[0, "x", 0, "f", -1, 0, 0]]}\nnot json\n')
        handle.write(json.dumps({"v": 99}) + "\n")
    history.append(tmp_path, record(2))
    assert [int(r.sha, 16) for r in history.read(tmp_path)] == [1, 2]
    assert "skipping line 2" in caplog.text


def test_a_line_whose_cells_are_bad_reads_as_having_none(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    head, _, _ = history.encode(record(1)).partition("\t")
    bad = json.dumps([["evals/a"], ["m"], [[0, "x", 0, "f", 1.5, 0, 0]]])
    (tmp_path / history.FILE).write_text(head + "\t" + bad + "\n")
    (only,) = history.read(tmp_path)
    assert dict(only.cells) == {} and "unreadable cells" in caplog.text


def test_case_history_counts_the_newest_runs_first() -> None:
    records = [record(n, passed=3 if n != 2 else 0, failed=0 if n != 2 else 3) for n in range(4)]
    got = case_history(records, CELL[0], "greet", last=7)
    assert got is not None and (got.runs, got.jobs) == (7, 3)
    assert got.passed == 4  # 3 + 0 + 1 of the oldest job's three passes
    assert got.words() == "passed 4 of the last 7 runs"
    assert case_history(records, CELL[0], "greet", model="openai/x") is None
    assert case_history(records, CELL[0], "greet", fingerprint="other") is None
    errors_only = [Record("t", "s", "push", {CELL: Counts("f", 0, 0, 5)})]
    assert case_history(errors_only, CELL[0], "greet") is None  # errors are not runs


def test_five_hundred_records_of_a_large_suite_stay_within_the_bound(tmp_path: Path) -> None:
    cells = {
        (f"evals/s{s}/evals.json", f"case-{c}", f"anthropic/m{m}"): Counts("0123456789abcdef", 4, 1)
        for s in range(20)
        for c in range(10)
        for m in range(2)
    }
    line = history.encode(Record("2026-01-01T00:00:00Z", "a" * 40, "schedule", cells))
    assert len(line) * history.MAX_RECORDS < history.MAX_BYTES


def test_case_series_is_one_point_per_job_that_graded_the_case() -> None:
    records = [record(1), Record("t", "s", "push", {CELL: Counts("f", 0, 0, 4)}), record(2)]
    points = history.case_series(records, CELL[0], "greet")
    assert [(p.sha[-1], p.passed, p.runs) for p in points] == [("1", 3, 3), ("2", 3, 3)]


def test_case_records_names_only_cells_with_graded_runs_of_that_fingerprint() -> None:
    records = [record(1), record(2)]
    got = history.case_records(records, {CELL: "f" * 16, (CELL[0], "gone", CELL[2]): "f" * 16})
    assert list(got) == [CELL] and got[CELL].words() == "passed 6 of the last 6 runs"
    assert history.case_records(records, {CELL: "another tree"}) == {}
