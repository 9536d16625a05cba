"""results.json's summary rows in a job of several agents: `model` is the plain model and
`agent` the agent CLI, as on the runs; a job of one agent writes no `agent` at all."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import jsonschema

from evolve_action.model import lanes
from evolve_action.model.outcomes import RunResult
from evolve_action.publish.results.document import aggregate_doc
from evolve_action.publish.results.load import schema_path
from evolve_action.publish.results.record import (
    Adaptive,
    JobRecord,
    record_doc,
    record_from_doc,
)
from evolve_action.verdict.adaptive import CellEffort, Stop
from tests.fakes.reports import M1, make_report, make_suite, outcome

GREETER = make_suite("greeter", [("greets", 10)])


def on(agent: str, runs: list[RunResult]) -> list[RunResult]:
    return lanes.relabel([replace(r, agent=agent) for r in runs])


def validate(doc: dict[str, Any], definition: str) -> None:
    schema = json.loads(schema_path().read_text())
    one = {"$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
    jsonschema.Draft202012Validator(one).validate(doc)


def test_a_lane_splits_into_its_model_and_agent() -> None:
    assert lanes.parts(lanes.lane(M1, "copilot")) == (M1, "copilot")
    assert lanes.parts(lanes.lane(M1, "claude")) == (M1, "claude")
    assert lanes.parts(lanes.lane(M1, "newcli")) == (M1, "newcli")  # no display name
    assert lanes.parts(M1) == (M1, "")
    assert lanes.fields(None) == {"model": None}


def test_several_agents_write_the_plain_model_and_the_agent_apart() -> None:
    runs = [
        *on("claude", outcome(GREETER, "greets", M1, base=(4, 0), head=(0, 4))),
        *on("copilot", outcome(GREETER, "greets", M1, base=(4, 0), head=(4, 0))),
    ]
    doc = aggregate_doc(make_report([GREETER], runs).aggregate)
    validate(doc, "aggregate")
    cases = {(c["model"], c["agent"]): c["label"] for c in doc["cases"]}
    assert set(cases) == {(M1, "claude"), (M1, "copilot")}, cases
    assert cases[(M1, "claude")] != cases[(M1, "copilot")]
    skills = {(g["suite"], g["model"], g["agent"]) for g in doc["suites"]}
    assert skills == {(GREETER.rel, M1, "claude"), (GREETER.rel, M1, "copilot")}
    assert {(g["model"], g["agent"]) for g in doc["models"]} == {(M1, "claude"), (M1, "copilot")}
    assert "agent" not in doc["overall"]


def test_one_agent_writes_no_agent_field() -> None:
    doc = aggregate_doc(
        make_report([GREETER], outcome(GREETER, "greets", M1, base=(4, 0), head=(4, 0))).aggregate
    )
    validate(doc, "aggregate")
    rows = [*doc["cases"], *doc["suites"], *doc["models"], doc["overall"]]
    assert all("agent" not in r for r in rows)
    assert {c["model"] for c in doc["cases"]} == {M1}


def test_the_adaptive_cells_read_back_their_lane() -> None:
    cells = (
        CellEffort((GREETER.rel, "greets", lanes.lane(M1, "copilot")), 3, 5, Stop.SETTLED),
        CellEffort((GREETER.rel, "greets", M1), 3, 3, Stop.SETTLED),
    )
    record = JobRecord(models=(M1,), adaptive=Adaptive(3, 8, 2, cells))
    doc = record_doc(record)
    written = doc["adaptive"]["cells"]
    assert (written[0]["model"], written[0]["agent"]) == (M1, "copilot")
    assert "agent" not in written[1]
    back = record_from_doc(doc).adaptive
    assert back is not None and back.cells == cells
