"""Every real corpus eval file that loads is run and graded end to end against the fake
providers, with no crash, and its results files validate against our schema (issue 4)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.model.outcomes import ErrorKind, Status
from evolve_action.pipeline.plan_and_run import plan_and_run
from evolve_action.pipeline.request import Loaded, Request
from evolve_action.plan.sides import Sides
from evolve_action.publish.results.load import load_results
from evolve_action.publish.results.write import ResultsData, write_results
from evolve_action.settings.inputs import from_values
from evolve_action.verdict import stats
from tests.fakes.llm_server import Answer, FakeLLM, text
from tests.fakes.llm_server import Request as FakeRequest
from tests.fakes.scripts import grading, tool_names
from tests.unit.test_corpus import EXPECTED, Loads, load, rebuilt, saved_name

__all__ = ["rebuilt"]  # the module-scoped fixture that rebuilds the corpus repositories

LOADS = [key for key, verdict in EXPECTED.items() if isinstance(verdict, Loads)]


def answer(request: FakeRequest) -> Answer:
    if "submit_grading" in tool_names(request):
        return grading(request)
    return text("I looked at the task and did what it asked.")


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeLLM]:
    with FakeLLM(answer) as server:
        yield server


@pytest.mark.parametrize("key", LOADS)
def test_corpus_file__runs_and_grades_end_to_end(
    corpus_dir: Path, rebuilt: dict[str, object], llm: FakeLLM, tmp_path: Path, key: str
) -> None:
    placed = rebuilt[saved_name(corpus_dir, key)]
    result = load(placed)  # type: ignore[arg-type]
    assert result.suite is not None
    suite = result.suite
    environ = {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": llm.openai_base_url}
    values = {"models": "openai", "judge-model": "openai", "runs": "1", "max-turns": "3"}
    settings = from_values(values)
    request = Request(values=values, environ=environ, root=placed.root)  # type: ignore[attr-defined]
    sides = Sides(placed.root, "", None, "")  # type: ignore[attr-defined]
    execution = asyncio.run(plan_and_run(request, settings, sides, Loaded(suites=[suite]), None))
    assert len(execution.results) == len(suite.cases)
    for run in execution.results:
        internal = run.status is Status.ERROR and run.error_kind is ErrorKind.INTERNAL
        assert not internal, run.error
        assert run.status in (Status.PASS, Status.FAIL, Status.ERROR)
    data = ResultsData(
        runs=execution.results,
        aggregate=stats.aggregate(execution.results, [suite]),
        suites=[suite],
        judge_model=execution.judge_model,
        generated_at="2026-11-22T00:00:00Z",
        repo_root=placed.root,  # type: ignore[attr-defined]
    )
    written = write_results(tmp_path / "results", data)
    loaded = load_results(written[-1])  # validates against schemas/results.schema.json
    assert len(loaded.runs) == len(execution.results)
