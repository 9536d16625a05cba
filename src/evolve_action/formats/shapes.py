"""Tell an eval file's format by its shape, not by its name alone.

`eval.yaml` means Vally (`stimuli:`), waza (`tasks:`), skill-validator (`scenarios:`) or AgentV
(`tests:`); CI workflows are named `eval.yml` too, mcpchecker keeps `kind: Eval` documents in
`evals/`, and other tools keep lists in an `evals.yaml`. A file whose name matches one of our
conventions but whose content is another tool's (or no eval at all) is not an error of its
author's: it gets a one-line notice saying what it looks like, and nothing runs from it.

A document that carries any key of the format its name implies stays that format, so a broken
file of ours still gets that format's errors, which say what to fix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from evolve_action.formats.agentv.keys import (
    CASE_NO_EFFECT,
    CASE_READ,
    SUITE_NO_EFFECT,
    SUITE_READ,
    UNSUPPORTED,
)
from evolve_action.model.evals import Format

NOT_OURS = "not an eval file of a format evolve-action reads"
AGENT_PROVIDERS = ("anthropic:claude-agent-sdk", "openai:codex-sdk")  # promptfoo's skill SDKs
AGENTV_CASE_LISTS = ("tests", "evalcases", "eval_cases", "cases")
AGENTV_SUITE_KEYS = SUITE_READ | SUITE_NO_EFFECT | frozenset(UNSUPPORTED)
AGENTV_CASE_KEYS = CASE_READ | CASE_NO_EFFECT
# evolve / skill-creator / skill-evaluator evals files and trigger sets.
EVOLVE_FILE_KEYS = frozenset(
    {"skill_name", "models", "evals", "eval_config", "cases", "test_cases", "tests", "evalcases"}
)
EVOLVE_CASE_KEYS = frozenset(
    {"id", "name", "prompt", "expected_output", "files", "expectations", "assertions"}
)
TRIGGER_FILE_KEYS = frozenset({"skill_name", "triggers", "queries", "evals"})
TRIGGER_CASE_KEYS = frozenset({"query", "should_trigger", "prompt"})


@dataclass(frozen=True, slots=True)
class Foreign:
    """A file named like one of ours that is something else: what it looks like, and why."""

    looks_like: str  # "a Vally file", ..., or NOT_OURS
    because: str  # the shape that says so, e.g. "it has `stimuli:`"

    def notice(self, named_as: Format) -> str:
        """The one line a user reads: what the file is, why, and that nothing fails for it."""
        what = self.looks_like if self.looks_like == NOT_OURS else f"this is {self.looks_like}"
        return (
            f"not read: {what} ({self.because}), though its name is one {named_as.value} uses;"
            " nothing runs from it and no check fails for it"
        )


def is_vally(data: Any) -> bool:
    """A Vally eval spec: `stimuli:` and no AgentV case list (`eval.yaml` is both tools')."""
    return (
        isinstance(data, dict)
        and "stimuli" in data
        and not any(k in data for k in AGENTV_CASE_LISTS)
    )


def is_skill_validator(data: Any) -> bool:
    """A dotnet skill-validator file: `scenarios:` and no AgentV case list."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("scenarios"), list)
        and not any(k in data for k in AGENTV_CASE_LISTS)
    )


def is_waza(data: Any) -> bool:
    """A waza eval: `tasks:` (task file patterns) and no AgentV case list."""
    return (
        isinstance(data, dict)
        and waza_tasks(data.get("tasks"))
        and not any(k in data for k in AGENTV_CASE_LISTS)
    )


def waza_tasks(tasks: Any) -> bool:
    """waza's `tasks:` lists file globs (or `{include: glob}`); other tools' `tasks:` lists
    inline tasks (skillgrade's `instruction`, caliper's `prompt`)."""
    return isinstance(tasks, list) and (
        not tasks
        or any(isinstance(t, str) or (isinstance(t, dict) and "include" in t) for t in tasks)
    )


def foreign(data: Any, fmt: Format) -> Foreign | None:
    """What a document named as `fmt` is when its shape is not `fmt`'s, else None."""
    if isinstance(data, dict) and data:
        known = _other_tool(data)
        if fmt is Format.AGENTV:
            if any(k in data for k in AGENTV_CASE_LISTS):
                return None
            if known is not None:
                return known
            return None if _any_key(data, AGENTV_SUITE_KEYS) else _no_keys_of(fmt)
        if fmt in (Format.EVOLVE, Format.SKILL_EVALUATOR):
            ours = _any_key(data, EVOLVE_FILE_KEYS)
        elif fmt is Format.TRIGGERS:
            ours = _any_key(data, TRIGGER_FILE_KEYS)
        else:
            return None
        if ours:
            return None
        return known or _no_keys_of(fmt)
    if isinstance(data, list) and data:
        return _foreign_list(data, fmt)
    return None


def foreign_promptfoo(data: Any, agent_providers: tuple[str, ...]) -> Foreign | None:
    """A promptfoo config is ours when it tests a skill through an agent SDK provider."""
    providers = data.get("providers") if isinstance(data, dict) else None
    entries = providers if isinstance(providers, list) else [providers]
    ids = [p.get("id") if isinstance(p, dict) else p for p in entries]
    if any(i in agent_providers for i in ids):
        return None
    return Foreign(
        "a promptfoo config for model prompts, not a skill",
        f"no provider is {' or '.join(agent_providers)}",
    )


def _other_tool(data: dict[Any, Any]) -> Foreign | None:
    """The skill tools and CI files whose documents share our file names."""
    if "jobs" in data and ("on" in data or True in data):
        return Foreign("a GitHub workflow", "it has `on:` and `jobs:`")
    if data.get("kind") == "Eval":
        return Foreign("mcpchecker `kind: Eval`", "it has `kind: Eval`")
    if "stimuli" in data:
        return Foreign("a Vally file", "it has `stimuli:`")
    if "tasks" in data or "trigger_tests" in data:
        return Foreign("a waza file", "it has `tasks:`")
    if "scenarios" in data:
        return Foreign("a skill-validator file", "it has `scenarios:`")
    return None


def _foreign_list(data: list[Any], fmt: Format) -> Foreign | None:
    """A top-level list: ours when its items carry keys of our cases (AgentV's bare case
    list, skill-creator's trigger list); anything else is another tool's list."""
    keys = {
        Format.AGENTV: AGENTV_CASE_KEYS,
        Format.EVOLVE: EVOLVE_CASE_KEYS | TRIGGER_CASE_KEYS,
        Format.SKILL_EVALUATOR: EVOLVE_CASE_KEYS,
        Format.TRIGGERS: TRIGGER_CASE_KEYS,
    }.get(fmt)
    if keys is None:
        return None
    items = [x for x in data if isinstance(x, dict)]
    if len(items) != len(data) or any(_any_key(x, keys) for x in items):
        return None
    return Foreign(NOT_OURS, f"a list of items without a key of {fmt.value}'s cases")


def _no_keys_of(fmt: Format) -> Foreign:
    return Foreign(NOT_OURS, f"it has none of {fmt.value}'s keys")


def _any_key(data: dict[Any, Any], keys: Iterable[str]) -> bool:
    return any(k in data for k in keys)


# --- how sure: the evidence that a document is of the format it is read as ----------------
#
# A loader's errors fail a check only when the file is surely of its format: its own
# `$schema`, a key only that format uses, or `.evolve.yaml` naming it. A file that a shared
# name (`eval.yaml`, `*.eval.yaml`, `evals.json`) alone put in a format and that the format
# cannot read may be another tool's: its problems are warnings and it is reported as not run.


def certain(data: Any, fmt: Format) -> bool:
    """True when the document shows it is `fmt`'s by its `$schema` or a distinctive key;
    formats found by a name only they use are certain by that name."""
    if isinstance(data, dict) and _schema_names(data.get("$schema"), fmt):
        return True
    test = _DISTINCTIVE.get(fmt)
    return True if test is None else test(data)


def _schema_names(schema: Any, fmt: Format) -> bool:
    if not isinstance(schema, str):
        return False
    token = fmt.value.replace("-", "").lower()
    return token in schema.replace("-", "").replace("_", "").lower()


def _has_list(data: Any, *keys: str) -> bool:
    return isinstance(data, dict) and any(isinstance(data.get(k), list) for k in keys)


def _items_with(data: Any, keys: frozenset[str]) -> bool:
    items = data if isinstance(data, list) else []
    return bool(items) and all(isinstance(x, dict) and _any_key(x, keys) for x in items)


def _evolve_like(data: Any) -> bool:
    if isinstance(data, dict):
        return _has_list(data, "evals", "cases", "test_cases") or _any_key(
            data, ("skill_name", "eval_config")
        )
    return _items_with(data, EVOLVE_CASE_KEYS)


def _triggers(data: Any) -> bool:
    if isinstance(data, dict):
        return _has_list(data, "triggers", "queries", "evals")
    return _items_with(data, frozenset({"should_trigger"}))


def _agentv(data: Any) -> bool:
    return (isinstance(data, dict) and _any_key(data, AGENTV_CASE_LISTS)) or _items_with(
        data, AGENTV_CASE_KEYS
    )


def _waza(data: Any) -> bool:
    return is_waza(data) or _has_list(data, "should_trigger_prompts", "should_not_trigger_prompts")


_DISTINCTIVE: dict[Format, Callable[[Any], bool]] = {
    Format.AGENTV: _agentv,
    Format.VALLY: lambda d: isinstance(d, dict) and "stimuli" in d,
    Format.SKILL_VALIDATOR: lambda d: _has_list(d, "scenarios"),
    Format.WAZA: _waza,
    Format.EVOLVE: _evolve_like,
    Format.SKILL_EVALUATOR: _evolve_like,
    Format.TRIGGERS: _triggers,
}
