"""The keys of an agentv suite, test and `execution:` block, and what happens to each.

Every key some generation defines is in one of three sets: read (by the loader), without
effect here by design (the target, provider and concurrency choices belong to the action's
inputs, labels change no verdict), or not supported (an error saying why, because ignoring it
would grade something else than the author meant). Any other key gets a warning, so a typo or
a newer AgentV feature is never dropped without a word.
"""

from __future__ import annotations

from typing import Any

from evolve_action.formats.agentv.common import At, Src

SUITE_READ = frozenset(
    {
        *("name", "description", "dataset", "metadata", "execution", "workspace", "threshold"),
        *("tests", "evalcases", "eval_cases", "cases", "assertions", "assert", "evaluator"),
        *("prompts", "input", "input_files", "default_test", "$schema", "version"),
        *("environment", "defaults"),  # AgentV 5
    }
)
SUITE_NO_EFFECT = frozenset(
    {
        *("target", "providers", "tags", "category", "author", "license", "requires"),
        *("evaluate_options", "note", "governance"),
    }
)
CASE_READ = frozenset(
    {
        *("id", "name", "description", "criteria", "expected_outcome", "outcome", "note"),
        *("input", "input_messages", "input_files", "expected_output", "expected_messages"),
        *("vars", "rubrics", "assertions", "assert", "evaluators", "execution", "workspace"),
        *("metadata", "conversation_id", "threshold", "reference_answer"),
    }
)
CASE_NO_EFFECT = frozenset({"suite", "tags", "category", "target", "governance"})
EXECUTION_READ = frozenset(
    {"timeout_seconds", "threshold", "evaluators", "skip_defaults", "trials", "assertions"}
)
EXECUTION_NO_EFFECT = frozenset(
    {
        *("target", "targets", "workers", "cache", "budget_usd", "budgetUsd"),
        *("fail_on_error", "failOnError", "max_retries", "agent_timeout"),
    }
)
DEFAULT_TEST_READ = frozenset({"vars", "assert", "threshold"})
DEFAULTS_READ = frozenset({"system_message"})
DEFAULTS_NO_EFFECT = frozenset({"provider", "grader", "providers", "target"})
# key → why it is not supported, and what to do instead
UNSUPPORTED = {
    "preprocessors": "preprocessors run commands that turn the agent's output files into text"
    " for the graders; they are not supported yet: grade the files with a code-grader instead",
    "turns": "conversation mode (`turns:`) is not supported yet: write the earlier turns as"
    " input messages and grade the last answer",
    "depends_on": "test dependencies are not supported: every case runs on its own; remove"
    " depends_on",
    "options": "`options` other than rubric_prompt (a provider's settings, transforms) are not"
    " supported yet; remove them",
}
# key → why it is read but has no effect here (a warning, since the author meant something)
NOT_APPLIED = {
    "extensions": "extensions (agentv:agent-rules) are not applied: the agent gets the skill"
    " under test and the workspace files, not AgentV's extra rules, hooks or agents",
}
_SCOPES = {
    "suite": (SUITE_READ, SUITE_NO_EFFECT),
    "case": (CASE_READ, CASE_NO_EFFECT | {"mode", "aggregation", "on_turn_failure"}),
    "execution": (EXECUTION_READ, EXECUTION_NO_EFFECT),
    "default_test": (DEFAULT_TEST_READ, frozenset()),
    "defaults": (DEFAULTS_READ, DEFAULTS_NO_EFFECT),
}


def check_keys(src: Src, mapping: dict[str, Any], *, at: At = (), scope: str = "suite") -> None:
    """Report the keys of `mapping` that are not supported (errors) or unknown (warnings)."""
    read, no_effect = _SCOPES[scope]
    for key in mapping:
        if key in read or key in no_effect:
            continue
        if key == "options" and _only_rubric_prompt(mapping[key]):
            src.warn(
                (*at, key, "rubric_prompt"),
                "not applied: rubric items are graded one by one with evolve-action's judge"
                " prompt, which shows the judge the input, each rubric and the answer",
            )
        elif key in UNSUPPORTED:
            src.error((*at, key), UNSUPPORTED[key])
        elif key in NOT_APPLIED and scope == "suite":
            src.warn((*at, key), NOT_APPLIED[key])
        elif key in ("on_dependency_failure", "window_size"):
            continue  # reported with the key it belongs to (depends_on, turns)
        else:
            src.warn((*at, key), f"unknown {scope} key {key!r} is ignored; check its spelling")
    execution = mapping.get("execution")
    if scope in ("suite", "case") and isinstance(execution, dict):
        check_keys(src, execution, at=(*at, "execution"), scope="execution")
    if scope == "case" and mapping.get("mode") == "conversation" and "turns" not in mapping:
        src.error((*at, "mode"), UNSUPPORTED["turns"])


def _only_rubric_prompt(options: Any) -> bool:
    return isinstance(options, dict) and set(options) == {"rubric_prompt"}
