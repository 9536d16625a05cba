"""A lane: one model on one agent CLI, when a job runs several agents (the `agents` input).

Every count the verdict keeps is per (suite, case, model); with several agents the agent is
one more dimension of that identity. Rather than widen every key, the report path names a
lane in the model's place (`anthropic/claude-sonnet-4-6 · Copilot`): each lane is then its own
row, its own group, and its own member of the family the false-alarm rate is held over, and
a lane's runs never mix with another agent's. A run keeps its plain model and its `agent`; a
results record is written with both (`model_of`), so reading one back and labelling it again
gives the same lane. A job of one agent has no lanes: its runs carry no agent at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from evolve_action.model.outcomes import RunResult

SEP = " · "  # a model id never holds a space

# How reports name each agent CLI; a name not here is shown as registered.
DISPLAY = {
    "claude": "Claude Code",
    "codex": "Codex",
    "copilot": "Copilot",
    "opencode": "OpenCode",
    "gemini": "Gemini CLI",
}


def display(agent: str) -> str:
    return DISPLAY.get(agent, agent)


def lane(model: str, agent: str) -> str:
    """The model's place in the report: the model itself, or the model on `agent`."""
    if not agent or model.endswith(SEP + display(agent)):
        return model
    return f"{model}{SEP}{display(agent)}"


def model_of(label: str, agent: str) -> str:
    """The plain model of a lane (`lane`'s inverse)."""
    suffix = SEP + display(agent)
    return label[: -len(suffix)] if agent and label.endswith(suffix) else label


def agent_label(label: str) -> str:
    """The agent's display name in a lane, "" for a plain model."""
    return label.rpartition(SEP)[2] if SEP in label else ""


def parts(label: str) -> tuple[str, str]:
    """A lane's plain model and agent CLI (`lane`'s inverse; "" for the agent of a model)."""
    model, sep, shown = label.rpartition(SEP)
    if not sep:
        return label, ""
    names = {v: k for k, v in DISPLAY.items()}
    return model, names.get(shown, shown)


def fields(label: str | None) -> dict[str, str | None]:
    """A summary row's `model` as results.json writes it: the plain model, and for a lane its
    `agent` apart, so a reader needs no knowledge of how lanes are labelled. A job of one
    agent writes `model` alone, as it always did."""
    if label is None:
        return {"model": None}
    model, agent = parts(label)
    return {"model": model, "agent": agent} if agent else {"model": model}


def relabel(runs: Iterable[RunResult]) -> list[RunResult]:
    """`runs` with each one's model replaced by its lane (unchanged when it has no agent)."""
    return [replace(r, model=lane(r.model, r.agent)) if r.agent else r for r in runs]
