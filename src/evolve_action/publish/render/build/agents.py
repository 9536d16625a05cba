"""The comment's parts for a job of several agents (`agents`): one column group per agent,
and a line for each case the agents disagree on.

Each (model, agent) is a lane (`model.lanes`): the aggregate holds its rows and groups under
the lane's name, so the verdict's figures are already per agent; this module only lays the
lanes of one model side by side. A job of one agent has no lanes, and nothing here shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from evolve_action.model import lanes
from evolve_action.publish.render.build.verdict import group_verdict
from evolve_action.publish.render.escape import cell, code
from evolve_action.publish.render.names import CaseIndex
from evolve_action.publish.render.report import ReportInput
from evolve_action.publish.render.view import AgentGroup
from evolve_action.util.text import pct
from evolve_action.verdict.significance import Label
from evolve_action.verdict.stats import CaseStats, GroupStats

MAX_DISAGREEMENTS = 10  # past this the lines read as noise; results.json has every row

# What a row's label says about the skill's change, in the disagreement line.
_WORDS = {
    Label.IMPROVED: "helps",
    Label.REGRESSED: "hurts",
    Label.UNCHANGED: "no effect",
    Label.NEW: "new",
    Label.REMOVED: "removed",
    Label.NOT_RUN: "not run",
    Label.NOT_COMPARED: "not compared",
    Label.ERROR: "errors",
}


@dataclass(frozen=True, slots=True)
class AgentsView:
    agents: tuple[str, ...] = ()  # display names; empty: one agent, nothing shown
    groups: tuple[AgentGroup, ...] = ()
    disagreements: tuple[str, ...] = ()  # escaped lines


def agents_of(labels: Iterable[str]) -> tuple[str, ...]:
    """The agents' display names the lanes in `labels` show, in order of appearance."""
    return tuple(dict.fromkeys(a for label in labels if (a := lanes.agent_label(label))))


def view(report: ReportInput, index: CaseIndex) -> AgentsView:
    agents = agents_of(c.model for c in report.aggregate.cases)
    if len(agents) < 2:
        return AgentsView()
    return AgentsView(agents, _groups(report, index, agents), _disagreements(report, index))


def plain(label: str) -> str:
    """A lane's plain model."""
    return label.rpartition(lanes.SEP)[0] if lanes.SEP in label else label


def _groups(
    report: ReportInput, index: CaseIndex, agents: tuple[str, ...]
) -> tuple[AgentGroup, ...]:
    by_key: dict[tuple[str, str], dict[str, GroupStats]] = {}
    for g in report.aggregate.suites:
        label = g.model or ""
        by_key.setdefault((g.suite or "", plain(label)), {})[lanes.agent_label(label)] = g
    out = []
    for (rel, model), per_agent in by_key.items():
        cells = tuple(_cell(report, per_agent.get(agent)) for agent in agents)
        out.append(AgentGroup(cell(index.suite_label(rel), 60), cell(model, 60), cells))
    return tuple(out)


def _cell(report: ReportInput, g: GroupStats | None) -> tuple[str, str]:
    if g is None:
        return ("—", "not run")
    base = "—" if g.base_rate is None else pct(g.base_rate)
    head = "—" if g.head_rate is None else pct(g.head_rate)
    rates = f"{base} → {head}" if report.has_base else head
    return rates, group_verdict(report, g) if report.has_base else "—"


def _disagreements(report: ReportInput, index: CaseIndex) -> tuple[str, ...]:
    """A line per (case, model) whose verdict is not the same on every agent."""
    by_case: dict[tuple[str, str, str], list[CaseStats]] = {}
    for c in report.aggregate.cases:
        if lanes.agent_label(c.model):
            by_case.setdefault((c.suite, c.case_id, plain(c.model)), []).append(c)
    lines = []
    for (_, _, model), rows in by_case.items():
        if len({c.label for c in rows}) < 2:
            continue
        said = ", ".join(
            f"{_WORDS.get(c.label, c.label.value)} on {lanes.agent_label(c.model)}" for c in rows
        )
        several = len({plain(c.model) for c in report.aggregate.cases}) > 1
        on_model = f" ({cell(model, 60)})" if several else ""
        lines.append(f"{index.name(rows[0])}{on_model}: {said}.")
    if len(lines) > MAX_DISAGREEMENTS:
        more = len(lines) - MAX_DISAGREEMENTS
        lines = [*lines[:MAX_DISAGREEMENTS], f"and {more} more in results.json."]
    return tuple(lines)


def notes(report: ReportInput) -> tuple[str, ...]:
    """In a job of one agent, a line per skill that ran on the agent whose folder holds it
    (`pipeline.agents.at_home`), so the reader knows why its rows name an agent."""
    if len(agents_of(c.model for c in report.aggregate.cases)) > 1:
        return ()
    homes = {r.suite: r.agent for r in report.runs if r.agent}
    out = []
    for rel, agent in sorted(homes.items()):
        folder = "/".join(rel.split("/")[:2])
        out.append(
            f"{code(rel, 80)} sits in `{folder}`, {lanes.display(agent)}'s own skills folder:"
            f" its runs went through {lanes.display(agent)}."
        )
    return tuple(out)
