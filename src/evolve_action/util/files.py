"""Writing files so that a reader never sees half of one, and errors that name the path.

`atomic_write` writes a temporary file beside the target and renames it over; the results
writer and the run cache both rely on it, so a job killed mid-write leaves the old file or the
new one, never a torn one. The runner's own files (`$GITHUB_OUTPUT`, the job summary) are
appended to, each in one write (`publish.actions_io`); a stopping job's signal handlers only
record the signal, so no write is cut half-way by one. Failures raise `ResultsWriteError`,
which the commands turn into exit 2 with the path and the reason.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class ResultsWriteError(Exception):
    """The results directory (or a file in it) cannot be written."""


def check_writable(directory: Path) -> None:
    """Raise `ResultsWriteError` naming `directory` unless results can be written there.

    Called before any run starts, so an unwritable directory costs nothing and leaves no
    comment saying "in progress" forever.
    """
    if directory.exists() and not directory.is_dir():
        raise ResultsWriteError(f"cannot write results to {directory}: it is not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".write-check.", suffix=".tmp")
        os.close(fd)
        Path(tmp).unlink()
    except OSError as exc:
        raise ResultsWriteError(f"cannot write results to {directory}: {_why(exc)}") from exc


def atomic_write(path: Path, text: str, made: set[Path] | None = None) -> None:
    """Write `text` to `path` whole or not at all. `made`: folders known to exist (and
    added to as this makes them), so a writer of hundreds of files in a few folders asks
    the file system for each folder once."""
    try:
        if made is None or path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            if made is not None:
                made.add(path.parent)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise ResultsWriteError(f"cannot write results to {path.parent}: {_why(exc)}") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        Path(tmp).replace(path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise ResultsWriteError(f"cannot write results to {path}: {_why(exc)}") from exc
    except BaseException:  # KeyboardInterrupt outside a job's own handling: no stray file
        Path(tmp).unlink(missing_ok=True)
        raise


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def readable_by_all(top: Path) -> None:
    """Everything in `top` readable by all and writable by its owner alone."""
    for current, _dirs, files in os.walk(top):
        Path(current).chmod(0o755)
        for name in files:
            path = Path(current, name)
            mode = path.lstat().st_mode
            if not stat.S_ISLNK(mode):  # chmod would change what the link names
                path.chmod(0o755 if mode & 0o111 else 0o644)
