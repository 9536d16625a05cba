"""The results directory: what one job leaves behind for people, CI tools and `report`.

    results.json                                     ours (schemas/results.schema.json)
    report.html                                      charts and failed runs' transcripts,
                                                     for people (`publish.html`)
    junit.xml                                        head runs, for CI test reporters
    suites/<suite>/eval_feedback_aggregate.json      the judge's critique of the eval
    suites/<suite>/<model>/benchmark.json            skill-creator's viewer opens this dir
    suites/<suite>/<model>/benchmark-base.json       head against base, when the above is
                                                     head against no skill (the no-skill arm)
    suites/<suite>/<model>/eval-<case>/eval_metadata.json
    suites/<suite>/<model>/eval-<case>/<with_skill|without_skill|base>/run-<n>/grading.json

Every file is written atomically (a temporary sibling, then a rename), so a reader never
sees half a file. A directory we cannot write raises `ResultsWriteError` naming the path;
the CLI turns it into exit 2. `load_results` reads a results.json back — possibly from a
fork's artifact, so it is untrusted: size-capped, strict JSON, validated against the schema
before anything looks at it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evolve_action import __version__
from evolve_action.model.evals import Case, LoadResult, Suite
from evolve_action.model.outcomes import RunResult, Side
from evolve_action.model.records import run_doc
from evolve_action.plan.planning import Skip
from evolve_action.publish.junit import junit_xml
from evolve_action.publish.results.document import (
    SCHEMA_VERSION,
    aggregate_doc,
    catalog_doc,
    invalid_doc,
    skip_doc,
)
from evolve_action.publish.results.lift import discrimination_doc, lift_doc
from evolve_action.publish.results.load import RESULTS_FILE
from evolve_action.publish.results.record import JobRecord, record_doc
from evolve_action.publish.results.skill_creator import (
    benchmark_doc,
    configuration,
    feedback_aggregate_doc,
    grading_doc,
)
from evolve_action.util.files import atomic_write
from evolve_action.verdict.discrimination import ItemRecord
from evolve_action.verdict.lift import Lift
from evolve_action.verdict.stats import Aggregate

if TYPE_CHECKING:
    from evolve_action.publish.render.report import ReportInput

log = logging.getLogger(__name__)

JUNIT_FILE = "junit.xml"
File = tuple[Path, str]  # a results file and its text
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class ResultsData:
    """Everything one job reports. `generated_at` is ISO 8601 UTC, stamped by the caller."""

    runs: Sequence[RunResult]
    aggregate: Aggregate
    suites: Sequence[Suite] = ()
    judge_model: str | None = None
    record: JobRecord = field(default_factory=JobRecord)  # results.json's `settings`
    generated_at: str = ""
    repo_root: Path | None = None
    invalid: Sequence[LoadResult] = ()  # eval files that failed to load
    skipped: Sequence[Skip] = ()  # left out of the plan on purpose
    lift: Lift | None = None  # the no-skill arm's verdict, when a case ran without its skill
    discrimination: Sequence[ItemRecord] = ()  # what each check item could tell


def slug(text: str) -> str:
    """A file-name-safe, collision-resistant name for a suite path, model or case id."""
    clean = _UNSAFE.sub("-", text.replace("/", "__")).strip("-.")[:60] or "_"
    if clean == text:
        return clean
    return f"{clean}-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:8]}"


def _json(doc: Any) -> str:
    # NaN or infinity would be a bug upstream; refusing them keeps the files strict JSON.
    # Compact: these files are read by programs (the report, skill-creator's viewer, `jq`),
    # and `indent` sends `json` to its pure-Python encoder, several times slower than the C
    # one on a job's hundreds of files.
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n"


def results_doc(data: ResultsData) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "evolve-action", "version": __version__},
        "generated_at": data.generated_at,
        "settings": record_doc(data.record),
        "judge_model": data.judge_model,
        "catalog": catalog_doc(data.suites, data.repo_root),
        "runs": [run_doc(r) for r in data.runs],
        "invalid": [invalid_doc(r) for r in data.invalid if not r.ok],
        "skipped": [skip_doc(s) for s in data.skipped],
        "aggregate": aggregate_doc(data.aggregate),
        "lift": lift_doc(data.lift),
        "discrimination": discrimination_doc(data.discrimination),
    }


@dataclass
class Streamed:
    """What `publish.results.stream` wrote as the runs ended: each file's path and the hash
    of its text, and for each run whose files all were written, what they were built from."""

    texts: dict[Path, int] = field(default_factory=dict)
    runs: dict[int, StreamedRun] = field(default_factory=dict)  # by the run's `id`

    def holds(self, path: Path, text: str) -> bool:
        """Whether `path` was written here with this very text (in this process, where
        `hash` of a string is stable; a collision would need 2**64 tries)."""
        return self.texts.get(path) == hash(text)

    def files_of(
        self, run: RunResult, folder: Path, case: Case | None, armed: bool
    ) -> tuple[Path, ...] | None:
        """The files written for this very run object from these very inputs, which the
        final writer would build again to the same texts (a run is not changed once it has
        ended); None when it must build them."""
        made = self.runs.get(id(run))
        if made is None or made.run is not run or made.case is not case:
            return None
        return made.paths if (made.folder, made.armed) == (folder, armed) else None

    def remove_all_but(self, kept: Container[Path]) -> None:
        for path in self.texts:
            if path not in kept:
                path.unlink(missing_ok=True)


@dataclass(frozen=True)
class StreamedRun:
    """One run's files as the stream wrote them, and the inputs they were built from."""

    run: RunResult
    folder: Path
    case: Case | None
    armed: bool
    paths: tuple[Path, ...]


def model_dir(results_dir: Path, rel: str, model: str) -> Path:
    """The folder of one suite's runs on one model (skill-creator's viewer opens it)."""
    return results_dir / "suites" / slug(rel) / slug(model)


def run_files(folder: Path, run: RunResult, case: Case | None, armed: bool) -> list[File]:
    """One run's files under its model's `folder`: its case's eval_metadata.json (when the
    case is known) and its grading.json. `armed`: the suite ran a no-skill arm on the model."""
    eval_dir = folder / f"eval-{slug(run.case_id)}"
    files = []
    if case is not None:
        meta = {
            "eval_id": case.id,
            "eval_name": case.label,
            "prompt": case.prompt,
            "assertions": [i.text for i in case.items],
        }
        files.append((eval_dir / "eval_metadata.json", _json(meta)))
    run_dir = eval_dir / configuration(run.side, armed) / f"run-{run.repetition}"
    files.append((run_dir / "grading.json", _json(grading_doc(run))))
    return files


def write_results(
    results_dir: Path,
    data: ResultsData,
    report: ReportInput | None = None,
    streamed: Streamed | None = None,
) -> list[Path]:
    """Write every results file; returns the paths written, results.json last. With the
    `report` the comment reads, also report.html. `streamed`: the runs' files the job wrote
    as its runs ended; those whose text is still right are not written again, and any this
    job no longer has are removed, so the folder is as if all were written here."""
    catalog = {c["rel"]: c for c in catalog_doc(data.suites, data.repo_root)}
    written: dict[Path, None] = {}  # in order; a file once (a case's metadata, many runs)
    made: set[Path] = set()

    def put(path: Path, text: str | None) -> None:
        """`text` at `path`; None: the text the stream wrote there stands."""
        if path in written:
            return
        written[path] = None
        if text is not None and (streamed is None or not streamed.holds(path, text)):
            atomic_write(path, text, made)

    by_suite: dict[str, list[RunResult]] = {}
    for run in data.runs:
        by_suite.setdefault(run.suite, []).append(run)
    suites = {s.rel: s for s in data.suites}
    for rel, runs in sorted(by_suite.items()):
        suite = suites.get(rel)
        put(
            results_dir / "suites" / slug(rel) / "eval_feedback_aggregate.json",
            _json(feedback_aggregate_doc(suite, rel, runs)),
        )
        skill_path = catalog[rel]["skill_path"] if rel in catalog else ""
        for model in sorted({r.model for r in runs}):
            model_runs = [r for r in runs if r.model == model]
            folder = model_dir(results_dir, rel, model)
            _write_model(put, folder, data, (suite, rel, skill_path), model_runs, streamed)
    put(results_dir / JUNIT_FILE, junit_xml(data.runs, suites))
    if report is not None:
        from evolve_action.publish.html.page import write_html

        written[write_html(results_dir, report)] = None
    put(results_dir / RESULTS_FILE, _json(results_doc(data)))
    if streamed is not None:
        streamed.remove_all_but(written)
    return list(written)


def _write_model(
    put: Callable[[Path, str | None], None],
    folder: Path,
    data: ResultsData,
    where: tuple[Suite | None, str, str],
    runs: list[RunResult],
    streamed: Streamed | None,
) -> None:
    """One suite's runs on one model, as skill-creator's viewer reads them: benchmark.json
    (and benchmark-base.json beside the no-skill arm), each eval's metadata, each run's
    grading.json. `where`: the suite (None when not in the catalog), its path, its skill's."""
    suite, rel, skill_path = where
    model = runs[0].model

    def bench(without: Side = Side.BASE) -> dict[str, Any]:
        return benchmark_doc(
            suite, rel, model, runs, judge_model=data.judge_model,
            timestamp=data.generated_at, skill_path=skill_path, without=without,
        )  # fmt: skip

    armed = any(r.side is Side.NO_SKILL for r in runs)
    if armed and any(r.side is Side.BASE for r in runs):
        put(folder / "benchmark-base.json", _json(bench()))  # what the PR changed
    put(folder / "benchmark.json", _json(bench(Side.NO_SKILL) if armed else bench()))
    cases = {c.id: c for c in suite.cases} if suite else {}
    for run in runs:
        case = cases.get(run.case_id)
        kept = streamed.files_of(run, folder, case, armed) if streamed else None
        if kept is not None:  # not built again: the same object gives the same texts
            for path in kept:
                put(path, None)
            continue
        for path, text in run_files(folder, run, case, armed):
            put(path, text)
