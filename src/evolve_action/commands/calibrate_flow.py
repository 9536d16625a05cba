"""`calibrate` locally and `mode: calibrate` in Actions: the current tree run as two sides
(`pipeline/calibrate.py`), refused where recorded answers or a shard would make the sides
equal."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

from evolve_action.commands.printing import print_run, print_summary
from evolve_action.execute.providers.setup import ModelChoiceError
from evolve_action.model.outcomes import RunResult
from evolve_action.pipeline.request import Request
from evolve_action.pipeline.stopping import Stop
from evolve_action.plan.changes import GitError
from evolve_action.plan.planning import PlanTooLarge, RunSpec
from evolve_action.publish.actions_io import RunnerFiles
from evolve_action.settings.config import RepoConfig
from evolve_action.settings.events import Event
from evolve_action.settings.inputs import Settings
from evolve_action.util.files import ResultsWriteError

if TYPE_CHECKING:
    from evolve_action.publish.github_api import Publisher


def calibration_refusal(request: Request, settings: Settings) -> str | None:
    if settings.shard.count > 1:
        return "mode calibrate runs whole: drop the `shard` input (each side needs every eval)"
    if request.replay_dir is not None:
        return "mode calibrate cannot --replay: recorded answers would make the two sides equal"
    return None


def calibrate_locally(
    request: Request,
    settings: Settings,
    config: RepoConfig,
    out: TextIO,
    *,
    quiet: bool = False,
    stop: Stop | None = None,
) -> int:
    """The working tree as two sides; each run's line, then the calibration's report."""
    from evolve_action.pipeline import calibrate

    refusal = calibration_refusal(request, settings)
    if refusal is not None:
        print(f"evolve-action: {refusal}", file=sys.stderr)
        return 2

    def each(spec: RunSpec, result: RunResult) -> None:
        print_run(out, spec, result, ("A", "B"))

    try:
        done = calibrate.run(
            request, settings, config, Event(name="local"), calibrate.local_tree(request.root),
            stream=out, stop=stop, on_done=None if quiet else each,
        )  # fmt: skip
    except (ModelChoiceError, PlanTooLarge, ResultsWriteError) as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 2
    from evolve_action.publish.render.calibration import markdown

    print_summary(out, done.finished.execution.results, invalid=len(done.finished.invalid))
    print("", file=out)
    print(
        markdown(
            done.calibration,
            done.gate,
            notices=done.finished.report.notices,
            complete=done.complete,
        ),
        file=out,
    )
    print(f"results: {done.finished.results_path}", file=out)
    print(f"calibration: {done.files[0]}", file=out)
    return done.gate.exit_code


def calibrate_in_actions(
    request: Request,
    settings: Settings,
    config: RepoConfig,
    event: Event,
    publisher: Publisher | None,
    files: RunnerFiles,
    stop: Stop | None,
) -> int:
    from evolve_action.pipeline import calibrate
    from evolve_action.publish.annotations import annotate

    refusal = calibration_refusal(request, settings)
    if refusal is not None:
        print(annotate("error", refusal, title="evolve: cannot calibrate"))
        return 2
    try:
        sides = calibrate.commit_tree(request.root, event)
    except GitError as exc:
        print(annotate("error", str(exc), title="evolve: cannot find the commit to calibrate"))
        return 2
    out, stop = sys.stdout, stop or Stop()
    try:
        done = calibrate.run(
            request, settings, config, event, sides, stream=out, stop=stop,
            on_done=lambda spec, result: print_run(out, spec, result, ("A", "B")),
        )  # fmt: skip
    except (ModelChoiceError, PlanTooLarge, ResultsWriteError) as exc:
        print(annotate("error", str(exc), title="evolve: calibration failed"))
        return 2
    return calibrate.publish_in_actions(done, publisher=publisher, files=files, stop=stop)
