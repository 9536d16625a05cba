"""Reading a results.json back (`report`, merging shards): untrusted, possibly a fork's
artifact, so it is size-capped, strict JSON, and validated against the schema before anything
looks at it; an older schema version is read with defaults for what it lacks."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evolve_action import __version__
from evolve_action.model.evals import LoadResult, Suite
from evolve_action.model.outcomes import RunResult
from evolve_action.model.records import run_from_doc
from evolve_action.plan.planning import Skip
from evolve_action.publish.results.document import (
    SCHEMA_VERSION,
    invalid_from_doc,
    skip_from_doc,
    suite_from_doc,
)
from evolve_action.publish.results.record import JobRecord, record_from_doc
from evolve_action.publish.schema_check import Check, compile_schema
from evolve_action.util.files import _why
from evolve_action.util.text import json_kind

if TYPE_CHECKING:
    import jsonschema

log = logging.getLogger(__name__)

RESULTS_FILE = "results.json"
MAX_RESULTS_BYTES = 64 * 1024 * 1024


class ResultsLoadError(Exception):
    """A results.json is missing, unreadable, too large, or not in our schema."""


def schema_path() -> Path:
    """`schemas/results.schema.json`: packaged beside the module when installed as a wheel,
    else at the root of the source tree (editable installs, the action's image)."""
    here = Path(__file__).resolve().parents[2]  # the package, above `publish/results/`
    packaged = here / "schemas" / "results.schema.json"
    return packaged if packaged.is_file() else here.parents[1] / "schemas" / "results.schema.json"


def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(schema_path().read_text(encoding="utf-8"))
    return schema


@cache
def _check() -> Check:
    return compile_schema(_schema())


@cache
def _validator() -> jsonschema.protocols.Validator:
    import jsonschema  # only to explain a failure: importing it costs about 0.25 s

    schema = _schema()
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator: jsonschema.protocols.Validator = cls(schema)
    return validator


def validate(doc: Any) -> None:
    """Raise ResultsLoadError naming the first problem (a JSON pointer) when `doc` is off-schema.

    The compiled check decides; jsonschema only runs on a document it rejects, to say where.
    """
    if _check()(doc):
        return
    errors = sorted(_validator().iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
    if not errors:
        # The two disagree: a bug in `schema_check`. jsonschema is the reference, so accept.
        log.warning("results.json: the compiled schema check rejected a valid document")
        return
    first = errors[0]
    where = "/" + "/".join(str(p) for p in first.absolute_path)
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    raise ResultsLoadError(
        f"results.json does not match its schema at {where}: {first.message[:300]}{more}"
    )


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


@dataclass(frozen=True)
class LoadedResults:
    document: Mapping[str, Any]
    runs: list[RunResult]
    suites: list[Suite]
    path: Path = Path(RESULTS_FILE)  # where it was read, for messages
    invalid: list[LoadResult] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)

    @cached_property
    def record(self) -> JobRecord:
        """What the file records about its job (`results.record`)."""
        return record_from_doc(self.document.get("settings"))


def _check_version(path: Path, doc: Any) -> None:
    """Refuse a file of a schema version this `report` does not read, naming both versions.

    Version 1 is the only one so far: its later fields were all additions, which the record
    reads with defaults (`record_from_doc`). A version bump adds its reader here."""
    version = doc.get("schema_version") if isinstance(doc, dict) else None
    if version == SCHEMA_VERSION:
        return
    tool = doc.get("tool") if isinstance(doc, dict) else None
    by = tool.get("version") if isinstance(tool, dict) else None
    written = f" (written by evolve-action {by})" if isinstance(by, str) else ""
    said = version if isinstance(version, int | str) else json_kind(version)
    raise ResultsLoadError(
        f"{path}: /schema_version is {said}{written}, not a results schema this evolve-action"
        f" {__version__} reads (version {SCHEMA_VERSION}); run `report` with the version of the"
        " action that wrote the results, or run the jobs again"
    )


def load_results(path: Path) -> LoadedResults:
    """Read and validate one results.json (a file, or a results directory holding one)."""
    if path.is_dir():
        path = path / RESULTS_FILE
    try:
        size = path.stat().st_size
        if size > MAX_RESULTS_BYTES:
            raise ResultsLoadError(f"{path}: {size} bytes is more than a results file may hold")
        doc = json.loads(path.read_text(encoding="utf-8"), parse_constant=_no_constants)
    except OSError as exc:
        raise ResultsLoadError(f"cannot read {path}: {_why(exc)}") from exc
    except (ValueError, RecursionError) as exc:
        raise ResultsLoadError(f"{path} is not valid JSON: {exc}") from exc
    _check_version(path, doc)
    try:
        validate(doc)
    except ResultsLoadError as exc:
        raise ResultsLoadError(f"{path}: {exc}") from exc
    return LoadedResults(
        document=doc,
        runs=[run_from_doc(r) for r in doc["runs"]],
        suites=[suite_from_doc(s) for s in doc["catalog"]],
        path=path,
        invalid=[invalid_from_doc(r) for r in doc.get("invalid", ())],
        skipped=[skip_from_doc(s) for s in doc.get("skipped", ())],
    )


@dataclass(frozen=True)
class Merged:
    runs: list[RunResult]
    head_suites: list[Suite]
    base_suites: list[Suite]
    invalid: list[LoadResult] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)

    @property
    def suites(self) -> list[Suite]:
        """Head before base, as `stats.aggregate` and `catalog_doc` take them."""
        return [*self.head_suites, *self.base_suites]


def merge(shards: Sequence[LoadedResults]) -> Merged:
    """Runs and suites of several shards, for aggregating again. A run present in two shards
    (same suite, case, model, side, repetition) is kept once.

    A catalog lists the head suites, then the base suites of the same files (`job` writes
    them so, and a base suite is only selected beside its head suite): within one document,
    the first entry of a file is its head version and a second one its base version. Across
    documents the first head (or base) version of a file wins.
    """
    runs: dict[tuple[str, str, str, str, int], RunResult] = {}
    head: dict[str, Suite] = {}
    base: dict[str, Suite] = {}
    # Every shard loads every file and plans every run before it takes its part, so each
    # lists the same invalid files and skips: kept once.
    invalid: dict[str, LoadResult] = {}
    skipped: dict[Skip, None] = {}
    for shard in shards:
        for result in shard.invalid:
            invalid.setdefault(result.rel, result)
        skipped.update(dict.fromkeys(shard.skipped))
        for run in shard.runs:
            runs.setdefault(
                (run.suite, run.case_id, run.model, run.side.value, run.repetition), run
            )
        seen: set[str] = set()
        for suite in shard.suites:
            (base if suite.rel in seen else head).setdefault(suite.rel, suite)
            seen.add(suite.rel)
    return Merged(
        list(runs.values()),
        list(head.values()),
        list(base.values()),
        list(invalid.values()),
        list(skipped),
    )
