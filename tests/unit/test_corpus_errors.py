"""Every error `validate` still reports on the snapshots in ../shared/corpus/repos is either a
file the snapshot left out or a refusal kept on purpose, checked file by file (issue 27).

A snapshot holds the eval files and their support files but not code, project manifests or
lock files (each snapshot's SOURCES.md). An error about a missing file is therefore true when
no file or folder of the snapshot ends with the path it names: that is checked for each one,
so a path we resolve wrongly (a file that is there, looked for in the wrong place) fails
here. For the Vally and skill-validator snapshots, which issue 27 measured, each missing file
must also be of a kind the snapshots leave out. Any other error must be one of the refusals
below, each kept for the reason given beside it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import pytest

from evolve_action.formats import load_all
from evolve_action.model.evals import Problem, Severity

# Refusals kept on purpose (message fragment → why), each documented in the README.
REFUSALS = {
    "an inline task, which waza's schema does not take": "waza's own schema refuses it too",
    "is not a regular file (a directory?)": "evolve's fixture rule: list a folder's files",
    "prompt scripts are not supported yet": "AgentV prompt scripts run code to make a prompt",
    "cloning other repositories into the workspace": "a run uses only the pull request's tree",
    "workspace hooks that run commands": "they would run outside the confinement",
    "preprocessors run commands": "kept refused; the README says why",
    "llm-grader aggregators are not supported": "kept refused; the README says why",
    "code-grader aggregators are not supported": "kept refused; the README says why",
    "escapes the evals directory": "evolve's fixture rule: fixtures live in the evals folder",
}
MISSING = (
    re.compile(r"^fixture (\S+) not found"),
    re.compile(r"or (\S+) beside the eval file\) is missing"),  # clauditor's skill file
    re.compile(r"'([^']+)' (?:does not exist|is no file|is no folder|is not in the context)"),
    re.compile(r"^no such file: '([^']+)'"),
    re.compile(r"inputs\.files '([^']+)' is not in the context folder"),
    re.compile(r"^working_dir '([^']+)' is no folder"),
    re.compile(r"'([^']+)' names no task file next to the eval"),
)
# Where a message says the path was looked for; else it is read next to the eval file when
# the message says so, else (relative to a folder the message does not name) anywhere.
LOOKED_FOR = re.compile(r"\(looked for (\S+)\)")
LOOKED_IN = re.compile(r"\(looked in (\S+);")
NEXT_TO_EVAL = ("next to the eval", "working_dir")
# What the snapshots leave out: code, project manifests and build files, lock files; a path
# without an extension is a folder of them.
LEFT_OUT_KINDS = frozenset(
    {".cs", ".csproj", ".props", ".targets", ".sln", ".slnx", ".json", ".py", ".ts", ".js"}
    | {".go", ".mod", ".java", ".sh", ".ps1", ".toml", ".ips", ".fs", ".fsproj", ".vbproj"}
    | {".xml", ".config", ".binlog", ".yaml", ".yml", ".txt", ".rs", ".slnf", ".pdf", ""}
)
MEASURED = ("vally", "skill-validator")


def snapshots(corpus: Path) -> Iterator[Path]:
    for tool in sorted((corpus / "repos").iterdir()):
        if tool.is_dir():
            yield from (s for s in sorted(tool.iterdir()) if s.is_dir())


def named_path(problem: Problem) -> str | None:
    for pattern in MISSING:
        found = pattern.search(problem.message)
        if found:
            return found.group(1)
    return None


def in_snapshot(root: Path, named: str, problem: Problem) -> bool:
    """Whether the snapshot has the file or folder `problem` says is missing: where the
    message says it looked, else anywhere (any path ending with `named`'s plain parts)."""
    looked_for, looked_in = LOOKED_FOR.search(problem.message), LOOKED_IN.search(problem.message)
    if looked_for:
        return (root / looked_for.group(1)).exists()
    if looked_in:  # AgentV's: a leading / is the repository root
        base = root if named.startswith("/") else root / looked_in.group(1)
        return any(base.glob(named.lstrip("/")))
    if any(marker in problem.message for marker in NEXT_TO_EVAL):
        return any((root / problem.origin.path).parent.glob(named))
    parts = [p for p in PurePosixPath(named.replace("\\", "/")).parts if p not in ("/", ".", "..")]
    if not parts or parts[0].startswith("~"):
        return False  # a user's home: in no repository
    wanted = "/" + "/".join(parts).rstrip("/")
    return any(
        ("/" + p.relative_to(root).as_posix()).endswith(wanted) for p in root.rglob(parts[-1])
    )


def test_every_remaining_error_is_a_left_out_file_or_a_kept_refusal(corpus_dir: Path) -> None:
    if not (corpus_dir / "repos").is_dir():
        pytest.skip("../shared/corpus/repos is absent")
    unexplained: list[str] = []
    checked = 0
    for root in snapshots(corpus_dir):
        tool = root.parent.name
        for result in load_all(root):
            # A fixture that cannot be found is warned (the case runs without it); it must
            # still be one the snapshot left out, not one looked for in the wrong place.
            missing = [
                p for p in result.problems if p.severity is Severity.WARNING and named_path(p)
            ]
            for problem in dict.fromkeys((*result.errors, *missing)):
                where = f"{root.relative_to(corpus_dir)}/{problem.render()}"
                if any(fragment in problem.message for fragment in REFUSALS):
                    continue
                named = named_path(problem)
                if named is None:
                    unexplained.append(f"{where} (neither a missing file nor a kept refusal)")
                elif in_snapshot(root, named, problem):
                    unexplained.append(f"{where} (the snapshot has {named!r}: looked amiss?)")
                elif tool in MEASURED and PurePosixPath(named).suffix not in LEFT_OUT_KINDS:
                    unexplained.append(f"{where} (a {named!r} is no kind the snapshot leaves out)")
                checked += 1
    assert checked > 600  # the measured snapshots alone report 638 missing files
    assert not unexplained, "\n".join(unexplained[:20])
