"""The history of record: one line per watch run or push to the default branch, read back by
the next watch and by anything that wants a case's record on `main`.

The store is one file, `history.jsonl`, in the `history-dir` input's directory (a checkout of
the results branch, docs/watch.md says why a branch). Each line is one job: when it ran, the
commit, the event, what the models reported of themselves (snapshot), the CLI, the prices, and
per (suite, case, model) the graded counts with the cell's fingerprint (the same tree, model
id, judge and tool version hash the same). Suites and models are listed once per line and the
cells point into them, so 50 cases on 2 models take about 4 KB a line.

Append-only: a job adds its line at the end. Bounded: once the file holds more than
`MAX_RECORDS` lines or `MAX_BYTES`, the oldest lines are dropped in one atomic rewrite (the
branch's own git history still has them). Reading is bounded too: only the last `MAX_BYTES`
of a larger file are read, and a line that is not a record is skipped with a warning, never
a crash: the branch is ours, but a reader must not trust what it cannot check.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evolve_action.util.files import atomic_write

log = logging.getLogger(__name__)

FILE = "history.jsonl"
VERSION = 1
MAX_RECORDS = 500
MAX_BYTES = 16 * 1024 * 1024  # 500 lines of 200 cases × 2 models stay under it
MAX_LINE = 1024 * 1024
# Fewer recorded runs than this say little about a case's flakiness: a report leaves them out.
MIN_TELLING_RUNS = 10

CellKey = tuple[str, str, str]  # (suite, case id, model)


@dataclass(frozen=True, slots=True)
class Counts:
    """One cell's runs in one job: graded passes and failures, and errors (never graded)."""

    fingerprint: str
    passed: int
    failed: int
    errored: int = 0

    @property
    def graded(self) -> int:
        return self.passed + self.failed


@dataclass(frozen=True, slots=True)
class Record:
    """One job's line of the history."""

    at: str  # ISO 8601, UTC
    sha: str
    event: str  # schedule | workflow_dispatch | push
    cells: Mapping[CellKey, Counts]
    snapshots: Mapping[str, str] = field(default_factory=dict)  # model → what it reported
    cli: str = ""  # the tool's version, and the agent CLIs' under `harness: cli`
    prices: Mapping[str, str] = field(default_factory=dict)  # model → price in words
    full: bool = True  # every eval ran (else a sample)
    flagged: tuple[str, ...] = ()  # suites that dropped significantly: never a baseline
    shard: str = ""  # "i/n" when one of n jobs of a sharded watch wrote it


def encode(record: Record) -> str:
    """One line, no newline: the job's facts as JSON, a tab, then its cells as JSON (eval files
    and models once, each cell as indexes and counts). A reader parses the cells of a line
    only when asked for them (`LazyCells`): a look-up walks back from the newest line and
    seldom reaches the oldest."""
    suites = sorted({k[0] for k in record.cells})
    models = sorted({k[2] for k in record.cells})
    s_at = {s: i for i, s in enumerate(suites)}
    m_at = {m: i for i, m in enumerate(models)}
    cells = [
        [s_at[s], c, m_at[m], n.fingerprint, n.passed, n.failed, n.errored]
        for (s, c, m), n in sorted(record.cells.items())
    ]
    doc = {
        "v": VERSION,
        "at": record.at,
        "sha": record.sha,
        "event": record.event,
        "snap": dict(record.snapshots),
        "cli": record.cli,
        "prices": dict(record.prices),
        "full": record.full,
        "flagged": list(record.flagged),
        **({"shard": record.shard} if record.shard else {}),
    }
    # JSON escapes a tab inside strings, so the first raw tab is the separator.
    head = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
    return head + "\t" + json.dumps([suites, models, cells], separators=(",", ":"))


class LazyCells(Mapping[CellKey, Counts]):
    """A line's cells, parsed and checked on first use; a line whose cells are not valid
    reads as having none (with a warning), as an unreadable line is skipped."""

    def __init__(self, text: str) -> None:
        self._text: str | None = text
        self._cells: dict[CellKey, Counts] = {}

    def _parsed(self) -> dict[CellKey, Counts]:
        if self._text is not None:
            text, self._text = self._text, None
            try:
                self._cells = _cells(text)
            except (ValueError, KeyError, TypeError, IndexError) as exc:
                log.warning("ignoring the unreadable cells of a history line: %s", exc)
        return self._cells

    def __getitem__(self, key: CellKey) -> Counts:
        return self._parsed()[key]

    def __iter__(self) -> Iterator[CellKey]:
        return iter(self._parsed())

    def __len__(self) -> int:
        return len(self._parsed())


def _cells(text: str) -> dict[CellKey, Counts]:
    suites_, models_, rows = json.loads(text)
    suites, models = _strings(suites_), _strings(models_)
    cells: dict[CellKey, Counts] = {}
    for s, case, m, fp, p, f, e in rows:
        # One flat test per cell: this loop is the cost of reading a line (bench/history_bench).
        if (
            type(p) is not int or type(f) is not int or type(e) is not int
            or p < 0 or f < 0 or e < 0 or type(case) is not str or type(fp) is not str
        ):  # fmt: skip
            raise ValueError("a cell with a bad id or counts that are not whole numbers")
        cells[(suites[s], case, models[m])] = Counts(fp, p, f, e)
    return cells


def decode(line: str) -> Record:
    """A line back; ValueError (or KeyError, TypeError) when its facts are not a record."""
    head, tab, tail = line.partition("\t")
    doc = json.loads(head)
    if not isinstance(doc, dict) or doc.get("v") != VERSION or not tab:
        raise ValueError(f"not a version {VERSION} record")
    return Record(
        at=str(doc["at"]),
        sha=str(doc["sha"]),
        event=str(doc["event"]),
        cells=LazyCells(tail),
        snapshots=_string_map(doc.get("snap", {})),
        cli=str(doc.get("cli", "")),
        prices=_string_map(doc.get("prices", {})),
        full=bool(doc.get("full", True)),
        flagged=tuple(_strings(doc.get("flagged", []))),
        shard=str(doc.get("shard", "")),
    )


def _strings(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("expected a list of strings")
    return value


def _string_map(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ValueError("expected an object")
    return {str(k): str(v) for k, v in value.items()}


def read(directory: Path | None) -> list[Record]:
    """Every readable record, oldest first; [] when there is no store yet."""
    if directory is None:
        return []
    path = directory / FILE
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, 2)
            handle.seek(max(0, size - MAX_BYTES))
            data = handle.read()
    except FileNotFoundError:
        return []
    except OSError as exc:
        log.warning("cannot read the history %s: %s; going on without it", path, exc)
        return []
    lines = data.split(b"\n")
    if size > MAX_BYTES:
        lines = lines[1:]  # the first is cut
    records = []
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            if len(raw) > MAX_LINE:
                raise ValueError("line too long")
            records.append(decode(raw.decode("utf-8")))
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            log.warning("skipping line %d of the history %s: %s", number, path, exc)
    return records[-MAX_RECORDS:]


def append(directory: Path, record: Record) -> Path:
    """Add `record` at the end; past the bounds, drop the oldest lines in one rewrite."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / FILE
    line = encode(record) + "\n"
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line)
    size = path.stat().st_size
    if size > MAX_BYTES or _count_lines(path) > MAX_RECORDS:
        # The newest lines as they are (no line is parsed: a trim must not rewrite them).
        with path.open("rb") as handle:
            handle.seek(max(0, size - MAX_BYTES))
            lines = handle.read().split(b"\n")[1 if size > MAX_BYTES else 0 :]
        kept = [raw + b"\n" for raw in lines if raw.strip()][-MAX_RECORDS:]
        total = sum(map(len, kept))
        while kept and total > MAX_BYTES:
            total -= len(kept.pop(0))
        atomic_write(path, b"".join(kept).decode("utf-8", "replace"))
    return path


def _count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))


@dataclass(frozen=True, slots=True)
class CaseHistory:
    """A case's graded runs on the default branch, newest jobs first, up to `last` runs."""

    passed: int
    runs: int
    jobs: int  # how many recorded jobs they came from

    def words(self) -> str:
        """ "passed 40 of the last 42 runs on main" (without the branch name)."""
        return f"passed {self.passed} of the last {self.runs} run{'s' * (self.runs != 1)}"

    @property
    def telling(self) -> bool:
        """Enough runs for the record to help tell a flaky case from a regression."""
        return self.runs >= MIN_TELLING_RUNS


def case_history(
    records: Sequence[Record],
    suite: str,
    case_id: str,
    *,
    model: str | None = None,
    last: int = 50,
    fingerprint: str | None = None,
) -> CaseHistory | None:
    """The case's recent record: graded runs over the newest jobs until `last` are counted,
    on one model or all; with `fingerprint`, only runs of that very cell (same tree and model
    id). None when the history has no graded run of it."""
    passed = runs = jobs = 0
    for record in reversed(records):
        used = False
        for counts in _cells_of(record.cells, suite, case_id, model):
            if fingerprint is not None and counts.fingerprint != fingerprint:
                continue
            take = min(counts.graded, last - runs)
            if take <= 0:
                continue
            # A partial take keeps the job's pass rate (rounded), so no run is invented.
            passed += round(counts.passed * take / counts.graded)
            runs += take
            used = True
        jobs += used
        if runs >= last:
            break
    return CaseHistory(passed, runs, jobs) if runs else None


def _cells_of(
    cells: Mapping[CellKey, Counts], suite: str, case_id: str, model: str | None
) -> Iterable[Counts]:
    if model is not None:
        counts = cells.get((suite, case_id, model))
        return [counts] if counts is not None else []
    return [c for k, c in cells.items() if k[0] == suite and k[1] == case_id]


@dataclass(frozen=True, slots=True)
class Point:
    """One recorded job's runs of a case: for a pass rate drawn over time."""

    at: str
    sha: str
    passed: int
    runs: int  # graded


def case_series(
    records: Sequence[Record],
    suite: str,
    case_id: str,
    *,
    model: str | None = None,
    fingerprint: str | None = None,
) -> list[Point]:
    """The case's graded runs per recorded job, oldest first (jobs where it only errored, or
    did not run, are left out); with `fingerprint`, only runs of that very cell."""
    out = []
    for record in records:
        cells = list(_cells_of(record.cells, suite, case_id, model))
        if fingerprint is not None:
            cells = [c for c in cells if c.fingerprint == fingerprint]
        graded = sum(c.graded for c in cells)
        if graded:
            out.append(Point(record.at, record.sha, sum(c.passed for c in cells), graded))
    return out


def case_records(
    records: Sequence[Record], fingerprints: Mapping[CellKey, str], *, last: int = 50
) -> dict[CellKey, CaseHistory]:
    """For a report: each cell's record on the default branch, the very same cell only (its
    fingerprint, as `pipeline.watch_compare.cell_fingerprints` computes it for a tree), where
    the history has graded runs of it."""
    out = {}
    for (suite, case_id, model), fingerprint in fingerprints.items():
        found = case_history(
            records, suite, case_id, model=model, last=last, fingerprint=fingerprint
        )
        if found is not None:
            out[(suite, case_id, model)] = found
    return out
