"""The gates of the grader formats: constraints on the agent's tools, skills, turns and
tokens, and `expect_activation`. Vally writes them under `constraints`, skill-validator on
the scenario itself, waza maps its tool names through `TOOLS`. A gate is not a grader: a run
that breaks one fails whatever its score (`scoring.py`).
"""

from __future__ import annotations

from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.graders.fields import At, strings
from evolve_action.formats.graders.params import Activation, Limits, grader
from evolve_action.model.evals import Check, Item, Skill
from evolve_action.util.text import json_kind

LIKERT_ANCHORS = {"1": "does not meet it", "3": "partly meets it", "5": "fully meets it"}
# Copilot's tool names, as constraints write them → the agent's tools here.
TOOLS = {
    "bash": "Bash", "powershell": "Bash", "shell": "Bash", "edit": "Edit",
    "str_replace": "Edit", "create": "Write", "write": "Write", "view": "Read",
    "read": "Read", "glob": "Glob", "grep": "Grep", "skill": "Skill", "*": "*",
}  # fmt: skip
CONSTRAINTS = ("expect_tools", "reject_tools", "reject_skills", "max_turns", "max_tokens")


def constraint_items(
    problems: Problems, at: At, value: Any, *, block: str = "constraints"
) -> tuple[list[Item], int | None]:
    """Constraint gates, and the turn limit the runner also enforces. skill-validator writes
    the same keys on the scenario itself (`block=""`)."""
    if value is None:
        return [], None
    cat = (*at, block) if block else at
    if not isinstance(value, dict):
        problems.error(cat, f"must be a mapping, not {json_kind(value)}")
        return [], None
    items: list[Item] = []
    origin = problems.origin(*cat)
    for key in value:
        if key not in CONSTRAINTS and block:
            problems.warn((*cat, key), f"unknown constraint {key!r} is ignored; check its spelling")
    tools: dict[str, list[str]] = {}
    for key in ("expect_tools", "reject_tools"):
        if value.get(key) is not None:
            tools[key] = _tools(problems, (*cat, key), value[key])
    if tools:
        said = ", ".join(f"{k} {v}" for k, v in tools.items())
        items.append(Check("constraints.tools", "vally.tools", said, origin, grader("tools", tools),
                           group="constraint", source="constraint"))  # fmt: skip
    if value.get("reject_skills") is not None:
        names = strings(problems, (*cat, "reject_skills"), value["reject_skills"]) or []
        params = {"required": [], "disallowed": names}
        items.append(Check("constraints.reject_skills", "vally.skill-invocation",
                           f"reject_skills {names}", origin, grader("skill-invocation", params),
                           group="constraint",
                           source="constraint"))  # fmt: skip
    max_turns: int | None = None
    limits: dict[str, int] = {}
    for key in ("max_turns", "max_tokens"):
        limit = value.get(key)
        if limit is None:
            continue
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            problems.error((*cat, key), f"must be a whole number ≥ 1, not {limit!r}")
            continue
        limits[key] = limit
    if "max_turns" in limits:
        max_turns = limits["max_turns"]
    if limits:
        said = ", ".join(f"{k} {v}" for k, v in limits.items())
        bounds = Limits(max_turns=limits.get("max_turns"), max_tokens=limits.get("max_tokens"))
        items.append(Check("constraints.limits", "vally.limits", said, origin, bounds,
                           group="constraint", source="constraint"))  # fmt: skip
    return items, max_turns


def _tools(problems: Problems, at: At, value: Any) -> list[str]:
    names = strings(problems, at, value) or []
    mapped: list[str] = []
    for j, name in enumerate(names):
        ours = TOOLS.get(name.lower())
        if ours is None:
            problems.warn(
                (*at, j),
                f"not applied: the agent here has no tool like Copilot's {name!r} (it has Bash,"
                " Read, Write, Edit, Glob, Grep and Skill)",
            )
            continue
        mapped.append(ours)
    return mapped


def activation_check(problems: Problems, at: At, value: Any, skill: Skill) -> Check | None:
    if not isinstance(value, bool):
        problems.error(at, f"must be true or false, not {json_kind(value)}")
        return None
    said = "fires" if value else "does not fire"
    return Check(
        "expect_activation", "vally.activation", f"skill {skill.name} {said}",
        problems.origin(*at), Activation(skill=skill.name, expected=value),
        group="activation", source="expect_activation",
    )  # fmt: skip
