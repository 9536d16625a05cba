"""What re-grading a cached run needs: the files the agent left and its whole answer.

A run is cached with its verdicts, but a pull request may later change a case's checks while
the skill and the task stay the same: base's checks must then grade head's stored run, and
the agent must not be paid for again. Checks read the workspace (files, `command`s) and the
transcript (the final answer, tool-call arguments), which a run's record keeps only cut; so
the cache keeps this snapshot beside it: every file the agent added or changed, the files it
deleted, the final answer and the tool-call arguments in full, all within fixed byte limits.
A snapshot that went past a limit is `complete=False`: the run is then made again rather
than graded on part of what it produced.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_FILE_BYTES = 256 * 1024
MAX_TOTAL_BYTES = 2 * 1024 * 1024
MAX_FILES = 200


@dataclass(frozen=True, slots=True)
class Snapshot:
    files: tuple[tuple[str, bytes | None], ...] = ()  # workspace path → bytes; None: deleted
    final_text: str = ""
    arguments: tuple[str, ...] = ()  # every tool call's arguments, in order
    complete: bool = True


def take(root: Path, changed: Sequence[str], final_text: str, arguments: Sequence[str]) -> Snapshot:
    """The snapshot of a finished run's workspace; symlinks and special files are not kept
    (and make it incomplete), so re-grading never follows a link the agent made."""
    files: list[tuple[str, bytes | None]] = []
    total = len(final_text.encode("utf-8")) + sum(len(a.encode("utf-8")) for a in arguments)
    complete = len(changed) <= MAX_FILES and total <= MAX_TOTAL_BYTES
    for rel in changed[:MAX_FILES]:
        path = root / rel
        if not path.exists() and not path.is_symlink():
            files.append((rel, None))
            continue
        if path.is_symlink() or not path.is_file():
            complete = False
            continue
        size = path.stat().st_size
        if size > MAX_FILE_BYTES or total + size > MAX_TOTAL_BYTES:
            complete = False
            continue
        try:
            data = path.read_bytes()
        except OSError:
            complete = False
            continue
        total += len(data)
        files.append((rel, data))
    return Snapshot(tuple(files), final_text, tuple(arguments), complete)


def restore(snapshot: Snapshot, root: Path) -> None:
    """Put the agent's files back into a freshly prepared workspace of the same case."""
    for rel, data in snapshot.files:
        path = root / rel
        if not path.resolve().is_relative_to(root.resolve()):
            raise ValueError(f"snapshot path {rel!r} leaves the workspace")
        if data is None:
            path.unlink(missing_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


def snapshot_doc(s: Snapshot) -> dict[str, Any]:
    return {
        "files": [
            [rel, None if data is None else base64.b64encode(data).decode("ascii")]
            for rel, data in s.files
        ],
        "final_text": s.final_text,
        "arguments": list(s.arguments),
        "complete": s.complete,
    }


def snapshot_from_doc(d: Mapping[str, Any]) -> Snapshot:
    files = tuple(
        (str(rel), None if data is None else base64.b64decode(data, validate=True))
        for rel, data in d["files"]
    )
    args = tuple(str(a) for a in d["arguments"])
    return Snapshot(files, str(d["final_text"]), args, d["complete"] is True)
