"""The one way a report is made: (settings, runs, facts) → aggregate, verdict, gate, report, record.

`run` (one job, `job`) and `report` (shards merged, or a `workflow_run` artifact, `merged`)
each gather their `Facts` — from the execution they just did, or from the results files they
read — and call `build`. Everything after that is shared: the aggregate, the sequential
decider under `runs: auto`, the gate, the `ReportInput` every output reads, and the
`JobRecord` results.json keeps. A new column, arm or field of the report is added here once,
so a sharded job keeps reaching the report an unsharded one would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from evolve_action import __version__
from evolve_action.model import lanes
from evolve_action.model.evals import LoadResult, Suite
from evolve_action.model.outcomes import RunResult, Side
from evolve_action.plan.planning import RunSpec, Skip
from evolve_action.plan.ruler import CaseDiff
from evolve_action.publish.history import CaseHistory, CellKey, Point
from evolve_action.publish.render.report import ReportInput
from evolve_action.publish.results.record import Adaptive, JobRecord, changes_of
from evolve_action.publish.results.write import ResultsData
from evolve_action.publish.spend_history import PrSpend
from evolve_action.settings.events import Event
from evolve_action.settings.inputs import Settings
from evolve_action.verdict import (
    adaptive_verdict,
    cost_delta,
    discrimination,
    lift,
    ruler,
    ruler_cells,
    stats,
)
from evolve_action.verdict.gate import COMPLETE, Gate, Shortfall, evaluate

PlannedSide = tuple[str, str, str, Side]  # (suite, case id, model, side) of a planned run
IN_PROGRESS = Gate("neutral", "evals running", 0)  # nothing is decided while runs go on


@dataclass(frozen=True, kw_only=True)
class Facts:
    """What a report needs besides the settings and the runs: where they ran, on what, and how
    the job (or each merged job) ended."""

    event: Event
    head_sha: str  # the PR head (never the merge commit); "" for an uncommitted tree
    base_sha: str | None  # None: no base side
    head_suites: Sequence[Suite] = ()
    base_suites: Sequence[Suite] = ()
    invalid: Sequence[LoadResult] = ()
    skipped: Sequence[Skip] = ()
    adaptive: Adaptive | None = None  # `runs: auto`: its design, and its effort when known
    planned: Sequence[PlannedSide] = ()  # sides planned and never run are "not run"
    shortfall: Shortfall = COMPLETE
    notices: tuple[str, ...] = ()
    projected_usd: float | None = None  # the cost projected before the first call
    projected_range: tuple[float, float] | None = None  # its low and high, for runs never seen
    prices_as_of: str | None = None  # the price table's source and date (`Prices.as_of`)
    pr_spend_before: PrSpend | None = None  # what earlier jobs on the PR paid
    not_started: Sequence[RunSpec] = ()  # left out by the budget
    duration_s: float = 0.0
    cached_runs: int | None = None
    confinement: str = ""
    harness: str = ""
    # For the record only.
    models: tuple[str, ...] = ()
    runs_setting: int | str | None = None
    event_name: str = ""
    shard: str | None = None
    merged_from: int | None = None
    judge_model: str | None = None
    repo_root: Path | None = None
    case_diffs: Sequence[CaseDiff] = ()  # what the PR changed in its own evals, per case
    # Each base cell's record on the default branch (`history-dir`), where it has one.
    main_record: Mapping[CellKey, CaseHistory] = field(default_factory=dict)
    main_series: Mapping[CellKey, tuple[Point, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Report:
    input: ReportInput  # carries the one gate: `input.gate`
    data: ResultsData  # what the results files hold; `data.record` is results.json's settings


def build(
    settings: Settings, runs: Sequence[RunResult], facts: Facts, *, in_progress: bool = False
) -> Report:
    """The report of `runs` under `settings`. The gate is decided here and nowhere else: the
    comment, check run, outputs, job summary and exit code all read `input.gate`. With
    several agents each run's model is its lane (`model.lanes`): the report keeps each
    (model, agent) apart, and results.json writes the two back as fields."""
    runs = lanes.relabel(runs)
    measured = _measure(settings, runs, facts)
    gate, notices = IN_PROGRESS, tuple[str, ...]()
    if not in_progress:
        notices = facts.notices
        gate = _gate(settings, facts, measured)
    report = ReportInput(
        aggregate=measured.aggregate,
        runs=runs,
        event=facts.event,
        settings=settings,
        head_sha=facts.head_sha,
        base_sha=facts.base_sha,
        head_suites=facts.head_suites,
        base_suites=facts.base_suites,
        invalid=facts.invalid,
        skipped=facts.skipped,
        not_started=facts.not_started,
        notices=notices,
        in_progress=in_progress,
        duration_s=facts.duration_s,
        cached_runs=facts.cached_runs,
        version=__version__,
        gate=gate,
        effort=facts.adaptive.effort() if facts.adaptive is not None else None,
        confinement=facts.confinement,
        judge_model=facts.judge_model or "",
        lift=measured.lift,
        discrimination=measured.items,
        projected_usd=facts.projected_usd,
        projected_range=facts.projected_range,
        prices_as_of=facts.prices_as_of,
        pr_spend_before=facts.pr_spend_before,
        cost_deltas=measured.costs,
        rulers=measured.rulers,
        main_record=facts.main_record,
        main_series=facts.main_series,
    )
    return Report(report, _data(settings, runs, facts, measured))


@dataclass(frozen=True)
class _Measured:
    """What the runs say before any gate: the aggregate and the figures beside it."""

    aggregate: stats.Aggregate
    lift: lift.Lift | None
    items: Sequence[discrimination.ItemRecord]
    rulers: ruler.RulerReport
    costs: Sequence[cost_delta.CostDelta]


def _measure(settings: Settings, runs: Sequence[RunResult], facts: Facts) -> _Measured:
    adaptive = facts.adaptive
    # Base's checks on head's runs, tested in the same family; changed cases apart.
    ruled = ruler_cells.ruler_runs(runs, facts.case_diffs)
    apart = ruler_cells.not_compared(facts.case_diffs)
    decide_with = None  # runs added because of what was seen are judged sequentially
    if adaptive is not None:
        tested = [r for r in runs if (r.suite, r.case_id) not in apart]
        decide_with = adaptive_verdict.decider([*tested, *ruled], adaptive.bounds)
    suites = [*facts.head_suites, *facts.base_suites]
    aggregate = stats.aggregate(
        runs,
        suites,
        alpha=settings.alpha,
        decide_with=decide_with,
        planned=facts.planned,
        verdict_only=ruled,
        not_compared=apart,
    )
    lifted = lift.measure(
        runs,
        suites,
        alpha=settings.alpha,
        # The lift family is judged like the regression one: sequentially under `auto`.
        decider_for=_sequential(adaptive.bounds) if adaptive is not None else None,
    )
    has_base = facts.base_sha is not None
    return _Measured(
        aggregate=aggregate,
        lift=lifted,
        items=discrimination.records(runs),
        rulers=ruler.report(runs, facts.case_diffs, aggregate.verdict),
        costs=cost_delta.deltas(runs, settings.max_cost_increase) if has_base else (),
    )


def _gate(settings: Settings, facts: Facts, measured: _Measured) -> Gate:
    """The one gate of a finished job: the verdict's, then the cost rule's."""
    gate = evaluate(
        measured.aggregate,
        settings,
        invalid_files=sum(1 for r in facts.invalid if r.failed),
        has_base=facts.base_sha is not None,
        shortfall=facts.shortfall,
        lift=measured.lift,
    )
    return cost_delta.with_cost_rule(gate, measured.costs, settings.max_cost_increase)


def _data(
    settings: Settings, runs: Sequence[RunResult], facts: Facts, measured: _Measured
) -> ResultsData:
    """What the results files hold, from the same aggregate the report reads."""
    return ResultsData(
        runs=runs,
        aggregate=measured.aggregate,  # computed once, for the report and the files alike
        suites=[*facts.head_suites, *facts.base_suites],
        judge_model=facts.judge_model,
        record=_record(settings, facts, measured.rulers),
        generated_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        repo_root=facts.repo_root,
        invalid=facts.invalid,
        skipped=facts.skipped,
        lift=measured.lift,
        discrimination=measured.items,
    )


def _sequential(bounds: Sequence[int]) -> lift.DeciderFor:
    """The lift family's decider under `runs: auto`: sequential, as the regression one is."""
    return lambda frame: adaptive_verdict.decider(frame, bounds)


def _record(settings: Settings, facts: Facts, rulers: ruler.RulerReport) -> JobRecord:
    """What results.json keeps about the job: built here only, for one job and a merge alike."""
    shortfall = facts.shortfall
    return JobRecord(
        models=facts.models,
        runs=facts.runs_setting,
        adaptive=facts.adaptive,
        head_sha=facts.head_sha,
        base_sha=facts.base_sha,
        pr_number=facts.event.pr_number,
        event=facts.event_name or facts.event.name,
        incomplete=shortfall.incomplete or bool(facts.notices),
        planned_runs=shortfall.planned,
        stopped_by=shortfall.stopped_by or None,
        incomplete_because=shortfall.cut,
        alpha=settings.alpha,
        fail_on_regression=settings.fail_on_regression,
        min_pass_rate=settings.min_pass_rate,
        fail_without_lift=settings.fail_without_lift,
        confinement=facts.confinement,
        harness=facts.harness,
        shard=facts.shard,
        merged_from=facts.merged_from,
        projected_usd=facts.projected_usd,
        projected_range=facts.projected_range,
        prices_as_of=facts.prices_as_of,
        case_changes=changes_of(rulers),
    )
