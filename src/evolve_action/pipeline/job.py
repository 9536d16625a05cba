"""One job from start to finish: trees, loading, the in-progress report, runs, results, report.

`commands.local_flow.run_locally` and `actions_flow.run_in_actions` share everything but where
the report goes: a terminal, or GitHub (comment, check run, outputs, summary). A SIGTERM or
SIGINT (a cancelled workflow) stops the job whatever it is doing (`stopping`): no run starts
after it, the runs in flight end or are cut, what finished is written (and was cached as it
finished), and the report says "stopped before the end: N of M runs done" with a `cancelled`
check, so paid-for work is never lost and a verdict is never drawn from runs that were not
made."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from evolve_action.execute.sandbox.confine import job_level
from evolve_action.model import lanes
from evolve_action.model.evals import LoadResult
from evolve_action.model.outcomes import RunResult
from evolve_action.pipeline.plan_and_run import Execution, execute_job, plan_job
from evolve_action.pipeline.request import Loaded, Request, load_suites
from evolve_action.pipeline.stopping import Stop
from evolve_action.plan.planning import RunSpec
from evolve_action.plan.sides import Sides
from evolve_action.publish.actions_io import RunnerFiles
from evolve_action.settings.config import RepoConfig
from evolve_action.settings.events import Event
from evolve_action.settings.inputs import CommentMode, Settings
from evolve_action.util.files import check_writable

if TYPE_CHECKING:
    from evolve_action.pipeline.cost_plan import Costing
    from evolve_action.pipeline.report_input import Report
    from evolve_action.pipeline.watch_compare import MainRecord
    from evolve_action.publish.github_api import Publisher
    from evolve_action.publish.post import Published
    from evolve_action.publish.render.report import ReportInput
    from evolve_action.publish.results.write import Streamed
    from evolve_action.publish.spend_history import PrSpend
    from evolve_action.verdict.gate import Gate, Shortfall


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
    stop: Stop = field(default_factory=Stop)  # installed by the command, from its start
    pr_spend_before: PrSpend | None = None  # read from our sticky comment at the start
    main_record: MainRecord | None = None  # the default branch's, read once when first reported


@dataclass
class Finished:
    execution: Execution
    report: ReportInput  # carries the job's one verdict: `report.gate`
    results_path: Path
    invalid: list[LoadResult]

    @property
    def gate(self) -> Gate:
        return self.report.gate


def _report(
    setup: JobSetup,
    sides: Sides,
    execution: Execution | None,
    invalid: list[LoadResult],
    *,
    started: float,
    in_progress: bool = False,
) -> Report:
    """The job's report, by the one function `report` uses too (`report_input.build`)."""
    from evolve_action.pipeline.report_input import Facts, build
    from evolve_action.publish.results.record import adaptive_of

    settings, stop = setup.settings, setup.stop
    shortfall = _shortfall(execution, stop)
    facts = Facts(
        event=setup.event,
        head_sha=sides.head_sha,
        base_sha=sides.base_sha if sides.base_root is not None else None,
        head_suites=execution.head_suites if execution else [],
        base_suites=execution.base_suites if execution else [],
        invalid=invalid,
        skipped=execution.plan.skipped if execution else [],
        adaptive=adaptive_of(execution.effort if execution else None),
        # Sides planned and never run (a stop, the budget) are "not run", not new or removed.
        planned=[
            (r.suite.rel, r.case.id, lanes.lane(r.model, r.agent), r.side)
            for r in execution.plan.runs
        ]
        if execution
        else [],
        shortfall=shortfall,
        notices=(
            *_notices(execution, shortfall),
            *_late(setup, in_progress),
            *(execution.costing.cut_notices() if execution and execution.costing else ()),
        ),
        projected_usd=execution.costing.projected_usd if execution and execution.costing else None,
        projected_range=execution.costing.projected_range
        if execution and execution.costing
        else None,
        prices_as_of=execution.costing.prices_as_of if execution and execution.costing else None,
        pr_spend_before=setup.pr_spend_before,
        # Left out by the budget; a stopped job's missing runs are its notice's to tell.
        not_started=execution.not_run if execution and not stop.requested else [],
        duration_s=time.monotonic() - started,
        cached_runs=execution.cached if execution else None,
        confinement=job_level().level.words,
        harness=settings.harness.value,
        models=tuple(execution.models) if execution else (),
        runs_setting=settings.runs,
        shard=str(settings.shard) if settings.shard.count > 1 else None,
        judge_model=execution.judge_model if execution else None,
        repo_root=sides.head_root,
        case_diffs=execution.case_diffs if execution else (),
        main_record=_main_record(setup, execution).counts if not in_progress else {},
        main_series=_main_record(setup, execution).series if not in_progress else {},
    )
    return build(settings, execution.results if execution else [], facts, in_progress=in_progress)


def _main_record(setup: JobSetup, execution: Execution | None) -> MainRecord:
    """The base cells' record on the default branch, read from the history once per job."""
    from evolve_action.pipeline.watch_compare import NO_RECORD, default_branch_records

    if setup.main_record is None:
        setup.main_record = NO_RECORD
        if execution is not None and execution.base_suites and execution.judge_model:
            setup.main_record = default_branch_records(
                setup.settings.history_dir, execution.base_suites, execution.models,
                execution.judge_model,
            )  # fmt: skip
    return setup.main_record


def _late(setup: JobSetup, in_progress: bool) -> tuple[str, ...]:
    """Notices known only once the runs have ended (`/evolve run`: the PR moved on)."""
    if in_progress or setup.late_notices is None:
        return ()
    return setup.late_notices()


def _write(setup: JobSetup, report: Report, streamed: Streamed) -> Path:
    from evolve_action.publish.results.write import write_results

    return write_results(setup.settings.results_dir, report.data, report.input, streamed)[-1]


def _shortfall(execution: Execution | None, stop: Stop) -> Shortfall:
    """The runs planned and not made, and why (the gate decides nothing over them)."""
    from evolve_action.util.text import plural
    from evolve_action.verdict.adaptive import Stop as CellStop
    from evolve_action.verdict.gate import Shortfall

    if execution is None:
        return Shortfall(stopped_by=stop.signal)
    cut = []
    if execution.costing is not None and execution.costing.cut_runs:
        n = len(execution.costing.cut_runs)
        cut.append(f"max-cost-usd cut {plural(n, 'run')} before the start")
    if execution.not_run and not stop.requested:
        cut.append("the cost budget ran out")
    cells = execution.effort.cells if execution.effort else ()
    for why, words in ((CellStop.TIME, "max-minutes"), (CellStop.BUDGET, "the cost budget")):
        still_open = {(c.key[0], c.key[1]) for c in cells if c.stop is why}
        if still_open:
            cut.append(f"{words} ran out with {plural(len(still_open), 'eval')} still open")
    done = len(execution.results)
    return Shortfall(len(execution.plan.runs), done, stop.signal, tuple(dict.fromkeys(cut)))


def _notices(execution: Execution | None, shortfall: Shortfall) -> tuple[str, ...]:
    """The comment's word on an unfinished job: what happened, and what was kept."""
    from evolve_action.util.text import plural

    if not shortfall.stopped_by:
        return (f"Incomplete: {'; '.join(shortfall.cut)}.",) if shortfall.cut else ()
    ended = [r for r in execution.results if not r.cached] if execution else []
    text = f"Stopped by {shortfall.stopped_by} before the end: {shortfall.runs_done()}."
    if shortfall.missing:
        text += f" No verdict is drawn from the {plural(shortfall.missing, 'run')} never made."
    else:
        text += " Every planned run was made by then; results.json has them all."
    if ended:
        text += f" The {plural(len(ended), 'run')} that ended here are cached for the next push."
    return (text,)


async def _execute(
    setup: JobSetup, sides: Sides, head: Loaded, base: Loaded | None
) -> tuple[Execution, Streamed]:
    """Run the job; a stop request ends it early, and the runs that finished are returned,
    with the files of each written as it ended (`publish.results.stream`)."""
    from evolve_action.pipeline.pricing import Prices
    from evolve_action.publish.results.stream import RunFileStream, chained

    def tell(costing: Costing) -> None:
        # Printed at once: the projection is in the log before the first provider request.
        for line in costing.lines():
            print(f"evolve-action: {line}", file=setup.stream, flush=True)

    request, settings = setup.request, setup.settings
    async with setup.stop.watching():
        job = plan_job(request, settings, sides, head, base, Prices(setup.config.prices))
        suites = [*job.chosen.head, *job.chosen.base]
        stream = RunFileStream.for_plan(settings.results_dir, suites, job.plan.runs)
        try:
            execution = await execute_job(
                request, settings, job, on_done=chained(setup.on_done, stream.add),
                stop=setup.stop, on_costing=tell,
            )  # fmt: skip
        finally:
            streamed = stream.finish()
    return execution, streamed


def run_and_report(setup: JobSetup, sides: Sides) -> tuple[Finished, Published | None]:
    """The whole job on prepared sides; publishes when a publisher is given."""
    started = time.monotonic()
    settings, config, stop = setup.settings, setup.config, setup.stop
    stop.claim()  # a signal from here on is reported, as a cancelled check
    check_writable(settings.results_dir)  # before anything is spent or posted
    head = load_suites(sides.head_root, settings, config)
    base = load_suites(sides.base_root, settings, config) if sides.base_root else None
    invalid = list(head.invalid)
    early = None
    number = setup.event.pr_number
    sticky = settings.comment is CommentMode.STICKY
    if setup.publisher is not None and number is not None and sticky and not stop.requested:
        from evolve_action.publish import spend_history

        # Before the in-progress comment replaces it: the total the last job left there.
        publisher, key = setup.publisher, settings.comment_key
        setup.pr_spend_before = stop.wait(lambda: spend_history.read(publisher, number, key)).value
    if setup.publisher is not None and not stop.requested:
        from evolve_action.publish.post import publish_in_progress

        first = _report(setup, sides, None, invalid, started=started, in_progress=True).input
        publisher = setup.publisher
        early = stop.wait(lambda: publish_in_progress(first, publisher=publisher)).value
    execution, streamed = asyncio.run(_execute(setup, sides, head, base))
    made = _report(setup, sides, execution, invalid, started=started)
    results_path = _write(setup, made, streamed)
    report = made.input
    if stop.requested and report.gate.conclusion != "cancelled":
        # Stopped since the report was made (while the files were written): it says so.
        report = _report(setup, sides, execution, invalid, started=started).input
    published = None
    if setup.publisher is not None or setup.files.output or setup.files.summary:
        from evolve_action.publish.post import publish_files

        report, github = _publish_github(setup, report, early, started, sides, execution, invalid)
        published = publish_files(report, github, files=setup.files, stream=setup.stream)
    return Finished(execution, report, results_path, invalid), published


def _publish_github(
    setup: JobSetup,
    report: ReportInput,
    early: Published | None,
    started: float,
    sides: Sides,
    execution: Execution,
    invalid: list[LoadResult],
) -> tuple[ReportInput, Published]:
    """The GitHub writes, given up on when a stop comes; a job stopped before or during them
    writes its stopped report instead, within the seconds a cancelled step has left."""
    from evolve_action.publish.post import given_up, publish_github

    stop, publisher = setup.stop, setup.publisher
    if publisher is None:
        return report, publish_github(report, publisher=None)
    github = None
    if not stop.requested:  # else the report says so already
        github = stop.wait(
            lambda: publish_github(report, publisher=publisher, started=early, stream=setup.stream)
        ).value
        if not stop.requested and github is not None:
            return report, github
    # Stopped: the report says so, and the check run already opened (or concluded) says it too.
    report = _report(setup, sides, execution, invalid, started=started).input
    before = github or early
    stopped = stop.wait(
        lambda: publish_github(report, publisher=publisher, started=before, stream=setup.stream),
        limit=stop.publish_s,
    ).value
    return report, stopped or given_up(report, f"the job was stopped by {stop.signal}")
