"""What the cache keeps so a run can be graded again under other checks (issue 26): the agent's
files and whole answer within limits, and the way back to a stored run of the same work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evolve_action.model import snapshot as snap
from evolve_action.model.outcomes import RunResult, Side, Status
from evolve_action.plan.cache import RunCache


def test_a_snapshot_keeps_changed_and_deleted_files_and_restores_them(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "out").mkdir(parents=True)
    (work / "out/a.txt").write_text("Hello, Ada!\n")
    (work / "bin.dat").write_bytes(b"\x00\xff")
    taken = snap.take(work, ["out/a.txt", "bin.dat", "gone.txt"], "Done." * 2000, ["{}" * 500])
    assert taken.complete and dict(taken.files)["gone.txt"] is None
    back = snap.snapshot_from_doc(json.loads(json.dumps(snap.snapshot_doc(taken))))
    assert back == taken  # the whole answer and arguments, not the record's cut ones
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "gone.txt").write_text("a fixture the agent deleted")
    snap.restore(back, fresh)
    assert (fresh / "out/a.txt").read_text() == "Hello, Ada!\n"
    assert (fresh / "bin.dat").read_bytes() == b"\x00\xff" and not (fresh / "gone.txt").exists()


def test_what_is_past_a_limit_or_a_link_makes_it_incomplete(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_bytes(b"x" * (snap.MAX_FILE_BYTES + 1))
    (tmp_path / "link").symlink_to("/etc/passwd")
    assert not snap.take(tmp_path, ["big.txt"], "", []).complete
    assert not snap.take(tmp_path, ["link"], "", []).complete
    many = [f"f{i}" for i in range(snap.MAX_FILES + 1)]
    assert not snap.take(tmp_path, many, "", []).complete


def test_restoring_never_writes_outside_the_workspace(tmp_path: Path) -> None:
    hostile = snap.Snapshot((("../escape.txt", b"x"),))
    (tmp_path / "ws").mkdir()
    with pytest.raises(ValueError, match="leaves the workspace"):
        snap.restore(hostile, tmp_path / "ws")
    assert not (tmp_path / "escape.txt").exists()


def test_the_cache_finds_a_stored_run_of_the_same_work_and_its_snapshot(tmp_path: Path) -> None:
    cache = RunCache(tmp_path)
    run = RunResult("evals/e.json", "c", "m/x", Side.HEAD, 1, Status.PASS)
    run.snapshot = snap.Snapshot((("a.txt", b"A"),), "answer")
    cache.put("f" * 64, run, task="a" * 64)
    found = cache.by_task("a" * 64)
    assert found is not None and found[0] == "f" * 64 and found[1].status is Status.PASS
    assert cache.snapshot("f" * 64) == run.snapshot
    assert cache.by_task("b" * 64) is None
    (tmp_path / "ff" / ("f" * 64 + ".json")).write_text("{not json")
    assert cache.snapshot("f" * 64) is None and cache.by_task("a" * 64) is None  # a miss
