"""The user's own A/A: every eval of one tree, run as two independent sides, through one verdict.

A calibration is the job a pull request gets (`job.run_and_report`: the same planning, models,
judge, harness, budget, stop handling and report), on a pair of sides that are the same tree:
side A is labelled base and side B head. What the verdict then flags is a false alarm, and
`verdict.calibration` measures the rest (moved, flipped, spread, runs to catch a break).

The run cache is off for a calibration, both ways. Read, it would hand side B the very runs
side A made (the fingerprint of a run does not depend on its side, so that a PR's unchanged
base is free), or hand both sides runs of an earlier calibration or PR: the two sides would
agree by construction and the measurement would say nothing. Written, it would let a PR reuse
runs made to measure noise, which is harmless but would tie the cache's contents to a job
meant to look at today's models with fresh eyes; so each calibration pays for its runs, and
leaves the cache as it found it. Recordings (`--replay`) would make the sides identical too,
so `calibrate` offers none.

Locally the tree is the working tree, uncommitted edits included. In Actions it is the commit
the event names (a worktree of it), where the check run goes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from evolve_action.model.outcomes import RunResult, Status
from evolve_action.pipeline import job
from evolve_action.pipeline.request import Request
from evolve_action.pipeline.stopping import Stop
from evolve_action.plan.planning import RunSpec
from evolve_action.plan.sides import Sides, commit_sides
from evolve_action.publish.actions_io import RunnerFiles
from evolve_action.settings.config import RepoConfig
from evolve_action.settings.events import Event
from evolve_action.settings.inputs import CommentMode, Mode, Settings
from evolve_action.verdict.calibration import Calibration, calibrate, calibration_gate
from evolve_action.verdict.gate import Gate

if TYPE_CHECKING:
    from evolve_action.publish.github_api import Publisher


@dataclass(frozen=True)
class Calibrated:
    finished: job.Finished
    calibration: Calibration
    gate: Gate  # the calibration's own (`calibration_gate`), never the PR gate
    files: tuple[Path, ...]  # calibration.json first, then the benchmark.json files

    @property
    def complete(self) -> bool:
        """Every planned run was made, and none errored: the measurement is whole."""
        execution = self.finished.execution
        made = execution.results
        return (
            not execution.not_run
            and len(made) >= len(execution.plan.runs)
            and all(r.status is not Status.ERROR for r in made)
        )


def calibration_settings(settings: Settings) -> Settings:
    """The job's settings for a calibration: every eval, no cache, and no PR gate of its own
    (a flagged eval is a false alarm, judged by `calibration_gate`); its check run is named
    apart from the PR check, so a branch rule never reads one for the other."""
    return replace(
        settings,
        mode=Mode.ALL,
        cache_dir=None,
        fail_on_regression=False,
        min_pass_rate=None,
        comment=CommentMode.OFF,
        check_name=f"{settings.check_name} calibration",
    )


def local_tree(root: Path) -> Sides:
    """The working tree as both sides (no commit: `head_sha` "")."""
    return Sides(root, "", root, "")


def commit_tree(root: Path, event: Event) -> Sides:
    """A worktree of the event's commit (else HEAD) as both sides."""
    return commit_sides(root, event.head_sha, both=True)


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
) -> Calibrated:
    """Run the calibration on `sides` (closed here) and write its files beside the results."""
    settings = calibration_settings(settings)
    setup = job.JobSetup(
        request, settings, config, event, stream=stream, on_done=on_done, stop=stop or Stop()
    )
    try:
        finished, _ = job.run_and_report(setup, sides)
    finally:
        sides.close()
    from evolve_action.publish.calibration import write_files

    report = finished.report
    measured = calibrate(report.aggregate)
    gate = calibration_gate(finished.gate, measured)
    written = write_files(
        settings.results_dir, measured, gate, report,
        judge_model=finished.execution.judge_model,
        timestamp=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        repo_root=request.root,
    )  # fmt: skip
    return Calibrated(finished, measured, gate, tuple(written))


def publish_in_actions(
    done: Calibrated,
    *,
    publisher: Publisher | None,
    files: RunnerFiles,
    stop: Stop,
    stream: TextIO = sys.stdout,
) -> int:
    """The check run, outputs and job summary; within the seconds a stopped step has left."""
    from evolve_action.publish.calibration import publish

    report = done.finished.report

    def write() -> int:
        published = publish(
            done.calibration, done.gate, report, publisher=publisher, files=files,
            notices=report.notices, complete=done.complete, stream=stream,
        )  # fmt: skip
        return published.exit_code

    limit = stop.publish_s if stop.requested else None
    waited = stop.wait(write, limit=limit)
    return waited.value if waited.value is not None else done.gate.exit_code
