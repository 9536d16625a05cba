"""One job from start to finish: trees, loading, the in-progress report, runs, results, report.

`run_local` and `run_in_actions` share everything but where the report goes: a terminal, or
GitHub (comment, check run, outputs, summary). A SIGTERM (a cancelled workflow) stops new
runs; what finished is written and reported as incomplete, so paid-for work is never lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from evolve_action import __version__
from evolve_action.execute.sandbox import job_level
from evolve_action.grade import checks
from evolve_action.model.evals import LoadResult, Suite
from evolve_action.model.outcomes import RunResult
from evolve_action.pipeline.orchestrate import Execution, Loaded, Request, load_suites, run_job
from evolve_action.plan.planning import RunSpec
from evolve_action.plan.sides import Sides
from evolve_action.publish.actions_io import RunnerFiles
from evolve_action.settings.config import RepoConfig
from evolve_action.settings.events import Event
from evolve_action.settings.inputs import Settings
from evolve_action.util.files import check_writable

if TYPE_CHECKING:
    from evolve_action.execute.providers.transport import Later
    from evolve_action.publish.github_api import Publisher
    from evolve_action.publish.post import Published
    from evolve_action.publish.render.report import ReportInput
    from evolve_action.verdict.gate import Gate

# What the job needs only once its runs are under way: the grading and checks of the first
# answer and the sandbox's level (its note), then the verdict, the report and the results
# files. None of it is done before the first request; `preload_sdks` has the SDK import
# thread do it while that request waits for its answer.
AFTER_FIRST_REQUEST: tuple[Later, ...] = (
    "evolve_action.grade.grading",
    *(f"{checks.__name__}.{name}" for name in checks.MODULES),
    job_level,
    "evolve_action.verdict.adaptive_verdict",
    "evolve_action.verdict.gate",
    "evolve_action.verdict.stats",
    "evolve_action.publish.results",
    "evolve_action.publish.post",
)


@dataclass
class JobSetup:
    request: Request
    settings: Settings
    config: RepoConfig
    event: Event
    publisher: Publisher | None = None
    files: RunnerFiles = field(default_factory=RunnerFiles)
    stream: TextIO = sys.stdout
    # Asked once the runs have ended, before anything is reported: notices only known then
    # (`/evolve run`: the pull request moved past the commit that ran).
    late_notices: Callable[[], tuple[str, ...]] | None = None
    on_done: Callable[[RunSpec, RunResult], None] | None = None


@dataclass
class Finished:
    execution: Execution
    report: ReportInput  # carries the job's one verdict: `report.gate`
    results_path: Path
    invalid: list[LoadResult]

    @property
    def gate(self) -> Gate:
        return self.report.decided_gate()


def _report(
    setup: JobSetup,
    sides: Sides,
    execution: Execution | None,
    invalid: list[LoadResult],
    *,
    started: float,
    notices: tuple[str, ...] = (),
    in_progress: bool = False,
) -> ReportInput:
    from evolve_action.publish.render.report import ReportInput
    from evolve_action.verdict import adaptive_verdict, stats
    from evolve_action.verdict.gate import Gate, evaluate

    settings = setup.settings
    runs = execution.results if execution else []
    suites: list[Suite] = [*execution.head_suites, *execution.base_suites] if execution else []
    effort = execution.effort if execution else None
    decide_with = None  # runs added because of what was seen are judged sequentially
    if effort is not None:
        decide_with = adaptive_verdict.decider(runs, effort.design.bounds)
    aggregate = stats.aggregate(runs, suites, alpha=settings.alpha, decide_with=decide_with)
    has_base = sides.base_root is not None
    # The job's verdict, decided here once: the comment, check run, outputs, job summary and
    # exit code all read this same object from the report.
    # The in-progress comment shows "evals running" whatever its gate says: nothing is
    # decided yet.
    gate = Gate("neutral", "evals running", 0)
    if not in_progress:
        failed = sum(1 for r in invalid if not r.ok)
        gate = evaluate(aggregate, settings, invalid_files=failed, has_base=has_base)
    return ReportInput(
        aggregate=aggregate,
        runs=runs,
        event=setup.event,
        settings=settings,
        head_sha=sides.head_sha,
        base_sha=sides.base_sha if has_base else None,
        head_suites=execution.head_suites if execution else [],
        base_suites=execution.base_suites if execution else [],
        invalid=invalid,
        skipped=execution.plan.skipped if execution else [],
        not_started=execution.not_run if execution else [],
        notices=notices,
        in_progress=in_progress,
        duration_s=time.monotonic() - started,
        cached_runs=execution.cached if execution else None,
        version=__version__,
        gate=gate,
        effort=effort,
        confinement=job_level().level.words,
    )


def _write(setup: JobSetup, execution: Execution, sides: Sides, report: ReportInput) -> Path:
    from evolve_action.publish.results import ResultsData, write_results
    from evolve_action.verdict import adaptive_verdict

    settings = setup.settings
    suites = [*execution.head_suites, *execution.base_suites]
    data = ResultsData(
        runs=execution.results,
        aggregate=report.aggregate,  # computed once, for the report and the files alike
        suites=suites,
        judge_model=execution.judge_model,
        settings={
            "models": execution.models,
            "runs": settings.runs,
            **adaptive_verdict.settings_entry(execution.effort),
            "head_sha": sides.head_sha,
            "base_sha": sides.base_sha if sides.base_root is not None else None,
            "pr_number": setup.event.pr_number,
            "event": setup.event.name,
            "incomplete": bool(execution.not_run),
            # What decided the verdict, so `report` over these files can decide alike.
            "alpha": settings.alpha,
            "fail_on_regression": settings.fail_on_regression,
            "min_pass_rate": settings.min_pass_rate,
            "confinement": report.confinement,
        }
        | ({"shard": str(settings.shard)} if settings.shard.count > 1 else {}),
        generated_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        repo_root=sides.head_root,
        invalid=report.invalid,
        skipped=execution.plan.skipped,
    )
    return write_results(settings.results_dir, data)[-1]


async def _execute(
    setup: JobSetup, sides: Sides, head: Loaded, base: Loaded | None
) -> tuple[Execution, tuple[str, ...]]:
    """Run the job; SIGTERM cancels it, and the runs that finished are still returned."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    stopped: list[str] = []

    def stop() -> None:
        stopped.append("stopped by SIGTERM")
        if task is not None:
            task.cancel()

    # Signal handlers only work in the main thread's loop; elsewhere SIGTERM keeps its default.
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGTERM, stop)
    try:
        execution = await run_job(
            setup.request, setup.settings, sides, head, base, on_done=setup.on_done
        )
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.remove_signal_handler(signal.SIGTERM)
    notices: tuple[str, ...] = ()
    if stopped or execution.interrupted:
        missing = len(execution.not_run)
        notices = (f"Incomplete: the job was stopped (SIGTERM); {missing} runs did not finish.",)
    elif execution.not_run:
        notices = (f"Incomplete: {len(execution.not_run)} runs not started (cost budget).",)
    return execution, notices


def run(setup: JobSetup, sides: Sides) -> tuple[Finished, Published | None]:
    """The whole job on prepared sides; publishes when a publisher is given."""
    started = time.monotonic()
    settings, config = setup.settings, setup.config
    check_writable(settings.results_dir)  # before anything is spent or posted
    head = load_suites(sides.head_root, settings, config)
    base = load_suites(sides.base_root, settings, config) if sides.base_root else None
    invalid = list(head.invalid)
    early = None
    if setup.publisher is not None:
        from evolve_action.publish.post import publish_in_progress

        early = publish_in_progress(
            _report(setup, sides, None, invalid, started=started, in_progress=True),
            publisher=setup.publisher,
        )
    execution, notices = asyncio.run(_execute(setup, sides, head, base))
    if setup.late_notices is not None:
        notices = (*notices, *setup.late_notices())
    report = _report(setup, sides, execution, invalid, started=started, notices=notices)
    results_path = _write(setup, execution, sides, report)
    published = None
    if setup.publisher is not None or setup.files.output or setup.files.summary:
        from evolve_action.publish.post import publish

        published = publish(
            report,
            publisher=setup.publisher,
            files=setup.files,
            started=early,
            stream=setup.stream,
        )
    return Finished(execution, report, results_path, invalid), published
