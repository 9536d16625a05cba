"""`mode: watch`: the default branch's evals, run again on today's models, against the last
recorded run of the same tree and model ids (docs/watch.md).

A watch is the job a push gets (`job.run_and_report`: planning, models, judge, harness, budget,
stop handling, results files), on one side only, the commit the event names. What it adds:
which evals it covers (`watch_state.choose`: all of them, or a sample), its own run cache so a
cut watch resumes and never replays an older week's answers, the snapshot each model reported
in its runs' answers (`watch_seen`; a sample whose answers name a new snapshot is widened to
every eval), and the comparison with the history (`watch_compare`), decided by the pull
request's verdict at the same `alpha`. A watch that completes adds its line to the history;
one that was cut adds nothing and leaves its runs for the next.

The tree is the same on both sides of the comparison (the cell fingerprints say so), so a
significant drop is the model's or the agent's, not the code's. Errors are never failures:
they are counted apart, and a cell that only errored is not compared and never becomes a
baseline.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from evolve_action.execute.providers.setup import choose_judge, choose_models
from evolve_action.model import provider_table
from evolve_action.model.outcomes import RunResult
from evolve_action.pipeline import job, watch_seen, watch_state
from evolve_action.pipeline.pricing import Prices
from evolve_action.pipeline.request import Request, load_suites
from evolve_action.pipeline.stopping import Stop
from evolve_action.pipeline.watch_compare import (
    Comparison,
    cell_fingerprints,
    compare,
    counts_of,
)
from evolve_action.plan.planning import RunSpec
from evolve_action.plan.sides import Sides
from evolve_action.publish import history
from evolve_action.publish.history import Record
from evolve_action.settings.config import RepoConfig
from evolve_action.settings.events import Event
from evolve_action.settings.inputs import CommentMode, Mode, Settings, Shard


@dataclass(frozen=True)
class Seen:
    """What the models and tools said of themselves this run, and what moved since."""

    snapshots: Mapping[str, str]
    cli: str
    prices: Mapping[str, str]
    changes: tuple[str, ...]


@dataclass
class Watched:
    selection: watch_state.Selection
    seen: Seen
    finished: job.Finished
    comparison: Comparison
    complete: bool  # every planned run was made and no stop came: the verdict stands
    record: Record | None = None  # added to the history (None: cut, or no history-dir)
    history: list[Record] = field(default_factory=list)  # as read before this run
    recorded_to: Path | None = None  # the history file the record went to
    part: str = ""  # "i/n": this job's part of a sharded watch

    @property
    def results(self) -> list[RunResult]:
        return self.finished.execution.results


def last_known(
    records: Sequence[Record], pick: Callable[[Record], Mapping[str, str]]
) -> dict[str, str]:
    """Per model, the newest known value (an unknown "" never hides an older one)."""
    out: dict[str, str] = {}
    for record in reversed(records):
        for model, value in pick(record).items():
            if value and model not in out:
                out[model] = value
    return out


def look(
    models: Sequence[str], settings: Settings, config: RepoConfig, environ: Mapping[str, str],
    records: Sequence[Record],
) -> Seen:  # fmt: skip
    """What is known before any run: the CLI and the prices (the snapshots come with the
    answers, `with_snapshots`)."""
    cli = watch_seen.cli_version(settings, environ)
    prices = watch_seen.price_words(models, Prices(config.prices))
    moved = []
    last_cli = next((r.cli for r in reversed(records) if r.cli), "")
    if last_cli and last_cli != cli:
        moved.append(f"CLI: {last_cli} → {cli}")
    moved += watch_seen.changes(last_known(records, lambda r: r.prices), prices, "price")
    return Seen({}, cli, prices, tuple(moved))


def with_snapshots(seen: Seen, records: Sequence[Record], snapshots: Mapping[str, str]) -> Seen:
    moved = watch_seen.changes(last_known(records, lambda r: r.snapshots), snapshots, "snapshot")
    return replace(seen, snapshots=dict(snapshots), changes=(*moved, *seen.changes))


def widened(selection: watch_state.Selection, suites: Sequence[str]) -> watch_state.Selection:
    """The sample's selection made full, in the same cache: its runs are hits, not made again."""
    why = "a model or the CLI changed since the last record (a new snapshot in this run's "
    why += "answers): every eval runs, the sample's runs kept"
    return replace(selection, paths=tuple(suites), full=True, why=why)


# A `paths` glob no file matches: the job of a sharded watch that got no eval file.
NOTHING = (".evolve-watch-no-eval-file-in-this-shard",)


def watch_settings(
    settings: Settings, selection: watch_state.Selection, suites: Sequence[str] = ()
) -> Settings:
    """The job's settings: its part of the selected evals (whole files: `shard: i/n` splits
    them, not their runs), the watch's own cache, no comment, no gate of the pull-request kind
    (a drop becomes an issue), a check name of its own."""
    shard = settings.shard
    paths = selection.paths
    if shard.count > 1:
        # A job whose part of a sample is empty runs one eval file of its whole part: the
        # snapshot is known only from answers, and this job decides its own skills.
        paths = (
            watch_state.shard_part(paths, shard.index, shard.count)
            or watch_state.shard_part(suites, shard.index, shard.count)[:1]
            or NOTHING
        )
    elif selection.full and not settings.paths:
        paths = ()
    return replace(
        settings,
        mode=Mode.ALL,
        shard=Shard(1, 1),
        paths=paths,
        cache_dir=watch_state.epoch_cache(settings.cache_dir, selection),
        comment=CommentMode.OFF,
        fail_on_regression=False,
        min_pass_rate=None,
        check_name=f"{settings.check_name} watch",
    )


def run(
    request: Request,
    settings: Settings,
    config: RepoConfig,
    event: Event,
    sides: Sides,
    *,
    stream: TextIO = sys.stdout,
    on_done: Callable[[RunSpec, RunResult], None] | None = None,
    stop: Stop | None = None,
) -> Watched:
    """Watch the tree of `sides` (head only; closed here) and record what it found."""
    stop = stop or Stop()
    try:
        records = history.read(settings.history_dir)
        keys = provider_table.keys_of(settings)
        models = choose_models(settings.models, keys=keys, environ=request.environ)
        judge = choose_judge(settings.judge_model, keys=keys, environ=request.environ)
        seen = look(models, settings, config, request.environ, records)
        loaded = load_suites(sides.head_root, settings, config).suites
        # Of the tree as checked out, before any run: as a push's line computes them.
        fingerprints = cell_fingerprints(loaded, models, judge)
        selection = watch_state.choose(
            [s.rel for s in loaded], records, sha=sides.head_sha, models=models,
            changes=seen.changes, pending=watch_state.read_pending(settings.cache_dir),
        )  # fmt: skip
        setup = job.JobSetup(request, settings, config, event, stream=stream, on_done=on_done,
                             stop=stop)  # fmt: skip
        rels = [s.rel for s in loaded]
        selection, finished, seen = _passes(setup, sides, selection, seen, records, models, rels)
    finally:
        sides.close()
    execution = finished.execution
    # Each of n jobs decides its own skills at alpha / n: a watch's false alarms stay within
    # alpha however it is sharded (a union bound over its jobs).
    alpha = settings.alpha / settings.shard.count
    comparison = compare(records, counts_of(execution.results, fingerprints), alpha)
    complete = (
        not stop.requested
        and not execution.not_run
        and len(execution.results) >= len(execution.plan.runs)
    )
    watched = Watched(selection, seen, finished, comparison, complete, history=records)
    watched.part = str(settings.shard) if settings.shard.count > 1 else ""
    if complete:
        watched.record = _record(watched, event, sides.head_sha, settings.shard)
        if settings.history_dir is not None and comparison.now:  # no run: nothing to keep
            watched.recorded_to = history.append(settings.history_dir, watched.record)
        watch_state.clear(settings.cache_dir, selection.epoch)
    return watched


def _passes(
    setup: job.JobSetup, sides: Sides, selection: watch_state.Selection, known: Seen,
    records: Sequence[Record], models: Sequence[str], suites: Sequence[str],
) -> tuple[watch_state.Selection, job.Finished, Seen]:  # fmt: skip
    """The job, and a second one over every eval when a sample's answers named a new
    snapshot (known only from the answers; the sample's runs are cache hits there)."""
    finished = _job(setup, sides, selection, suites)
    served = watch_seen.served_snapshots(finished.execution.results, models)
    seen = with_snapshots(known, records, served)
    if seen.changes and not selection.full and not setup.stop.requested:
        selection = widened(selection, suites)
        finished = _job(setup, sides, selection, suites)
        served = watch_seen.served_snapshots(finished.execution.results, models)
        seen = with_snapshots(known, records, served)
    return selection, finished, seen


def _job(
    setup: job.JobSetup, sides: Sides, selection: watch_state.Selection, suites: Sequence[str]
) -> job.Finished:
    watch_state.write_pending(setup.settings.cache_dir, selection)
    finished, _ = job.run_and_report(
        replace(setup, settings=watch_settings(setup.settings, selection, suites)), sides
    )
    return finished


def _record(watched: Watched, event: Event, sha: str, shard: Shard) -> Record:
    return Record(
        at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        sha=sha,
        event=event.name,
        cells=dict(watched.comparison.now),
        snapshots=dict(watched.seen.snapshots),
        cli=watched.seen.cli,
        prices=dict(watched.seen.prices),
        full=watched.selection.full,
        flagged=tuple(watched.comparison.regressed_suites),
        shard=str(shard) if shard.count > 1 else "",
    )


def record_push(
    settings: Settings, config: RepoConfig, root: Path, sha: str, results: Sequence[RunResult],
    judge_model: str, models: Sequence[str],
) -> Path | None:  # fmt: skip
    """A push to the default branch adds its head side's runs to the history."""
    if settings.history_dir is None:
        return None
    suites = load_suites(root, settings, config).suites
    now = counts_of(results, cell_fingerprints(suites, models, judge_model))
    if not now:
        return None
    record = Record(
        at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), sha=sha, event="push", cells=now,
        full=settings.mode is Mode.ALL,
    )  # fmt: skip
    return history.append(settings.history_dir, record)
