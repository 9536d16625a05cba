"""The results cache: finished runs stored by fingerprint, so unchanged work is never redone.

The directory is the `cache-dir` input, which a workflow persists with `actions/cache`. A
second push to the same PR re-runs only what changed, and an unchanged base costs nothing.
Only graded runs are stored: an error (outage, missing key, budget) must be retried next
time, never replayed from the cache. Entries are our own run documents, checked on the way
in like any other untrusted file; a corrupt entry is a miss, not a crash.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path

from evolve_action.model.outcomes import RunResult, Status
from evolve_action.model.records import run_doc, run_from_doc
from evolve_action.model.snapshot import Snapshot, snapshot_doc, snapshot_from_doc
from evolve_action.util.files import atomic_write

log = logging.getLogger(__name__)

MAX_ENTRY_BYTES = 8 * 1024 * 1024
FORMAT_VERSION = 1


class RunCache:
    def __init__(self, root: Path | None) -> None:
        self.root = root
        self.hits = 0
        self.stored = 0

    def _path(self, fingerprint: str) -> Path | None:
        if self.root is None or len(fingerprint) < 8 or not fingerprint.isalnum():
            return None
        return self.root / fingerprint[:2] / f"{fingerprint}.json"

    def get(self, fingerprint: str) -> RunResult | None:
        path = self._path(fingerprint)
        if path is None or not path.is_file():
            return None
        try:
            if path.stat().st_size > MAX_ENTRY_BYTES:
                raise ValueError("entry too large")
            doc = json.loads(path.read_text(encoding="utf-8"))
            if doc.get("version") != FORMAT_VERSION or doc.get("fingerprint") != fingerprint:
                return None
            run = run_from_doc(doc["run"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("ignoring unreadable cache entry %s: %s", path.name, exc)
            return None
        if run.status is Status.ERROR:
            return None
        self.hits += 1
        return replace(run, cached=True, fingerprint=fingerprint)

    def counted(self, run: RunResult | None) -> RunResult | None:
        """A hit another instance read for this job (the projection's probe), counted here:
        the entry is not read twice."""
        if run is not None:
            self.hits += 1
        return run

    def snapshot(self, fingerprint: str) -> Snapshot | None:
        """What re-grading the stored run needs (`model.snapshot`), read only when asked: a
        hit under an unchanged ruler never needs it. None when the entry has none."""
        path = self._path(fingerprint)
        if path is None or not path.is_file():
            return None
        try:
            if path.stat().st_size > MAX_ENTRY_BYTES:
                return None
            doc = json.loads(path.read_text(encoding="utf-8"))
            stored = doc.get("snapshot") if doc.get("fingerprint") == fingerprint else None
            return snapshot_from_doc(stored) if stored is not None else None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("ignoring an unreadable snapshot in %s: %s", path.name, exc)
            return None

    def by_task(self, task: str) -> tuple[str, RunResult] | None:
        """A stored run that did the same work (`Fingerprinter.task`), graded under other
        checks: its fingerprint and the run. None when there is none."""
        pointer = self._path(task)
        if pointer is None or not pointer.is_file():
            return None
        try:
            fingerprint = json.loads(pointer.read_text(encoding="utf-8"))["fingerprint"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("ignoring an unreadable cache pointer %s: %s", pointer.name, exc)
            return None
        run = self.get(fingerprint) if isinstance(fingerprint, str) else None
        return (fingerprint, run) if run is not None else None

    def put(self, fingerprint: str, run: RunResult, *, task: str = "") -> None:
        """Store `run`; `task` (its `Fingerprinter.task`) finds it again under other checks."""
        path = self._path(fingerprint)
        if path is None or run.status is Status.ERROR:
            return
        doc = {"version": FORMAT_VERSION, "fingerprint": fingerprint, "run": run_doc(run)}
        if run.snapshot is not None:
            doc["snapshot"] = snapshot_doc(run.snapshot)
        try:
            atomic_write(path, json.dumps(doc, ensure_ascii=False, sort_keys=True))
        except Exception as exc:  # a full disk must not lose the run itself
            log.warning("could not write the cache entry %s: %s", path, exc)
            return
        self.stored += 1
        pointer = self._path(task) if task and run.snapshot is not None else None
        if pointer is not None:
            try:
                atomic_write(pointer, json.dumps({"fingerprint": fingerprint}))
            except Exception as exc:  # only a later re-grade is lost
                log.warning("could not write the cache pointer %s: %s", pointer, exc)
