"""From statistics to the comment's data: `build_view(ReportInput) -> CommentView`.

Every sentence a reader sees is decided here, from data, where it is tested; the template
only lays it out. Text that came from a model, an eval file or a user passes through
`render.escape` on its way in (`cell` for table cells, `inline` for prose, `code` for ids).
The per-case parts (regressions, short phrases, failure rows, suggestions, problems) live in
`render.build.cases`.
"""

from __future__ import annotations

import math

from evolve_action.model import spend
from evolve_action.model.outcomes import Side, Status
from evolve_action.model.records import run_cost
from evolve_action.publish import spend_history
from evolve_action.publish.render.build import agents as agents
from evolve_action.publish.render.build import cases as cases
from evolve_action.publish.render.build import lift as lift
from evolve_action.publish.render.build import verdict as verdict
from evolve_action.publish.render import headline, ruler
from evolve_action.publish.render.build.verdict import points as points
from evolve_action.publish.render.cost_rows import cost_rows
from evolve_action.publish.render.effort import lines as effort_lines
from evolve_action.publish.render.escape import cell, code, inline, marker
from evolve_action.publish.render.failures import failure_rows
from evolve_action.publish.render.report import ReportInput, tokens
from evolve_action.publish.render.view import CommentView, SuiteRow
from evolve_action.settings.inputs import CommentMode, Mode
from evolve_action.util.text import pct, plural
from evolve_action.verdict.significance import Label
from evolve_action.verdict.stats import GroupStats

IN_PROGRESS_NOTICE = "⏳ The evals are running; this comment is updated when they finish."


def build_view(report: ReportInput) -> CommentView:
    gate = report.gate
    agg = report.aggregate
    index = cases.CaseIndex.of(report)
    notices = [IN_PROGRESS_NOTICE] if report.in_progress else []
    notices += [inline(n) for n in report.notices]
    failures = failure_rows(report, index)
    effort, effort_rows = effort_lines(report)
    costs, cost_rule = cost_rows(report, index)
    what, rates = headline.overall(report)
    several = agents.view(report, index)
    return CommentView(
        marker=marker(report.settings.comment_key),
        icon="⏳" if report.in_progress else gate.icon,
        headline="evals running" if report.in_progress else gate.reason,
        scope=scope(report, index),
        overall_base=rates.base,
        overall_head=rates.head,
        overall_delta=rates.delta,
        overall_what=what,
        next_steps=() if report.in_progress else headline.next_steps(report, index, rates),
        suites=tuple(_suite_row(report, index, g) for g in agg.suites),
        agents=several.agents,
        agent_groups=several.groups,
        agent_disagreements=several.disagreements,
        agent_notes=agents.notes(report),
        regressions=verdict.regression_rows(report, index) if report.has_base else (),
        regressed_skills=verdict.regressed_skills(report, index) if report.has_base else (),
        drops=verdict.drop_rows(report, index) if report.has_base else (),
        too_few=verdict.too_few(report, index) if report.has_base else (),
        legend=verdict.legend(report) if report.has_base else "",
        improved=cases.phrases(report, index, Label.IMPROVED) if report.has_base else (),
        new=cases.phrases(report, index, Label.NEW) if report.has_base else (),
        removed=cases.phrases(report, index, Label.REMOVED) if report.has_base else (),
        unchanged_failures=cases.unchanged_failures(report, index) if report.has_base else (),
        ruler_hidden=ruler.hidden(report, index),
        removed_passing=ruler.removed_while_passing(report, index),
        eval_changes=ruler.notes(report, index),
        failures=failures,
        failures_total=len(failures),
        failed_runs=sum(1 for r in report.runs if r.side is Side.HEAD and r.status is Status.FAIL),
        suggestions=cases.suggestions(report, index),
        has_lift=report.lift is not None,
        lift_legend=lift.legend(report),
        cannot_tell=lift.rows(report, index),
        cannot_tell_skills=lift.skill_lines(report, index),
        errors=cases.errors(report, index),
        invalid_files=cases.invalid_files(report.invalid),
        not_run=cases.not_run(report, index),
        notices=tuple(notices),
        effort=effort,
        effort_rows=effort_rows,
        costs=costs,
        cost_rule=cost_rule,
        footer=footer(report),
    )


# --- numbers in words ------------------------------------------------------------------------


money = spend.money  # one way to write dollars, "price unknown" for a model with no price


def duration(seconds: float) -> str:
    s = round(seconds)
    if s >= 3600:
        return f"{s // 3600}h {s % 3600 // 60}m"
    return f"{s // 60}m {s % 60}s" if s >= 60 else f"{s}s"


def _rate(rate: float | None) -> str:
    return "—" if rate is None else pct(rate)


# --- the scope line, the per-model rows, the footer ------------------------------------------


def scope(report: ReportInput, index: cases.CaseIndex) -> str:
    agg = report.aggregate
    labels = dict.fromkeys(index.skill_label(c.suite) for c in agg.cases)
    names = [code(label, 60) for label in labels]
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    if not names:
        lead = "No eval was affected." if not report.in_progress else "Preparing the runs."
    elif report.settings.mode is Mode.ALL:
        lead = f"Every eval ({shown})."
    elif report.event.is_pr:
        lead = f"{shown} changed in this PR."
    else:
        lead = f"Evals of {shown}."
    if not agg.cases:
        return lead
    per_side: dict[tuple[str, str, str, str], int] = {}
    for r in report.runs:
        key = (r.suite, r.case_id, r.model, r.side.value)
        per_side[key] = per_side.get(key, 0) + 1
    low, high = min(per_side.values(), default=1), max(per_side.values(), default=1)
    runs = plural(high, "run") if low == high else f"{low}–{high} runs"
    on = agents.agents_of(c.model for c in agg.cases)
    models = {agents.plain(c.model) for c in agg.cases}
    several = f"{plural(len(on), 'agent')} × " if len(on) > 1 else ""
    size = (
        f"{plural(len({(c.suite, c.case_id) for c in agg.cases}), 'case')} × "
        f"{plural(len(models), 'model')} × {several}{runs}"
    )
    head = f"head {code(report.head_sha[:7])}" if report.head_sha else "the working tree"
    if report.base_sha is None:
        return f"{lead} {size} on {head} only (no base to compare with)."
    return f"{lead} {size} on base {code(report.base_sha[:7])} and {head}."


def _suite_row(report: ReportInput, index: cases.CaseIndex, g: GroupStats) -> SuiteRow:
    rel, model = g.suite or "", g.model or ""
    members = [c for c in report.aggregate.cases if (c.suite, c.model) == (rel, model)]
    own = [r for r in report.runs if (r.suite, r.model) == (rel, model)]
    costs = [c for r in own if (c := run_cost(r)) is not None]  # the no-skill arm's too
    found = headline.rates(members)
    if report.has_base:
        verdict_text = verdict.group_verdict(report, g)
        rates = found.cell()
        if not found.paired and not found.missing:  # nothing on both sides: new or removed
            rates = f"{_rate(g.head_rate)} (new evals only)" if g.head_rate is not None else "—"
    else:
        graded = [c for c in members if c.head is not None and c.head.graded]
        passing = sum(1 for c in graded if c.head is not None and not c.head.failed)
        verdict_text = f"{passing} of {plural(len(graded), 'case')} pass"
        rates = f"{_rate(g.head_rate)} (head only)"
    armed = lift.cells(report, rel, model)
    return SuiteRow(
        skill=cell(index.suite_label(rel), 80),
        model=cell(model, 80),
        base=found.base if report.has_base else "—",
        head=found.head if report.has_base else _rate(g.head_rate),
        delta=found.delta if report.has_base else "—",
        verdict=verdict_text,
        runs=sum(sum(side.values()) for side in g.runs.values())
        + sum(r.side is Side.NO_SKILL for r in own),
        cost=money(math.fsum(costs)) if costs else "—",
        no_skill=armed.no_skill,
        lift=armed.lift,
        rates=rates,
        against_none=armed.cell,
    )


def footer(report: ReportInput) -> str:
    runs = report.runs
    # What this job paid: runs reused from the cache were paid by an earlier job.
    paid = spend.spend_of(runs)
    used = sum(
        r.transcript.usage.total_tokens + r.judge.usage.total_tokens for r in runs if not r.cached
    )
    cached = report.cached_runs
    if cached is None:
        cached = sum(1 for r in runs if r.cached)
    parts, hidden = [f"💸 {spend.spend_text(paid)}"], ""
    if report.event.is_pr and report.settings.comment is CommentMode.STICKY:
        # The PR's running total: shown, and hidden for the next job (`spend_history`); only
        # a sticky comment can carry it from one push to the next.
        total = spend_history.add(report.pr_spend_before, paid, report.head_sha)
        parts = [f"💸 this push {spend.spend_text(paid)}", spend_history.words(total)]
        hidden = spend_history.hidden(total)
    parts.append(f"{tokens(used)} tokens")
    if paid.saved_usd:
        parts.append(f"cache saved {money(paid.saved_usd)}")
    if report.projected_usd is not None:
        ends = f" ({spend.between(*report.projected_range)})" if report.projected_range else ""
        parts.append(f"📐 projected {money(report.projected_usd)}{ends}")
    parts += [f"prices as of {report.prices_as_of}"] if report.prices_as_of else []
    parts.append(f"⏱ {duration(report.duration_s)}")
    if cached:
        parts.append(f"{plural(cached, 'cached run')} reused")
    if report.event.run_url:
        parts.append(f"[workflow run]({report.event.run_url})")
    if report.confinement:
        parts.append(f"confinement: {inline(report.confinement)}")
    if report.judge_model:
        family = report.judge_model.partition("/")[0]
        parts.append(f"judge {code(report.judge_model, 60)} ({inline(family)} family)")
    parts.append(f"evolve-action {report.version}".strip())
    return " · ".join(parts) + hidden
