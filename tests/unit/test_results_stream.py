"""Run files written as runs end: the folder ends as if every file were written at the end."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from evolve_action.model.outcomes import RunResult, Side, Status
from evolve_action.plan.planning import RunSpec
from evolve_action.publish.results.stream import RunFileStream, chained
from evolve_action.publish.results.write import ResultsData, Streamed, write_results
from tests.unit.test_results import _data

SPEC = None  # the stream reads the result, not the spec; see `_add`


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def _stream(out: Path, data: ResultsData, armed: set[tuple[str, str]]) -> RunFileStream:
    return RunFileStream(out, data.suites, armed)


def _add(stream: RunFileStream, runs: list[RunResult]) -> Streamed:
    for run in runs:
        stream.add(SPEC, run)  # type: ignore[arg-type]
    return stream.finish()


def _reference(tmp_path: Path, data: ResultsData) -> dict[str, bytes]:
    out = tmp_path / "reference"
    write_results(out, data)
    return _files(out)


def test_streamed_then_final_is_the_same_folder_and_nothing_is_written_twice(
    tmp_path: Path,
) -> None:
    data = _data(tmp_path)
    out = tmp_path / "results"
    streamed = _add(_stream(out, data, set()), list(data.runs))
    assert len(list(out.rglob("grading.json"))) == len(
        data.runs
    )  # every run's file is there before the final write
    inodes = {p: p.stat().st_ino for p in out.rglob("*.json")}

    paths = write_results(out, data, streamed=streamed)

    assert _files(out) == _reference(tmp_path, data)
    assert paths[-1].name == "results.json" and set(inodes) <= set(paths)
    # Not written again: a rewrite renames a new file over the old (a new inode).
    assert all(p.stat().st_ino == ino for p, ino in inodes.items())


def test_a_wrong_guess_of_the_no_skill_arm_is_put_right(tmp_path: Path) -> None:
    """The plan had a no-skill arm that never ran: base runs were filed under `base/`."""
    data = _data(tmp_path)
    out = tmp_path / "results"
    armed = {(run.suite, run.model) for run in data.runs}
    streamed = _add(_stream(out, data, armed), list(data.runs))
    assert any(out.rglob("base/run-1/grading.json"))

    write_results(out, data, streamed=streamed)

    assert _files(out) == _reference(tmp_path, data)
    assert not any(out.rglob("base/run-1/grading.json"))


def test_a_result_changed_after_it_ended_is_written_again(tmp_path: Path) -> None:
    data = _data(tmp_path)
    out = tmp_path / "results"
    first, *rest = data.runs
    changed = replace(first, status=Status.FAIL, score=0.0)
    streamed = _add(_stream(out, data, set()), [changed, *rest])

    write_results(out, data, streamed=streamed)

    assert _files(out) == _reference(tmp_path, data)


def test_a_file_the_stream_cannot_write_is_left_to_the_final_writer(tmp_path: Path) -> None:
    data = _data(tmp_path)
    out = tmp_path / "results"
    out.mkdir()
    (out / "suites").write_text("in the way")  # every run file's folder is blocked
    streamed = _add(_stream(out, data, set()), list(data.runs))
    assert streamed.texts == {}

    (out / "suites").unlink()
    write_results(out, data, streamed=streamed)
    assert _files(out) == _reference(tmp_path, data)


def test_a_case_metadata_is_queued_once_for_all_its_runs(tmp_path: Path) -> None:
    data = _data(tmp_path)
    out = tmp_path / "results"
    streamed = _add(_stream(out, data, set()), list(data.runs))
    metadata = [p for p in streamed.texts if p.name == "eval_metadata.json"]
    assert len(metadata) == len({r.case_id for r in data.runs}) == 2  # one model: a folder a case


def test_chained_calls_each_hook_in_order() -> None:
    heard: list[str] = []
    hook = chained(lambda s, r: heard.append("a"), None, lambda s, r: heard.append("b"))
    hook(SPEC, SPEC)  # type: ignore[arg-type]
    assert heard == ["a", "b"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through a read-only folder")
def test_an_unwritable_folder_still_fails_the_final_write(tmp_path: Path) -> None:
    data = _data(tmp_path)
    out = tmp_path / "results"
    out.mkdir()
    out.chmod(0o500)
    try:
        streamed = _add(_stream(out, data, set()), list(data.runs))
        assert streamed.texts == {}
        from evolve_action.util.files import ResultsWriteError

        with pytest.raises(ResultsWriteError, match=str(out)):
            write_results(out, data, streamed=streamed)
    finally:
        out.chmod(0o700)


def test_for_plan_knows_the_arm_from_the_planned_runs(tmp_path: Path) -> None:
    data = _data(tmp_path)
    suite = data.suites[0]
    specs = [
        RunSpec(suite, suite.cases[0], "anthropic/claude-sonnet-4-6", Side.NO_SKILL, 1),
        RunSpec(suite, suite.cases[0], "openai/gpt-5", Side.HEAD, 1),
    ]
    stream = RunFileStream.for_plan(tmp_path, data.suites, specs)
    assert stream._armed == {(suite.rel, "anthropic/claude-sonnet-4-6")}


def test_a_run_whose_files_cannot_be_built_is_left_to_the_final_writer(tmp_path: Path) -> None:
    """A NaN score cannot be strict JSON: the stream skips that run quietly and goes on."""
    data = _data(tmp_path)
    out = tmp_path / "results"
    broken = replace(data.runs[0], score=float("nan"))
    streamed = _add(_stream(out, data, set()), [broken, *data.runs[1:]])
    assert len([p for p in streamed.texts if p.name == "grading.json"]) == len(data.runs) - 1
    write_results(out, data, streamed=streamed)
    assert _files(out) == _reference(tmp_path, data)


def test_the_final_writer_builds_no_file_again_for_a_run_the_stream_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its files were built from that very object, which is not changed once ended (the
    end-to-end tests check that in every flow): only a run given in another object, or
    whose files the stream could not write, is built again."""
    from evolve_action.publish.results import write

    data = _data(tmp_path)
    out = tmp_path / "results"
    first, *rest = data.runs
    streamed = _add(_stream(out, data, set()), [replace(first), *rest])  # a copy of the first
    built: list[RunResult] = []
    run_files = write.run_files

    def counted(folder: Path, run: RunResult, *args: object) -> list[write.File]:
        built.append(run)
        return run_files(folder, run, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(write, "run_files", counted)
    write_results(out, data, streamed=streamed)

    assert built == [first]
    assert _files(out) == _reference(tmp_path, data)
