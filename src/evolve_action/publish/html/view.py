"""What `report.html` shows, computed from a `ReportInput`: one chart per skill and model (each
case's pass rate on base, head and without the skill, with a 95% interval), and each failed or
errored run with its transcript, one click from its case.

Geometry is computed here, so the template only places shapes. Text stays raw here (the
template escapes it); what could not be shown or written (control bytes, lone surrogates) is
made printable, and every text and list is cut to a bound so a huge transcript cannot make a
huge page.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from evolve_action.model.outcomes import RunResult, Side, Status, ToolCall
from evolve_action.publish.html.trend import Trend, trend
from evolve_action.publish.render.escape import shorten
from evolve_action.publish.render.report import ReportInput
from evolve_action.util.text import pct, plural, printable
from evolve_action.verdict.significance import Label
from evolve_action.verdict.stats import CaseStats, SideStats

Z95 = 1.959964  # the normal quantile of a two-sided 95% interval
MAX_TEXT = 16_000  # characters of a final answer
MAX_OUTPUT = 4_000  # characters of one tool call's output (its arguments: a quarter)
MAX_CALLS = 60  # tool calls shown per run
MAX_RUNS_SHOWN = 300  # failed runs with a transcript on the page
PAGE_BUDGET = 6_000_000  # characters of transcripts on one page; later runs are counted
SHORT_NAME = 80  # characters of a case's name in a chart, which does not wrap

# Chart geometry, in SVG user units (pixels at 100%).
LABEL_W = 80  # the side's name, left of the plot
PLOT_W = 420  # 0% to 100%
TEXT_W = 250  # the counts, right of the plot
NAME_H = 18  # the case's name, above its bars
BAR_H = 14
BAR_GAP = 3
ROW_GAP = 12
TOP = 24  # room for the axis labels
SIDES = ((Side.BASE, "base"), (Side.HEAD, "head"), (Side.NO_SKILL, "no skill"))


def wilson(passed: int, n: int) -> tuple[float, float]:
    """The Wilson score interval of `passed` of `n` at 95%: honest at 0/n and n/n, where the
    normal approximation collapses to a point."""
    if n <= 0:
        return 0.0, 1.0
    p = passed / n
    denominator = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def clean(text: str, limit: int = MAX_TEXT) -> str:
    """Printable text of at most `limit` characters, saying how much was cut; newlines and
    tabs kept, since transcripts are shown preformatted."""
    cut = ""
    if len(text) > limit:
        cut = f"\n… {len(text) - limit} more characters not shown (results.json has them)"
        text = text[:limit]
    lines = text.replace("\r\n", "\n").split("\n")
    return "\n".join(printable(line.replace("\t", "    ")) for line in lines) + cut


@dataclass(frozen=True, slots=True)
class Bar:
    side: str  # "base", "head" or "no skill"
    y: int
    width: float  # the pass rate's length; 0 when nothing was graded
    low_x: float  # the interval's ends, in plot units
    high_x: float
    text: str  # "4/5 passed · 80% (38–96%)", or why there is no rate
    graded: bool


@dataclass(frozen=True, slots=True)
class CaseRow:
    anchor: str  # the id of its details, where its failed runs are
    name: str  # its name, with its id where they differ
    short: str  # the name cut to fit the chart's width
    label: str  # the verdict's label: regressed, improved, …
    y: int  # top of its name; its bars follow
    bars: tuple[Bar, ...]
    failed: tuple[FailedRun, ...]
    trend: Trend | None = None  # its pass rate on the default branch over time


@dataclass(frozen=True, slots=True)
class Chart:
    anchor: str
    suite: str
    model: str
    rows: tuple[CaseRow, ...]
    height: int


@dataclass(frozen=True, slots=True)
class Call:
    name: str
    arguments: str
    result: str
    is_error: bool


@dataclass(frozen=True, slots=True)
class Check:
    text: str
    kind: str
    passed: bool | None
    evidence: str


@dataclass(frozen=True, slots=True)
class FailedRun:
    anchor: str
    title: str  # "head · run 2 · failed"
    status: str
    error: str
    failing: tuple[Check, ...]  # the checks that failed, with their evidence
    others: tuple[Check, ...]  # the rest, for context
    calls: tuple[Call, ...]
    calls_cut: int  # tool calls not shown
    final_text: str
    facts: str  # "7 turns · stopped: end_turn · 12.3 s"
    judge: str  # the judge's error, when it failed


@dataclass(frozen=True, slots=True)
class Page:
    title: str
    icon: str
    conclusion: str
    reason: str
    facts: tuple[str, ...]  # repository, commits, models, version
    charts: tuple[Chart, ...]
    plot_x: int  # where the plot starts
    plot_w: int
    width: int  # of every chart
    ticks: tuple[tuple[float, str], ...]  # (x, "50%")
    failed_total: int
    failed_shown: int
    notices: tuple[str, ...]


def case_name(name: str, case_id: str) -> str:
    return name if not name or name == case_id else f"{name} ({case_id})"


def _bar(side: str, stats: SideStats | None, y: int) -> Bar:
    if stats is None or not stats.graded:
        why = "not run" if stats is None else f"no graded run ({plural(stats.errored, 'error')})"
        return Bar(side, y, 0.0, 0.0, 0.0, why, False)
    n, passed = stats.graded, stats.passed
    low, high = wilson(passed, n)
    rate = passed / n
    extra = f", {plural(stats.errored, 'error')}" if stats.errored else ""
    text = f"{passed}/{n} passed{extra} · {pct(rate)} ({pct(low)}–{pct(high)})"
    return Bar(side, y, rate * PLOT_W, low * PLOT_W, high * PLOT_W, text, True)


def _calls(calls: Sequence[ToolCall]) -> tuple[Call, ...]:
    return tuple(
        Call(
            clean(c.name, 200),
            clean(c.arguments, MAX_OUTPUT // 4),
            clean(c.result, MAX_OUTPUT),
            c.is_error,
        )
        for c in calls[:MAX_CALLS]
    )


def _failed_run(run: RunResult, anchor: str, side: str) -> FailedRun:
    checks = [
        Check(clean(i.text, 2000), i.kind, i.passed, clean(i.evidence, 4000)) for i in run.items
    ]
    t = run.transcript
    facts = [plural(t.turns, "turn"), f"{t.duration_s:.1f} s"]
    if t.stop_reason:
        facts.insert(1, f"stopped: {t.stop_reason}")
    facts += [clean(n, 300) for n in t.notes]
    status = "errored" if run.status is Status.ERROR else "failed"
    return FailedRun(
        anchor=anchor,
        title=f"{side} · run {run.repetition} · {status}",
        status=status,
        error=clean(run.error, 4000),
        failing=tuple(c for c in checks if c.passed is False),
        others=tuple(c for c in checks if c.passed is not False),
        calls=_calls(t.tool_calls),
        calls_cut=max(0, len(t.tool_calls) - MAX_CALLS),
        final_text=clean(t.final_text),
        facts=" · ".join(facts),
        judge=clean(run.judge.error, 2000),
    )


class _Runs:
    """The failed and errored runs of each (suite, case, model), in side order, with a running
    budget of how many get a transcript on the page."""

    def __init__(self, runs: Iterable[RunResult]) -> None:
        self.by_cell: dict[tuple[str, str, str], list[RunResult]] = {}
        order = {side: i for i, (side, _) in enumerate(SIDES)}
        bad = [r for r in runs if r.status in (Status.FAIL, Status.ERROR)]
        for run in sorted(bad, key=lambda r: (order.get(r.side, 9), r.repetition)):
            self.by_cell.setdefault((run.suite, run.case_id, run.model), []).append(run)
        self.total = len(bad)
        self.shown = 0
        self.spent = 0  # characters of transcript text on the page so far

    def take(self, key: tuple[str, str, str], prefix: str) -> tuple[FailedRun, ...]:
        out = []
        names = dict(SIDES)
        for i, run in enumerate(self.by_cell.get(key, ())):
            if self.shown >= MAX_RUNS_SHOWN or self.spent >= PAGE_BUDGET:
                break
            shown = _failed_run(run, f"{prefix}-run-{i + 1}", names.get(run.side, run.side))
            self.shown += 1
            self.spent += _size(shown)
            out.append(shown)
        return tuple(out)


def _size(run: FailedRun) -> int:
    checks = sum(len(c.text) + len(c.evidence) for c in (*run.failing, *run.others))
    calls = sum(len(c.arguments) + len(c.result) for c in run.calls)
    return len(run.final_text) + len(run.error) + checks + calls


def _charts(report: ReportInput, runs: _Runs) -> tuple[Chart, ...]:
    no_skill = {}
    if report.lift is not None:
        no_skill = {(c.suite, c.case_id, c.model): c.no_skill for c in report.lift.cases}
    groups: dict[tuple[str, str], list[CaseStats]] = {}
    for case in report.aggregate.cases:
        groups.setdefault((case.suite, case.model), []).append(case)
    charts = []
    # What regressed first: the reader opens the page for it.
    order = sorted(
        groups.items(), key=lambda g: (not any(c.label is Label.REGRESSED for c in g[1]), g[0])
    )
    for n, ((suite, model), cases) in enumerate(order):
        rows, y = [], TOP
        for m, case in enumerate(cases):
            key = (case.suite, case.case_id, case.model)
            stats = {Side.BASE: case.base, Side.HEAD: case.head, Side.NO_SKILL: no_skill.get(key)}
            shown = [(s, name) for s, name in SIDES if s is not Side.BASE or report.has_base]
            shown = [(s, name) for s, name in shown if s is not Side.NO_SKILL or key in no_skill]
            bars = tuple(
                _bar(name, stats[s], y + NAME_H + i * (BAR_H + BAR_GAP))
                for i, (s, name) in enumerate(shown)
            )
            anchor = f"c{n + 1}-{m + 1}"
            name = clean(case_name(case.name, case.case_id), 200)
            below = y + NAME_H + len(bars) * (BAR_H + BAR_GAP)
            line = trend(report.main_series.get(key, ()), y=below, plot_x=LABEL_W, plot_w=PLOT_W)
            rows.append(
                CaseRow(anchor, name, shorten(name, SHORT_NAME), case.label.value, y, bars,
                        runs.take(key, anchor), line)
            )  # fmt: skip
            y = below
            y += (line.space if line is not None else 0) + ROW_GAP
        charts.append(Chart(f"chart-{n + 1}", clean(suite, 300), clean(model, 200), tuple(rows), y))
    return tuple(charts)


def build_page(report: ReportInput) -> Page:
    gate = report.gate
    runs = _Runs(report.runs)
    charts = _charts(report, runs)
    facts = [f"evolve-action {report.version}" if report.version else "evolve-action"]
    if report.event.repo:
        facts.append(clean(report.event.repo, 200))
    if report.head_sha:
        facts.append(f"head {report.head_sha[:12]}")
    if report.base_sha:
        facts.append(f"base {report.base_sha[:12]}")
    facts.append(plural(len(report.runs), "run"))
    return Page(
        title="evolve report",
        icon=gate.icon,
        conclusion=gate.conclusion,
        reason=clean(gate.reason, 2000),
        facts=tuple(facts),
        charts=charts,
        plot_x=LABEL_W,
        plot_w=PLOT_W,
        width=LABEL_W + PLOT_W + TEXT_W + 10,
        ticks=tuple((LABEL_W + f * PLOT_W, pct(f)) for f in (0, 0.25, 0.5, 0.75, 1)),
        failed_total=runs.total,
        failed_shown=runs.shown,
        notices=tuple(clean(n, 2000) for n in report.notices),
    )
