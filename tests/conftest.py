"""Shared fixtures. Tests read `../shared` (corpus, seeds) when it sits beside the project."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from evolve_action.execute.sandbox.shared import runs_dir

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not beside the project")
    return SHARED


@pytest.fixture(scope="session")
def corpus_dir(shared_dir: Path) -> Path:
    corpus = shared_dir / "corpus"
    if not corpus.is_dir():
        pytest.skip("../shared/corpus is absent")
    return corpus


@contextmanager
def reachable_place(prefix: str, mode: int = 0o711) -> Iterator[Path]:
    """A fresh directory where the product makes its runs (`runs_dir`: as root, one the
    sandbox users may search; else the system temp), never pytest's own temp directory, whose
    parents only their owner may enter, nor /tmp, which the user level closes to those users."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=runs_dir()))
    path.chmod(mode)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
