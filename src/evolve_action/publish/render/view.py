"""The data a comment or summary template sees: plain values, already escaped where quoted.

The templates only lay out what this module holds; every decision (what regressed, what to
cut to fit GitHub's limit) is made in Python, where it is tested. Text that came from a
model, an eval file or a user is escaped when the view is built (`render.escape`), never in
the template.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True, slots=True)
class Rate:
    """A pass rate over runs on one side; `None` when nothing was graded."""

    passed: int
    total: int  # passed + failed (errors are counted apart)

    @property
    def value(self) -> float | None:
        return self.passed / self.total if self.total else None


@dataclass(frozen=True, slots=True)
class CaseRow:
    case: str  # escaped label (code span)
    link: str  # URL of the case's line in the eval file at the head commit, or ""
    model: str
    base: str  # "4/4", "0/2 +2 errored", "—"
    head: str
    p_value: str  # adjusted over the whole PR: "0.03"; a drop adds "· not significant"
    why: str  # escaped one-line reason (the first failing item's evidence)

    @property
    def change(self) -> str:
        """ "3/3 → 0/3": one cell for both sides, so the table fits GitHub's width."""
        return f"{self.base} → {self.head}"


@dataclass(frozen=True, slots=True)
class SuiteRow:
    skill: str
    model: str
    base: str  # "60%", "—"
    head: str
    delta: str  # "+10 pts", "—"
    verdict: str  # "▼ 1 regressed · ▽ 1 dropped · ▲ 1 improved · 1 new" / "no significant change"
    runs: int
    cost: str  # "$0.12"
    no_skill: str = "—"  # the no-skill arm's pass rate, when the skill had one
    lift: str = "—"  # head − no skill: "+60 pts ▲ p = 0.012"
    rates: str = ""  # one cell: "100% → 33% (−67 pts)", or "83% (no base)"
    against_none: str = "—"  # one cell: "0% → +33 pts ▲", the no-skill rate and the lift


@dataclass(frozen=True, slots=True)
class AgentGroup:
    """Several agents: one skill on one model, a (rates, verdict) pair per agent (escaped)."""

    skill: str
    model: str
    cells: tuple[tuple[str, str], ...]  # in the order of `CommentView.agents`


@dataclass(frozen=True, slots=True)
class EffortRow:
    """`runs: auto`: a case on a model whose runs differ from the start."""

    case: str  # escaped code span
    model: str
    base: int  # runs on base (cached ones included)
    head: int
    stopped: str  # why it got no more: "decided", "budget", …


@dataclass(frozen=True, slots=True)
class CostRow:
    """An eval or a skill on a model: tokens, cost, turns, time, base → head (escaped)."""

    what: str
    model: str
    tokens: str
    cost: str
    per_pass: str  # cost per passing run, what `max-cost-increase` compares
    turns: str
    duration: str
    flagged: str


@dataclass(frozen=True, slots=True)
class FailureRow:
    """One check of one case that failed, over every head run it failed in."""

    case: str
    model: str  # "both models", or the models it failed on
    runs: str  # "6 of 6 runs, both models"
    failed: int  # head runs it failed in
    assertion: str  # escaped
    evidence: str  # escaped: what most runs said
    link: str = ""


@dataclass(frozen=True, slots=True)
class Suggestion:
    count: int
    target: str  # escaped: "`case` / assertion text", or ""
    reason: str  # escaped


@dataclass(frozen=True, slots=True)
class CannotTell:
    """The check items of one case that cannot tell a good skill from a bad one for the same
    reason with the same counts (`verdict.discrimination`)."""

    case: str  # escaped: "skill / `case`"
    item: str  # escaped table cell: one check, or "3 checks: a; b; c"
    finding: str  # escaped table cell
    counts: str  # "head 4/4 · no skill 4/4"
    checks: int = 1  # how many check items the row stands for


@dataclass(frozen=True, slots=True)
class Problem:
    where: str  # escaped "path:line" or "case · model"
    message: str  # escaped


@dataclass(frozen=True, slots=True)
class CommentView:
    marker: str
    icon: str  # ✅ ❌ ⚠️ ⏳
    headline: str  # "1 eval regressed"
    scope: str  # "`greeter` changed in this PR. 6 cases × 2 models × 4 runs on base … and head …"
    overall_base: str
    overall_head: str
    overall_delta: str  # "+8.3 pts"; "incomplete: …" when a case is graded on one side only
    overall_what: str = "**all affected evals**"  # which cases the two rates cover
    next_steps: tuple[str, ...] = ()  # what to do, in a line each (escaped)
    suites: tuple[SuiteRow, ...] = ()
    # Several agents (`agents`): their names, a column group each, and where they disagree.
    agents: tuple[str, ...] = ()
    agent_groups: tuple[AgentGroup, ...] = ()
    agent_disagreements: tuple[str, ...] = ()
    agent_notes: tuple[str, ...] = ()  # a skill found only in one agent's folder, run there
    regressions: tuple[CaseRow, ...] = ()  # exactly the rows the check counts as regressed
    regressed_skills: tuple[str, ...] = ()  # skills whose many small drops add up (escaped)
    drops: tuple[CaseRow, ...] = ()  # rows that fell, not significantly over the whole PR
    too_few: tuple[str, ...] = ()  # "too few runs to tell" sentences (escaped)
    legend: str = ""  # what the adjusted p-values mean, shown with them
    improved: tuple[str, ...] = ()  # escaped short phrases
    new: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    unchanged_failures: tuple[str, ...] = ()
    # The PR's changes to its own evals (`render.ruler`, escaped): regressions only base's
    # checks show, cases removed while passing, and the other changes as information.
    ruler_hidden: tuple[str, ...] = ()
    removed_passing: tuple[str, ...] = ()
    eval_changes: tuple[str, ...] = ()
    failures: tuple[FailureRow, ...] = ()
    failures_total: int = 0  # failed checks (rows), before any cut to fit
    failed_runs: int = 0  # head runs that failed
    suggestions: tuple[Suggestion, ...] = ()
    has_lift: bool = False  # the per-skill table shows "no skill" and lift
    lift_legend: str = ""
    cannot_tell: tuple[CannotTell, ...] = ()
    cannot_tell_skills: tuple[str, ...] = ()  # one line near the top per such skill (escaped)
    errors: tuple[Problem, ...] = ()
    invalid_files: tuple[Problem, ...] = ()
    not_run: tuple[str, ...] = ()  # budget, skipped models, shards
    notices: tuple[str, ...] = ()  # "in progress", "incomplete: stopped by SIGTERM", ...
    effort: tuple[str, ...] = ()  # `runs: auto`: where the runs went, what was cut and why
    effort_rows: tuple[EffortRow, ...] = ()
    costs: tuple[CostRow, ...] = ()  # cost and behaviour, base → head
    cost_rule: str = ""  # `max-cost-increase` in words, when set
    footer: str = ""  # cost · tokens · duration · cache · run link · version
    truncated: tuple[str, ...] = field(default=())  # what was dropped to fit

    def without(self, part: str) -> CommentView:
        """A copy with one droppable part removed, noting it for the reader."""
        empty: dict[str, tuple[object, ...]] = {part: ()}
        return replace(self, truncated=(*self.truncated, part), **empty)  # type: ignore[arg-type]
