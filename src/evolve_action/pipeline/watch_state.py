"""What one watch run covers (every eval, or a sample), and how a run cut short is resumed.

**Sample or full.** A watch on many skills need not pay for all of them every time: it runs a
rotating slice (`SLICES` of them: each skill once every `SLICES` watch runs), plus every skill
whose last check flagged it, so a drop is re-checked and a recovery seen at the next run. It
runs the full set when the history has nothing to compare these models with, or when a model
reported another snapshot or the CLI changed since the last record: then every skill may have
moved, and the summary says which change made it full.

**Resuming.** A watch cut by the job's time limit (or cancelled) records nothing and opens no
issue: a verdict is never drawn from runs that were not made. Its runs are kept in a cache of
their own (`<cache-dir>/watch/<epoch>`, never the pull requests' cache: there, the same
fingerprint would hand today's watch last week's answers), and `pending.json` beside it says
what the run covered. The next watch of the same commit and models takes the same selection
and the same cache, so the runs that finished are hits and only the rest are made. Once a
watch completes, its cache and the marker are removed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from evolve_action.publish.history import Record
from evolve_action.util.files import atomic_write

log = logging.getLogger(__name__)

SLICES = 4
MARKER = "pending.json"


@dataclass(frozen=True, slots=True)
class Selection:
    paths: tuple[str, ...]  # the eval files this run covers (every one when `full`)
    full: bool
    why: str  # in words, for the summary
    epoch: str  # names this run's own cache, kept across a cut
    sha: str
    models: tuple[str, ...]
    resumed: bool = False


def watch_root(cache_dir: Path | None) -> Path | None:
    return cache_dir / "watch" if cache_dir is not None else None


def read_pending(cache_dir: Path | None) -> Selection | None:
    root = watch_root(cache_dir)
    if root is None or not (root / MARKER).is_file():
        return None
    try:
        doc = json.loads((root / MARKER).read_text(encoding="utf-8"))
        epoch = str(doc["epoch"])
        if not epoch.isalnum():
            raise ValueError("epoch must be alphanumeric")
        return Selection(
            paths=tuple(str(p) for p in doc["paths"]),
            full=bool(doc["full"]),
            why=str(doc["why"]),
            epoch=epoch,
            sha=str(doc["sha"]),
            models=tuple(str(m) for m in doc["models"]),
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("ignoring an unreadable watch marker %s: %s", root / MARKER, exc)
        return None


def write_pending(cache_dir: Path | None, selection: Selection) -> None:
    root = watch_root(cache_dir)
    if root is None:
        return
    doc = asdict(selection)
    doc.pop("resumed")
    atomic_write(root / MARKER, json.dumps(doc, indent=1))


def clear(cache_dir: Path | None, epoch: str) -> None:
    """The watch completed: its cache and marker go (a later watch pays for fresh runs)."""
    root = watch_root(cache_dir)
    if root is None:
        return
    shutil.rmtree(root / epoch, ignore_errors=True)
    (root / MARKER).unlink(missing_ok=True)


def epoch_cache(cache_dir: Path | None, selection: Selection) -> Path | None:
    root = watch_root(cache_dir)
    return root / selection.epoch if root is not None else None


def choose(
    suites: Sequence[str],
    history: Sequence[Record],
    *,
    sha: str,
    models: Sequence[str],
    changes: Sequence[str],
    pending: Selection | None,
) -> Selection:
    """What this watch covers: the cut run's selection, else full or a sample (module doc)."""
    if pending is not None and pending.sha == sha and pending.models == tuple(models):
        return Selection(
            pending.paths, pending.full, pending.why, pending.epoch, sha, tuple(models), True
        )
    mine = [r for r in history if set(models) & {k[2] for k in r.cells} and _first(r)]
    # The same for every job of a sharded watch (they read the same history), so each finds
    # its own part of the same selection, and again when a cut one is resumed.
    seed = json.dumps([sha, sorted(models), len(mine), sorted(suites), list(changes)])
    epoch = hashlib.sha256(seed.encode()).hexdigest()[:16]
    if not mine:
        why = "no earlier record of these models: every eval runs, to make one"
    elif changes:
        why = "a model or the CLI changed since the last record: every eval runs"
    else:
        why = ""
    if why or len(suites) <= 1:
        return Selection(tuple(suites), True, why or "every eval", epoch, sha, tuple(models))
    turn = len(mine) % SLICES
    flagged = _still_flagged(history)
    # Slices by sorted position (not by hash: a hash can put every suite in one slice).
    ordered = sorted(suites)
    picked = [s for i, s in enumerate(ordered) if i % SLICES == turn % len(ordered) % SLICES]
    picked += [s for s in ordered if s in flagged and s not in picked]
    if len(picked) == len(suites):
        return Selection(tuple(suites), True, "every eval (the sample covers them all)",
                         epoch, sha, tuple(models))  # fmt: skip
    again = f", and {len(flagged & set(suites))} flagged last time" if flagged & set(suites) else ""
    why = (
        f"a sample: {len(picked)} of {len(suites)} eval files (slice {turn + 1} of {SLICES}"
        f"{again}); a new snapshot or CLI runs them all"
    )
    return Selection(tuple(picked), False, why, epoch, sha, tuple(models))


def _first(record: Record) -> bool:
    """One line per watch: a sharded watch's first job's (or an unsharded one's)."""
    return record.shard in ("", f"1/{record.shard.partition('/')[2]}")


def shard_part(paths: Sequence[str], index: int, count: int) -> tuple[str, ...]:
    """Job `index` of `count`'s eval files: whole files, so a skill's cells meet in one job
    (its suite test, its one issue)."""
    return tuple(p for i, p in enumerate(sorted(paths)) if i % count == index - 1)


def _still_flagged(history: Sequence[Record]) -> set[str]:
    """Suites whose newest record flagged them."""
    seen: set[str] = set()
    flagged: set[str] = set()
    for record in reversed(history):
        suites = {k[0] for k in record.cells}
        for suite in suites - seen:
            if suite in record.flagged:
                flagged.add(suite)
        seen |= suites
    return flagged
