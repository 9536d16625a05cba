"""Watch reads each model's snapshot from its own runs' answers, through the results record."""

from __future__ import annotations

from evolve_action.model.outcomes import RunResult, Side, Status, Transcript
from evolve_action.model.records import run_doc, run_from_doc
from evolve_action.pipeline.watch_seen import changes, served_snapshots


def _run(model: str, served: str, case: str = "c1") -> RunResult:
    return RunResult(
        suite="evals/a/evals.json", case_id=case, model=model, side=Side.HEAD, repetition=1,
        status=Status.PASS, transcript=Transcript(served_by=served),
    )  # fmt: skip


def test_each_model_gets_the_snapshot_its_answers_named() -> None:
    runs = [_run("anthropic/claude", "claude-2026"), _run("openai/gpt", "")]
    assert served_snapshots(runs, ["anthropic/claude", "openai/gpt"]) == {
        "anthropic/claude": "claude-2026",
        "openai/gpt": "",  # no answer said: unknown, never a change
    }


def test_a_swap_during_the_run_names_both_snapshots_most_frequent_first() -> None:
    runs = [_run("m/x", "old"), _run("m/x", "new", "c2"), _run("m/x", "new", "c3")]
    assert served_snapshots(runs, ["m/x"]) == {"m/x": "new + old"}


def test_an_unknown_snapshot_is_never_a_change() -> None:
    assert changes({"m/x": "old"}, {"m/x": ""}, "snapshot") == []
    assert changes({"m/x": "old"}, {"m/x": "new"}, "snapshot") == ["m/x: snapshot old → new"]


def test_the_snapshot_survives_the_results_record() -> None:
    stored = run_from_doc(run_doc(_run("m/x", "snap-1")))
    assert stored.transcript.served_by == "snap-1"
    doc = run_doc(_run("m/x", ""))
    del doc["transcript"]["served_by"]  # a record written before the field existed
    assert run_from_doc(doc).transcript.served_by == ""
