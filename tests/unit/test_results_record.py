"""The typed record of a job in results.json (`settings`): one codec, checked against the
schema by a round trip, old files read with defaults, files of another version refused, and
one report path for `run` and `report` (a field only one of them had: the effort of
`runs: auto`)."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from evolve_action.pipeline.merged import build_report
from evolve_action.pipeline.report_input import Facts, build
from evolve_action.plan.ruler import CaseChange, CaseDiff
from evolve_action.publish.results.load import ResultsLoadError, load_results, schema_path
from evolve_action.publish.results.record import (
    Adaptive,
    CaseChangeRecord,
    JobRecord,
    adaptive_of,
    record_doc,
    record_from_doc,
)
from evolve_action.publish.results.write import results_doc, write_results
from evolve_action.settings.events import Event
from evolve_action.settings.inputs import Settings
from evolve_action.verdict.adaptive import CellEffort, Design, Effort, Stop
from evolve_action.verdict.gate import Shortfall
from tests.fakes.reports import BASE, EVENT, HEAD, M1, make_suite, outcome

EFFORT = Effort(
    Design(2, 8),
    (
        CellEffort(("evals/greeter/evals.json", "status-file", M1), 6, 6, Stop.SETTLED),
        CellEffort(("evals/greeter/evals.json", "weather", M1), 2, 2, Stop.STABLE),
    ),
    waves=2,
)
FULL = JobRecord(
    models=(M1, "openai/gpt-5.4"),
    runs="auto",
    adaptive=adaptive_of(EFFORT),
    head_sha=HEAD,
    base_sha=BASE,
    pr_number=7,
    event="pull_request",
    incomplete=True,
    planned_runs=24,
    stopped_by="SIGTERM",
    incomplete_because=("max-minutes ran out with 1 eval still open",),
    alpha=0.1,
    fail_on_regression=False,
    min_pass_rate=0.8,
    confinement="namespaces (bubblewrap)",
    harness="cli",
    shard="2/3",
    merged_from=3,
    projected_usd=0.42,
    projected_range=(0.1, 9.5),
    prices_as_of="2026-11-09 (genai-prices 0.2.3)",
    case_changes=(
        CaseChangeRecord(
            CaseDiff(
                "evals/greeter/evals.json",
                CaseChange.CHANGED_RULER,
                "status-file",
                "status-file",
                ("regex /^Hello/ → /.*/",),
            )
        ),
        CaseChangeRecord(
            CaseDiff("evals/greeter/evals.json", CaseChange.REMOVED, "old", "", gating=False),
            base_pass_rate=0.75,
        ),
    ),
)


def _settings_schema() -> dict[str, object]:
    schema = json.loads(schema_path().read_text())
    settings: dict[str, object] = schema["properties"]["settings"]
    return settings


def test_the_record_round_trips_through_the_schema() -> None:
    doc = record_doc(FULL)
    jsonschema.Draft202012Validator(_settings_schema()).validate(doc)
    assert record_from_doc(json.loads(json.dumps(doc))) == FULL
    assert record_from_doc(record_doc(JobRecord())) == JobRecord()


def test_the_schema_describes_every_field_the_codec_writes_and_no_other() -> None:
    written = set(record_doc(FULL))
    described = set(_settings_schema()["properties"])  # type: ignore[arg-type]
    assert written == described
    # Every field of the record reaches the file (`verdict_keys` says which are recorded).
    names = {f.name for f in fields(JobRecord)} - {"verdict_keys"}
    assert names <= written


def test_a_file_of_an_earlier_version_is_read_with_defaults() -> None:
    """Files written before the harness, the adaptive cells and the stop fields were."""
    old = {"models": [M1], "runs": 3, "head_sha": HEAD, "base_sha": None, "alpha": 0.05}
    old |= {"adaptive": {"start": 2, "max_runs": 8, "waves": 1}, "confinement": "none"}
    jsonschema.Draft202012Validator(_settings_schema()).validate(old)  # the schema still reads it
    record = record_from_doc(old)
    assert (record.models, record.runs, record.base_sha) == ((M1,), 3, None)
    assert (record.harness, record.planned_runs, record.stopped_by) == ("", None, None)
    assert record.adaptive == Adaptive(2, 8, 1, None)
    assert record.adaptive.effort() is None  # the schedule is known, where runs went is not
    assert record.verdict_doc() == {"alpha": 0.05}  # only what was recorded counts


def test_a_file_of_another_schema_version_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"schema_version": 2, "tool": {"version": "9.0.0"}}))
    with pytest.raises(ResultsLoadError) as raised:
        load_results(path)
    message = str(raised.value)
    assert "/schema_version is 2 (written by evolve-action 9.0.0)" in message
    assert "version 1" in message and "run `report` with the version" in message


def test_run_and_report_build_the_same_report_and_record(tmp_path: Path) -> None:
    """`runs: auto`'s effort was only in one job's comment: a merged report had none. Both now
    come from `report_input.build`, and the merge reads the effort back from the record."""
    suite = make_suite("greeter", [("status-file", 24), ("weather", 40)])
    runs = outcome(suite, "status-file", M1, base=(6, 0), head=(2, 4))
    runs += outcome(suite, "weather", M1, base=(2, 0), head=(2, 0))
    settings = Settings(alpha=0.1)
    facts = Facts(
        event=EVENT,
        head_sha=HEAD,
        base_sha=BASE,
        head_suites=[suite],
        base_suites=[suite],
        adaptive=adaptive_of(EFFORT),
        shortfall=Shortfall(len(runs), len(runs)),  # every planned run was made
        confinement="none",
        harness="sdk",
        models=(M1,),
        runs_setting="auto",
        shard="1/1",
    )
    one = build(settings, runs, facts)
    write_results(tmp_path / "shard", one.data)
    merged = build_report([load_results(tmp_path / "shard")], settings, EVENT, HEAD)

    assert merged.input.effort == one.input.effort == EFFORT
    assert merged.input.gate == one.input.gate
    assert merged.input.aggregate == one.input.aggregate
    assert merged.data.record == JobRecord(**_as_merge(one.data.record))
    whole = results_doc(merged.data)
    jsonschema.Draft202012Validator(json.loads(schema_path().read_text())).validate(whole)


def _as_merge(record: JobRecord) -> dict[str, Any]:
    """What a merge of one file records: the same, read from one file, not sharded itself."""
    out = {f.name: getattr(record, f.name) for f in fields(JobRecord)}
    return out | {"shard": None, "merged_from": 1}


def test_a_local_report_has_no_pr_and_no_event_of_its_own() -> None:
    report = build(Settings(), [], Facts(event=Event(name="local"), head_sha="", base_sha=None))
    assert report.data.record.event == "local" and report.data.record.pr_number is None
    assert report.input.gate.conclusion == "neutral"  # nothing ran: never green
