"""The results directory: our schema, skill-creator's shapes, JUnit, atomic writes, loading."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from evolve_action.model.evals import (
    Case,
    CaseKind,
    Check,
    Format,
    JudgeItem,
    LoadResult,
    Origin,
    Problem,
    Scale,
    Skill,
    Suite,
    SuitePolicy,
)
from evolve_action.model.outcomes import (
    ErrorKind,
    Feedback,
    ItemResult,
    JudgeReport,
    RunResult,
    Side,
    Status,
    ToolCall,
    Transcript,
    Usage,
)
from evolve_action.plan.planning import Skip
from evolve_action.publish.results.document import aggregate_doc
from evolve_action.publish.results.load import ResultsLoadError, load_results, merge, schema_path
from evolve_action.publish.results.record import JobRecord
from evolve_action.publish.results.skill_creator import aggregate_feedback
from evolve_action.publish.results.write import ResultsData, results_doc, slug, write_results
from evolve_action.util.files import ResultsWriteError, atomic_write
from evolve_action.verdict.stats import aggregate

DATA = Path(__file__).resolve().parent.parent / "data"
REL = "evals/greeter/evals.json"
M1 = "anthropic/claude-sonnet-4-6"
JUDGE = "anthropic/claude-sonnet-4-6"


def _schema(name: str) -> jsonschema.protocols.Validator:
    schema = json.loads((DATA / name).read_text())
    return jsonschema.Draft202012Validator(schema)


def _suite(root: Path) -> Suite:
    origin = Origin(REL, 10)
    items = (
        Check("status", "evolve.file_exists", "status.txt exists", origin),
        JudgeItem("greets", "The reply greets the user", origin),
        JudgeItem("quality", "Overall quality", origin, scale=Scale.LIKERT5),
    )
    cases = (
        Case("status-file", "write status.txt", Origin(REL, 24), name="Status file", items=items),
        Case("farewell", "say bye", Origin(REL, 40), items=items[:2]),
        Case("fires", "greet me", Origin(REL, 50), kind=CaseKind.TRIGGER, should_trigger=True),
    )
    skill = Skill("greeter", root / "skills" / "greeter")
    return Suite(
        Format.EVOLVE,
        root / REL,
        REL,
        skill,
        cases,
        policy=SuitePolicy(threshold=1.0, weights={"no": 1.0}),
    )


def _run(
    case_id: str,
    side: Side,
    rep: int,
    status: Status,
    *,
    tokens: int = 1000,
    seconds: float = 10.0,
    quality: float | None = 4.0,
    suggestions: list[dict[str, str]] | None = None,
) -> RunResult:
    items = [
        ItemResult(
            "status",
            "status.txt exists",
            status is Status.PASS,
            "exit 1" if status is Status.FAIL else "found",
            kind="evolve.file_exists",
        ),
        ItemResult(
            "greets", "The reply greets the user", True, "says hello", 1.0, "judge", "expectation"
        ),
    ]
    if quality is not None:
        items.append(
            ItemResult(
                "quality",
                "Overall quality",
                quality >= 3,
                "ok",
                (quality - 1) / 4,
                "judge",
                "rubric",
                quality,
            )
        )
    transcript = Transcript(
        final_text="Hello! " + "x" * 5000,
        tool_calls=[
            ToolCall("Bash", json.dumps({"command": "echo " + "y" * 600}), "ok"),
            ToolCall("Write", "{}", "", is_error=True),
        ],
        turns=3,
        usage=Usage(input_tokens=tokens - 100, output_tokens=100, cost_usd=0.002),
        duration_s=seconds,
        stop_reason="end_turn",
        changed_files=["status.txt"],
    )
    judge = JudgeReport(
        model=JUDGE,
        called=True,
        claims=[
            {
                "claim": "wrote the file",
                "type": "process",
                "verified": True,
                "evidence": "status.txt",
            }
        ],
        feedback=Feedback(suggestions or [], "fine"),
        usage=Usage(input_tokens=50, output_tokens=10, cost_usd=0.001, calls=1),
        duration_s=2.0,
    )
    if status is Status.ERROR:
        return RunResult(
            REL,
            case_id,
            M1,
            side,
            rep,
            status,
            0.0,
            transcript=Transcript(),
            error="anthropic: quota: rate limited",
            error_kind=ErrorKind.QUOTA,
        )
    score = sum(i.passed is True for i in items) / len(items)
    return RunResult(
        REL, case_id, M1, side, rep, status, score, items, transcript, judge, fingerprint="abc"
    )


def _runs() -> list[RunResult]:
    weak = [{"assertion": "The reply greets the user", "reason": "Passes for any greeting."}]
    weak_again = [{"assertion": "the reply greets the user", "reason": "passes  for any greeting"}]
    return [
        _run("status-file", Side.BASE, 1, Status.PASS, tokens=1000, seconds=10.0),
        _run("status-file", Side.BASE, 2, Status.PASS, tokens=1000, seconds=10.0),
        _run("status-file", Side.HEAD, 1, Status.FAIL, tokens=2700, seconds=23.0, suggestions=weak),
        _run(
            "status-file",
            Side.HEAD,
            2,
            Status.PASS,
            tokens=2700,
            seconds=23.0,
            suggestions=weak_again,
        ),
        _run("status-file", Side.HEAD, 3, Status.ERROR),
        _run(
            "farewell",
            Side.HEAD,
            1,
            Status.PASS,
            quality=None,
            suggestions=[{"reason": "nothing checks the tone"}],
        ),
        _run(
            "farewell",
            Side.BASE,
            1,
            Status.FAIL,
            quality=None,
            suggestions=[{"reason": "base only"}],
        ),
    ]


def _data(tmp_path: Path) -> ResultsData:
    suite = _suite(tmp_path / "repo")
    runs = _runs()
    return ResultsData(
        runs=runs,
        aggregate=aggregate(runs, [suite]),
        suites=[suite],
        judge_model=JUDGE,
        record=JobRecord(models=(M1,), runs=3),
        generated_at="2026-11-22T12:00:00Z",
        repo_root=tmp_path / "repo",
    )


@pytest.fixture
def written(tmp_path: Path) -> tuple[Path, list[Path], ResultsData]:
    data = _data(tmp_path)
    out = tmp_path / "results"
    return out, write_results(out, data), data


def test_results_json_matches_our_schema(written: tuple[Path, list[Path], ResultsData]) -> None:
    out, paths, _ = written
    assert paths[-1] == out / "results.json"
    doc = json.loads((out / "results.json").read_text())
    schema = json.loads(schema_path().read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert doc["judge_model"] == JUDGE and doc["tool"]["name"] == "evolve-action"
    [catalog] = doc["catalog"]
    assert catalog["skill_path"] == "skills/greeter" and catalog["policy"] == {"threshold": 1.0}
    assert catalog["cases"][0]["origin"] == {"path": REL, "line": 24}
    run = doc["runs"][2]
    assert run["status"] == "fail" and run["items"][0]["evidence"] == "exit 1"
    assert run["transcript"]["final_text_truncated"] is True
    assert len(run["transcript"]["final_text"].encode()) == 4000
    assert len(run["transcript"]["tool_calls"][0]["arguments"].encode()) == 300
    assert run["cost_usd"] == pytest.approx(0.003)
    case = doc["aggregate"]["cases"][0]
    assert (case["case_id"], case["head"]["errored"], case["head"]["pass_rate"]) == (
        "status-file",
        1,
        0.5,
    )


def test_every_grading_json_matches_skill_creator(
    written: tuple[Path, list[Path], ResultsData],
) -> None:
    out, paths, _ = written
    validator = _schema("skill_creator_grading.schema.json")
    gradings = [p for p in paths if p.name == "grading.json"]
    assert len(gradings) == 7
    for path in gradings:
        validator.validate(json.loads(path.read_text()))
    model_dir = out / "suites" / slug(REL) / slug(M1)
    failed = json.loads(
        (model_dir / "eval-status-file" / "with_skill" / "run-1" / "grading.json").read_text()
    )
    assert failed["summary"] == {
        "passed": 2,
        "failed": 1,
        "skipped": 0,
        "total": 3,
        "pass_rate": 0.6667,
    }
    assert failed["expectations"][0] == {
        "text": "status.txt exists",
        "passed": False,
        "evidence": "exit 1",
        "id": "status",
        "source": "assertion",
        "kind": "evolve.file_exists",
    }
    assert failed["rubric_scores"] == {"quality": {"score": 4.0, "evidence": "ok"}}
    assert failed["execution_metrics"]["tool_calls"] == {"Bash": 1, "Write": 1}
    assert failed["execution_metrics"]["errors_encountered"] == 1
    assert failed["timing"]["total_duration_seconds"] == 25.0
    assert failed["eval_feedback"]["suggestions"][0]["reason"] == "Passes for any greeting."
    errored = json.loads(
        (model_dir / "eval-status-file" / "with_skill" / "run-3" / "grading.json").read_text()
    )
    assert (
        errored["runtime_error"] == "anthropic: quota: rate limited"
        and errored["expectations"] == []
    )
    base = model_dir / "eval-status-file" / "without_skill" / "run-1" / "grading.json"
    assert base.exists()
    meta = json.loads((model_dir / "eval-status-file" / "eval_metadata.json").read_text())
    assert meta["eval_name"] == "Status file" and meta["assertions"][0] == "status.txt exists"


def test_benchmark_matches_skill_creator_and_its_arithmetic(
    written: tuple[Path, list[Path], ResultsData],
) -> None:
    out, _, _ = written
    bench = json.loads((out / "suites" / slug(REL) / slug(M1) / "benchmark.json").read_text())
    _schema("skill_creator_benchmark.schema.json").validate(bench)
    meta = bench["metadata"]
    assert (
        meta["skill_name"] == "greeter"
        and meta["executor_model"] == M1
        and meta["analyzer_model"] == JUDGE
    )
    assert meta["evals_run"] == ["status-file", "farewell"] and meta["runs_per_configuration"] == 3
    head_runs = [r for r in bench["runs"] if r["configuration"] == "with_skill"]
    assert [(r["eval_id"], r["run_number"]) for r in head_runs][:3] == [
        ("status-file", 1),
        ("status-file", 2),
        ("status-file", 3),
    ]
    assert head_runs[0]["eval_name"] == "Status file"
    assert head_runs[2]["error"] == "anthropic: quota: rate limited"
    summary = bench["run_summary"]
    # with_skill graded runs: status-file 2/3 and 3/3 items, farewell 2/2 → [0.6667, 1.0, 1.0]
    assert summary["with_skill"]["pass_rate"] == {
        "mean": 0.8889,
        "stddev": 0.1924,
        "min": 0.6667,
        "max": 1.0,
    }
    assert summary["with_skill"]["errored"] == 1
    # without_skill: [1.0, 1.0, 0.5]
    assert summary["without_skill"]["pass_rate"]["mean"] == 0.8333
    assert summary["without_skill"]["tokens"] == {
        "mean": 1000.0,
        "stddev": 0.0,
        "min": 1000.0,
        "max": 1000.0,
    }
    assert summary["with_skill"]["tokens"]["mean"] == pytest.approx(2133.3333)
    assert summary["delta"] == {"pass_rate": "+0.06", "time_seconds": "+8.7", "tokens": "+1133"}
    assert summary["with_skill"]["rubric_dimensions"]["quality"]["mean"] == 4.0


def test_benchmark_delta_strings_like_skill_creator(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    runs = [
        _run("farewell", Side.HEAD, 1, Status.PASS, quality=None, tokens=2700, seconds=23.0),
        _run("farewell", Side.BASE, 1, Status.FAIL, quality=None, tokens=1000, seconds=10.0),
    ]
    data = ResultsData(runs, aggregate(runs, [suite]), [suite], JUDGE, generated_at="t")
    write_results(tmp_path / "r", data)
    bench = json.loads(
        (tmp_path / "r" / "suites" / slug(REL) / slug(M1) / "benchmark.json").read_text()
    )
    assert bench["run_summary"]["delta"] == {
        "pass_rate": "+0.50",
        "time_seconds": "+13.0",
        "tokens": "+1700",
    }


def test_feedback_aggregate_dedupes_by_normalized_text(
    written: tuple[Path, list[Path], ResultsData],
) -> None:
    out, _, data = written
    doc = json.loads((out / "suites" / slug(REL) / "eval_feedback_aggregate.json").read_text())
    assert doc["skill_name"] == "greeter" and doc["total_runs"] == 4  # head runs only
    assert [(s["frequency"], s["reason"]) for s in doc["suggestions"]] == [
        (2, "Passes for any greeting."),
        (1, "nothing checks the tone"),
    ]
    assert doc["suggestions"][0]["case_ids"] == ["status-file"]
    assert aggregate_feedback(data.runs)[1].assertion is None


def test_junit_maps_pass_fail_error_and_skip(
    tmp_path: Path, written: tuple[Path, list[Path], ResultsData]
) -> None:
    out, _, data = written
    root = ET.parse(out / "junit.xml").getroot()
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == (
        "4",
        "1",
        "1",
        "0",
    )
    [suite] = root.findall("testsuite")
    assert suite.get("name") == f"{REL} [{M1}]"
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [
        "Status file (run 1)",
        "Status file (run 2)",
        "Status file (run 3)",
        "farewell",
    ]
    assert cases[0].get("classname") == f"greeter.{M1}.evals" and cases[0].get("time") == "25.000"
    failure = cases[0].find("failure")
    assert failure is not None and failure.get("message") == "assertions failed"
    assert "status.txt exists: exit 1" in (failure.text or "")
    error = cases[2].find("error")
    assert error is not None and error.get("message") == "anthropic: quota: rate limited"
    text = (out / "junit.xml").read_text()
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites') and text.endswith(
        "</testsuites>\n"
    )
    # A run the budget never started is a skip, not an error.
    budget = RunResult(
        REL,
        "fires",
        M1,
        Side.HEAD,
        1,
        Status.ERROR,
        error="not run: budget spent",
        error_kind=ErrorKind.BUDGET,
    )
    again = ResultsData([budget], aggregate([budget]), data.suites, JUDGE)
    write_results(tmp_path / "b", again)
    root = ET.parse(tmp_path / "b" / "junit.xml").getroot()
    case = root.find("testsuite/testcase")
    assert (
        case is not None
        and case.find("skipped") is not None
        and case.get("classname") == f"greeter.{M1}.triggers"
    )


def test_atomic_write_replaces_whole_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "f.json"
    atomic_write(target, "first")
    atomic_write(target, "second")
    assert target.read_text() == "second"
    assert [p.name for p in target.parent.iterdir()] == ["f.json"]


def test_a_failed_write_keeps_the_old_file_and_cleans_up(tmp_path: Path) -> None:
    target = tmp_path / "f.json"
    target.mkdir()  # renaming a file over a directory fails after the temp file was written
    (target / "keep").write_text("old")
    with pytest.raises(ResultsWriteError, match=str(target)):
        atomic_write(target, "new")
    assert (target / "keep").read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]


def test_unwritable_directory_names_the_path(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(ResultsWriteError, match=r"cannot write results to .*file/results"):
        write_results(blocker / "results", _data(tmp_path))


def test_load_round_trips_and_aggregates_again(
    written: tuple[Path, list[Path], ResultsData],
) -> None:
    out, _, data = written
    loaded = load_results(out)
    assert [(r.case_id, r.side, r.repetition, r.status) for r in loaded.runs] == [
        (r.case_id, r.side, r.repetition, r.status) for r in data.runs
    ]
    assert loaded.runs[2].items == data.runs[2].items
    assert loaded.runs[2].judge.feedback == data.runs[2].judge.feedback
    assert loaded.suites[0].cases[0].origin == Origin(REL, 24)
    again = aggregate(loaded.runs, loaded.suites)
    assert aggregate_doc(again) == aggregate_doc(data.aggregate)


def _write_doc(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc))
    return path


def test_load_rejects_off_schema_and_non_json(tmp_path: Path) -> None:
    doc = results_doc(_data(tmp_path))
    doc["runs"][0]["status"] = "maybe"
    with pytest.raises(ResultsLoadError, match="/runs/0/status"):
        load_results(_write_doc(tmp_path / "bad.json", doc))
    good = json.dumps(results_doc(_data(tmp_path)))
    (tmp_path / "nan.json").write_text(good.replace('"score": 1.0', '"score": NaN', 1))
    with pytest.raises(ResultsLoadError, match="not valid JSON"):
        load_results(tmp_path / "nan.json")
    with pytest.raises(ResultsLoadError, match="cannot read"):
        load_results(tmp_path / "missing.json")
    doc = results_doc(_data(tmp_path))
    doc["schema_version"] = 99
    with pytest.raises(ResultsLoadError, match="/schema_version"):
        load_results(_write_doc(tmp_path / "new.json", doc))


def test_load_refuses_oversized_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("evolve_action.publish.results.load.MAX_RESULTS_BYTES", 10)
    path = _write_doc(tmp_path / "r.json", {"schema_version": 1})
    with pytest.raises(ResultsLoadError, match="more than a results file may hold"):
        load_results(path)


def test_merge_shards_keeps_each_run_once(written: tuple[Path, list[Path], ResultsData]) -> None:
    out, _, data = written
    shard = load_results(out / "results.json")
    merged = merge([shard, shard])
    assert len(merged.runs) == len(data.runs) and [s.rel for s in merged.suites] == [REL]


def test_merge_keeps_head_and_base_apart_and_invalid_files_and_skips_once(
    tmp_path: Path,
) -> None:
    head = _suite(tmp_path / "repo")
    base = replace(head, cases=head.cases[:1])  # a case the PR added is only on head
    broken = LoadResult(
        "evals/broken/evals.json",
        Format.EVOLVE,
        None,
        (Problem(Origin("evals/broken/evals.json", 3, "evals[0].prompt"), "not a string"),),
    )
    skip = Skip(REL, "farewell", "openai/gpt-5.4", "skip_providers lists openai")
    data = replace(_data(tmp_path), suites=[head, base], invalid=[broken], skipped=[skip])
    shards = []
    for name in ("one", "two"):
        write_results(tmp_path / name, data)
        shards.append(load_results(tmp_path / name))

    merged = merge(shards)
    assert [len(s.cases) for s in merged.head_suites] == [len(head.cases)]
    assert [len(s.cases) for s in merged.base_suites] == [1]
    assert merged.invalid == [broken] and merged.skipped == [skip]
    assert merged.head_suites[0].skill.dir == Path("skills/greeter")  # relative, as written
    item = merged.head_suites[0].cases[0].items[0]
    assert (item.id, item.origin) == (head.cases[0].items[0].id, head.cases[0].items[0].origin)


def test_slugs_are_safe_and_distinct() -> None:
    assert slug("status-file") == "status-file"
    names = {slug(s) for s in ("a/b", "a__b", "a b", "a?b", "../x", "q" * 100)}
    assert len(names) == 6
    assert all("/" not in n and not n.startswith(".") and len(n) <= 69 for n in names)


def test_summaries_and_tests_are_written_as_asdict_would_write_them() -> None:
    # `document._flat_doc` copies fields one level deep: right only while they hold no
    # nested records. A field that did would make these differ.
    from dataclasses import asdict

    from evolve_action.publish.results.document import _summary_doc, _test_doc
    from evolve_action.verdict.side_stats import summarize
    from evolve_action.verdict.significance import Counts, stratified_exact

    summary = summarize([0.25, 1.0, 0.5])
    test = stratified_exact([Counts(1, 4, 5, 0), Counts(3, 2, 4, 1)])
    assert _summary_doc(summary) == asdict(summary)
    assert _test_doc(test) == asdict(test) and _test_doc(None) is None
