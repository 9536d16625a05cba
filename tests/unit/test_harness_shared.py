"""`stage.shared`: what a CLI prepares once per job (`Harness.prepare_job`) reaches its runs
only when the runs may read it and not change it; a failed preparation or a folder a sandbox
user could change leaves each run to prepare its own HOME, and a CLI with nothing to share
gets no folder at all. With stand-in harnesses; the real Copilot CLI's is in
`tests/integration/test_cli_copilot_shared_runtime.py`."""

from __future__ import annotations

from pathlib import Path

import pytest

from evolve_action.execute.harness import registry, stage
from evolve_action.execute.harness.install import CliBinary
from evolve_action.execute.sandbox.bwrap import masked
from evolve_action.execute.sandbox.confine import Level
from tests.conftest import reachable_place

COPILOT = registry.HARNESSES["copilot"]


class Sharing:
    """Copilot, but preparing a folder of `mode` (or failing) instead of unpacking."""

    def __init__(self, mode: int | None) -> None:
        self.mode = mode
        self.calls = 0

    def __getattr__(self, name: str) -> object:
        return getattr(COPILOT, name)

    def prepare_job(self, binary: Path, directory: Path) -> dict[str, str]:
        self.calls += 1
        if self.mode is None:
            raise RuntimeError("could not unpack")
        directory.mkdir(exist_ok=True)
        directory.chmod(self.mode)
        return {"SHARED": str(directory)}


def binaries(tmp_path: Path, *names: str) -> dict[str, CliBinary]:
    return {n: CliBinary(n, tmp_path / n, "1", str(tmp_path)) for n in names}


def share(tmp_path: Path, level: Level, *names: str) -> dict[str, dict[str, str]]:
    root = tmp_path / "stage"
    return stage.shared(binaries(tmp_path, *names), level=level, hidden=[], root=root)


@pytest.mark.parametrize("level", [Level.BWRAP, Level.NONE])
def test_a_prepared_folder_reaches_the_runs(
    level: Level, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sharing = Sharing(0o755)
    monkeypatch.setitem(registry.HARNESSES, "copilot", sharing)  # type: ignore[arg-type]
    with reachable_place("shared-", mode=0o755) as root:  # not under /tmp as root
        if level is Level.BWRAP and masked(root, []) is not None:
            pytest.skip(f"no place bubblewrap shows as it is here ({root})")
        found = stage.shared(
            binaries(tmp_path, "copilot", "claude"), level=level, hidden=[], root=root
        )
        assert list(found) == ["copilot"]  # claude shares nothing
        shared = Path(found["copilot"]["SHARED"])
        assert shared.is_dir()
        assert [p.name for p in shared.parent.iterdir()] == ["copilot"]  # no folder for claude
    assert sharing.calls == 1


def test_a_failed_preparation_leaves_each_run_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(registry.HARNESSES, "copilot", Sharing(None))  # type: ignore[arg-type]
    assert share(tmp_path, Level.BWRAP, "copilot") == {}
    assert "each run prepares its own HOME (could not unpack)" in caplog.text


def test_a_folder_the_sandbox_users_could_change_is_not_shared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    tmp_path.chmod(0o755)
    monkeypatch.setitem(registry.HARNESSES, "copilot", Sharing(0o777))  # type: ignore[arg-type]
    assert share(tmp_path, Level.USER, "copilot") == {}
    assert "is not shared with its runs" in caplog.text


def test_under_a_bubblewrap_mask_it_is_not_shared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(registry.HARNESSES, "copilot", Sharing(0o755))  # type: ignore[arg-type]
    found = stage.shared(
        binaries(tmp_path, "copilot"), level=Level.BWRAP, hidden=[tmp_path], root=tmp_path / "s"
    )
    assert found == {}
    assert "which bubblewrap replaces" in caplog.text
