"""Shared by the tests that read ../shared/corpus/repos: whole repository snapshots, each
loaded from its own root as `evolve-action validate` would (`test_snapshots*.py`).

SOURCES.md there says code files (scripts, graders) were not copied; an error that only says
such a file is missing is the snapshot's, not the loader's.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from evolve_action.formats import discovery, load_file, load_found
from evolve_action.formats.base import LoadContext
from evolve_action.formats.discovery import describe_file
from evolve_action.model.evals import Format, LoadResult, Problem, Severity

V4 = "agentv/EntityProcess-agentv-v4.42.4"
V5 = "agentv/EntityProcess-agentv-5.3.1-next"
CASES = "agentv/EntityProcess-agentv-cases-88601e6"
EVAL_CASES = "agentv/EntityProcess-agentv-eval_cases-a9ded1a"
DOCS_REPAIR = "evolve/benjaminsky-docs-repair"
AUTORESEARCH = "skill-creator/dcgrigsby-autoresearch-skill"
CODE_SUFFIXES = (".ts", ".js", ".mjs", ".cjs", ".py", ".sh")
_MISSING_CODE = re.compile(r"no such file: '[^']*(\.[a-z]+)'")


def snapshot(corpus_dir: Path, name: str) -> Path:
    root = corpus_dir / "repos" / name
    if not root.is_dir():
        pytest.skip(f"../shared/corpus/repos/{name} is absent")
    return root


def load_tree(root: Path) -> dict[str, LoadResult]:
    """Every file discovery finds under `root`, loaded; keyed by its path below `root`."""
    found = discovery.discover(root)
    errors = [p.render() for p in found.problems if p.severity is Severity.ERROR]
    assert not errors, errors
    return {item.rel: load_found(found.root, item) for item in found.files}


def load_one(root: Path, rel: str, fmt: Format | None = None) -> LoadResult:
    item = describe_file(root, root / rel, fmt, rel=rel)
    return load_file(item.path, item.rel, item.format, LoadContext(root.resolve(), item.skill))


def missing_code(problem: Problem) -> bool:
    """The snapshot left out this code file (SOURCES.md: code files were not copied)."""
    match = _MISSING_CODE.search(problem.message)
    return match is not None and match.group(1) in CODE_SUFFIXES


def real_errors(result: LoadResult) -> list[str]:
    return [p.render() for p in result.errors if not missing_code(p)]


def copy_tree(root: Path, dest: Path, *, stand_ins: tuple[str, ...] = ()) -> Path:
    """A writable copy of a snapshot, with empty stand-ins for code files it left out."""
    shutil.copytree(root, dest)
    for path in (dest, *dest.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    for rel in stand_ins:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("")
    return dest
