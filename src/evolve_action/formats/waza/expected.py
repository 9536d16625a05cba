"""A waza task's `expected` block as checks: the output's strings (`output_contains`,
`output_not_contains`, `output_contains_any`), `should_trigger`, `behavior` limits and the
`task_completed` outcome. waza 0.35's spellings (`output_excludes`, `skill_activated`) are the
same checks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.graders.fields import At
from evolve_action.formats.graders.params import Activation, Grader
from evolve_action.formats.waza.graders import behavior_rules, text_conditions
from evolve_action.formats.waza.params import behavior_params, text_params
from evolve_action.model.evals import Check, CheckParams, Item
from evolve_action.util.text import json_kind

# Each `output_*` key and the text condition it is.
OUTPUT_KEYS = {
    "output_contains": "contains",
    "output_not_contains": "not_contains",
    "output_contains_any": "contains_any",
}
# A reader takes the problems, where the block is, the block and the skill's name.
Reader = Callable[[Problems, At, dict[str, Any], str], Check | None]


def expected_items(problems: Problems, at: At, value: Any, skill: str) -> list[Item]:
    """A task's `expected`: output strings, `should_trigger`, `behavior`, `outcomes`."""
    if value is None:
        return []
    if not isinstance(value, dict):
        problems.error(at, f"must be a mapping, not {json_kind(value)}")
        return []
    value = _spelled_as_before(value)
    found = [reader(problems, at, value, skill) for reader in READERS]
    for key in value:
        if key not in (*OUTPUT_KEYS, "should_trigger", "behavior", "outcomes"):
            problems.warn((*at, key), f"not graded: expected.{key} is not read yet")
    return [item for item in found if item is not None]


def _spelled_as_before(value: dict[str, Any]) -> dict[str, Any]:
    """waza 0.35 spells `output_not_contains` as `output_excludes` and `should_trigger` as
    `skill_activated`: the same checks."""
    out = dict(value)
    for new, old in (
        ("output_excludes", "output_not_contains"),
        ("skill_activated", "should_trigger"),
    ):
        if new in out and old not in out:
            out[old] = out.pop(new)
    return out


def _check(
    problems: Problems, at: At, name: str, kind: str, said: str, params: CheckParams,
    source: str = "grader",
) -> Check:  # fmt: skip
    origin = problems.origin(*at)
    return Check(f"expected.{name}", kind, said, origin, params, group="expected", source=source)


def _output(problems: Problems, at: At, value: dict[str, Any], skill: str) -> Check | None:
    config = {ours: value[key] for key, ours in OUTPUT_KEYS.items() if value.get(key) is not None}
    if not config:
        return None
    found = text_conditions(problems, at, config)
    if found is None:
        return None
    return _check(problems, at, "output", "waza.text", "expected output", text_params(found))


def _trigger(problems: Problems, at: At, value: dict[str, Any], skill: str) -> Check | None:
    should = value.get("should_trigger")
    if not isinstance(should, bool):
        return None
    said = f"skill {skill} {'fires' if should else 'does not fire'}"
    params = Activation(skill=skill, expected=should)
    return _check(
        problems, at, "should_trigger", "vally.activation", said, params, "expect_activation"
    )


def _behavior(problems: Problems, at: At, value: dict[str, Any], skill: str) -> Check | None:
    if not isinstance(value.get("behavior"), dict):
        return None
    rules = behavior_rules(problems, (*at, "behavior"), value["behavior"])
    if not rules:
        return None
    params = behavior_params(rules)
    return _check(problems, at, "behavior", "waza.behavior", "expected behavior", params)


def _completed(problems: Problems, at: At, value: dict[str, Any], skill: str) -> Check | None:
    outcomes = value.get("outcomes") or []
    if not any(isinstance(o, dict) and o.get("type") == "task_completed" for o in outcomes):
        return None
    return _check(problems, at, "task_completed", "vally.completed", "task completed", Grader())


# In the order the items are listed (and graded).
READERS: tuple[Reader, ...] = (_output, _trigger, _behavior, _completed)
