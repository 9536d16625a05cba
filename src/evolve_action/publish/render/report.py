"""What one report is made of (`ReportInput`), whatever it becomes: comment, check, summary.

The job builds one `ReportInput` from its runs and hands it to every writer; `report` rebuilds
the same from results files; both through `pipeline.report_input.build`, which decides the
gate once, so every output reads the same verdict. The comment's parts (`build`,
`build.cases`, `build.verdict`, `effort`) all import it from here, so none needs another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from evolve_action.model.evals import LoadResult, Suite
from evolve_action.model.outcomes import RunResult
from evolve_action.plan.planning import RunSpec, Skip
from evolve_action.publish.history import CaseHistory, Point
from evolve_action.publish.spend_history import PrSpend
from evolve_action.settings.events import Event
from evolve_action.settings.inputs import Settings
from evolve_action.verdict.adaptive import Effort
from evolve_action.verdict.cost_delta import CostDelta
from evolve_action.verdict.discrimination import ItemRecord
from evolve_action.verdict.gate import Gate
from evolve_action.verdict.lift import Lift
from evolve_action.verdict.ruler import RulerReport
from evolve_action.verdict.stats import Aggregate


@dataclass(frozen=True, kw_only=True)
class ReportInput:
    """Everything one report is made of; the same for the comment, check, summary and outputs."""

    aggregate: Aggregate
    runs: Sequence[RunResult]  # every side, the no-skill arm's too
    event: Event
    settings: Settings
    head_sha: str  # the PR head (never the merge commit); "" for an uncommitted tree
    base_sha: str | None  # None: `--base none`, no base side at all
    head_suites: Sequence[Suite] = ()
    base_suites: Sequence[Suite] = ()
    invalid: Sequence[LoadResult] = ()  # eval files that failed to load (problems inside)
    skipped: Sequence[Skip] = ()  # left out on purpose (models list, skip_providers)
    not_started: Sequence[RunSpec] = ()  # planned, never started: the cost budget ran out
    notices: Sequence[str] = ()  # e.g. "incomplete: stopped by SIGTERM" (escaped here)
    in_progress: bool = False
    duration_s: float = 0.0
    cached_runs: int | None = None  # None: count the runs marked `cached`
    version: str = ""
    gate: Gate  # decided once, by `pipeline.report_input.build`; every output reads it
    effort: Effort | None = None  # `runs: auto`: runs per case and why each stopped
    confinement: str = ""  # how commands were confined, in words (`sandbox.Level.words`)
    judge_model: str = ""  # the one judge (provider-qualified); "" when unknown
    lift: Lift | None = None  # head against the no-skill arm; None when no case ran without it
    discrimination: Sequence[ItemRecord] = ()  # what each check item could tell
    projected_usd: float | None = None  # the cost projected before the first call; None: unknown
    projected_range: tuple[float, float] | None = None  # its low and high (a run never seen)
    prices_as_of: str | None = None  # the price table's source and date; None: not priced
    pr_spend_before: PrSpend | None = None  # what earlier jobs on the PR paid (our comment's)
    cost_deltas: Sequence[CostDelta] = ()  # tokens, cost, turns, time base → head
    rulers: RulerReport = field(
        default_factory=RulerReport
    )  # what the PR changed in its own evals, case by case
    # (suite, case, model) → the base cell's record on the default branch, from the history.
    main_record: Mapping[tuple[str, str, str], CaseHistory] = field(default_factory=dict)
    # The same cells' pass rate per recorded job, oldest first (the HTML report draws it).
    main_series: Mapping[tuple[str, str, str], tuple[Point, ...]] = field(default_factory=dict)

    @property
    def has_base(self) -> bool:
        return self.base_sha is not None


def tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M".replace(".0M", "M")
    return f"{round(n / 1000)}k" if n >= 1000 else str(n)
