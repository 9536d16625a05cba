"""When the image check skips and when it fails (issue 22): a machine whose podman cannot start
even a trivial container skips, saying why; once a trivial container starts, our image not
starting is a failure, never a skip. A stand-in `podman` on PATH plays the machine."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from scripts import image_check


def _podman(bindir: Path, script: str) -> None:
    (bindir / "podman").write_text(f"#!/bin/sh\n{script}\n")
    (bindir / "podman").chmod(0o755)


@pytest.fixture
def bindir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("the image check needs root; its skip for that has no machine to fake")
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    image_check.container_options.cache_clear()
    yield tmp_path
    image_check.container_options.cache_clear()


CRUN = "echo 'Error: crun: setrlimit `RLIMIT_NOFILE`: Operation not permitted' >&2; exit 126"


def test_no_trivial_container_skips_and_says_why(bindir: Path) -> None:
    _podman(bindir, f'[ "$1" = run ] && {{ {CRUN}; }}; exit 0')
    reason = image_check.why_skip()
    assert reason is not None
    assert reason.startswith("podman cannot start even a trivial container on this machine")
    assert "setrlimit `RLIMIT_NOFILE`" in reason


def test_the_options_that_start_a_trivial_container_are_kept(bindir: Path) -> None:
    # Only with the open-files limit lowered does this podman start anything.
    _podman(bindir, f'case "$*" in *nofile=1024*) exit 0;; run*) {CRUN};; esac; exit 0')
    assert image_check.container_options() == [
        "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096",
    ]  # fmt: skip


def test_our_image_failing_where_a_trivial_one_starts_is_a_failure(bindir: Path) -> None:
    _podman(
        bindir,
        'case "$*" in *--rootfs*) exit 0;; *evolve-image*) '
        "echo 'exec: /usr/local/bin/evolve-action: not found' >&2; exit 127;; esac; exit 0",
    )
    assert image_check.why_skip() is None or "cannot be pulled" in str(image_check.why_skip())
    with pytest.raises(RuntimeError, match="starts a trivial container here, but not our image"):
        image_check.run_options("localhost/evolve-image-check:test")
