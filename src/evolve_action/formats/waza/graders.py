"""waza graders (schemas/task.schema.json `validatorInline`) as checks and judge items (a
task's `expected` block, read in `expected.py`, shares their text and behavior conditions).

One waza grader is one item, scored by the share of its conditions that hold and passing
when all do, weighted by its `weight`. `text`, `keyword`, `file`, `behavior`,
`tool_constraint`, `action_sequence`, `skill_invocation` and `code` (Python assertions, run
confined as AgentV's code graders are) are checks; `prompt` / `llm` are pass/fail judge items.
`json_schema`, `program`, `diff`, `llm_comparison` and `human` are rejected with the reason.
"""

from __future__ import annotations

import re
from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.graders.fields import At, grader_head, js_regex, strings, text
from evolve_action.formats.graders.gates import TOOLS
from evolve_action.formats.waza.params import (
    CodeParams,
    SequenceParams,
    ToolParams,
    behavior_params,
    file_params,
    text_params,
)
from evolve_action.formats.waza.tool_calls import tool_calls_params
from evolve_action.model.evals import Check, CheckParams, Item, JudgeItem, Scale
from evolve_action.util.text import json_kind

TEXT_KEYS = ("contains", "not_contains", "contains_cs", "not_contains_cs")
REGEX_KEYS = ("regex_match", "regex_not_match")
BEHAVIOR_INTS = (
    "max_tool_calls",
    "max_tokens",
    "max_duration_ms",
    "max_iterations",
    "max_mcp_calls",
)
# An MCP server's name as a glob's literal: the check matches `mcp__<server>__*`.
SERVER_NAME = re.compile(r"[A-Za-z0-9_.-]+")
UNSUPPORTED = {
    "json_schema": "validates the output against a JSON Schema, which is not supported yet",
    "program": "runs an external grader program, which is not supported yet",
    "script": "runs an external grader script, which is not supported yet",
    "diff": "compares the workspace with expected files, which is not supported yet",
    "llm_comparison": "compares with a reference output; write the reference into a `prompt`"
    " grader's rubric instead",
    "human": "needs a human reviewer; a pull-request check cannot wait for one",
}
SEQUENCE_MODES = ("exact_match", "in_order_match", "any_order_match", "in_order", "exact", "any")


def grader_items(problems: Problems, at: At, value: Any, prefix: str = "") -> list[Item]:
    if value is None:
        return []
    if not isinstance(value, list):
        problems.error(at, f"must be a list of graders, not {json_kind(value)}")
        return []
    items: list[Item] = []
    for j, raw in enumerate(value):
        item = _grader(problems, (*at, j), raw, f"{prefix}{j + 1}")
        if item is not None:
            items.append(item)
    return items


def _grader(problems: Problems, at: At, raw: Any, number: str) -> Item | None:
    head = grader_head(problems, at, raw)
    if head is None:
        return None
    kind, config = head
    name = raw.get("name") if isinstance(raw.get("name"), str) and raw.get("name") else ""
    item_id = name or f"{kind}-{number}"
    weight = raw.get("weight", 1.0)
    if isinstance(weight, bool) or not isinstance(weight, int | float) or weight < 0:
        problems.error((*at, "weight"), f"must be a number ≥ 0, not {weight!r}")
        return None
    origin = problems.origin(*at)
    if kind in ("prompt", "llm"):
        rubric = raw.get("rubric") or config.get("prompt") or config.get("rubric")
        said = text(problems, (*at, "rubric"), rubric)
        if said is None:
            return None
        if config.get("model") or raw.get("model"):
            problems.warn(at, "not applied: the `judge-model` input chooses the judge")
        return JudgeItem(
            item_id,
            said.strip(),
            origin,
            Scale.BINARY,
            kind="rubric",
            weight=float(weight),
            group=kind,
            source="grader",
        )
    if kind in UNSUPPORTED:
        problems.warn((*at, "type"), f"grader {kind!r} is not run here: it {UNSUPPORTED[kind]}")
        return None
    if kind == "code" and "assertions" in raw and "assertions" not in config:
        config = {**config, "assertions": raw["assertions"]}
    params = _params(problems, (*at, "config"), kind, config)
    if params is None:
        return None
    return Check(
        item_id,
        f"waza.{'text' if kind in ('regex', 'keyword') else kind}",  # one kind grades all three
        f"{kind} {item_id}",
        origin,
        params,
        weight=float(weight),
        group=kind,
        source="grader",
    )


def _params(problems: Problems, at: At, kind: str, config: dict[str, Any]) -> CheckParams | None:
    if kind in ("text", "regex", "keyword"):
        if kind == "keyword":  # must_contain / must_not_contain, case-insensitive
            config = {
                "contains": config.get("must_contain"),
                "not_contains": config.get("must_not_contain"),
            }
        if kind == "regex":  # the older `regex` grader: must_match / must_not_match
            config = {
                "regex_match": config.get("must_match", config.get("patterns")),
                "regex_not_match": config.get("must_not_match"),
            }
        found = text_conditions(problems, at, config)
        return None if found is None else text_params(found)
    if kind == "file":
        files = _file(problems, at, config)
        return None if files is None else file_params(files)
    if kind == "behavior":
        rules = behavior_rules(problems, at, config)
        return None if rules is None else behavior_params(rules)
    if kind == "tool_constraint":
        expect, reject = (
            tuple(_tools(problems, (*at, k), config.get(k)))
            for k in ("expect_tools", "reject_tools")
        )
        return ToolParams(expect, reject)
    if kind == "tool_calls":
        return tool_calls_params(problems, at, config)
    if kind == "action_sequence":
        mode = config.get("matching_mode", "in_order_match")
        if mode not in SEQUENCE_MODES:
            problems.error((*at, "matching_mode"), f"must be one of {', '.join(SEQUENCE_MODES)}")
            return None
        actions = _tools(problems, (*at, "expected_actions"), config.get("expected_actions"))
        return SequenceParams(mode, tuple(actions))
    if kind == "skill_invocation":
        skills = strings(problems, (*at, "required_skills"), config.get("required_skills", []))
        mode = config.get("mode", "in_order")
        return SequenceParams(
            str(mode), tuple(skills or ()), config.get("allow_extra", True) is not False
        )
    if kind == "code":
        assertions = strings(problems, (*at, "assertions"), config.get("assertions"))
        language = config.get("language", "python")
        if language != "python":
            problems.error((*at, "language"), f"code graders run Python here, not {language!r}")
            return None
        return None if not assertions else CodeParams(tuple(assertions))
    problems.error(
        (*at[:-1], "type"),
        f"unknown grader type {kind!r}; use text, keyword, file, behavior, tool_constraint,"
        " action_sequence, skill_invocation, code or prompt",
    )
    return None


def text_conditions(problems: Problems, at: At, config: dict[str, Any]) -> dict[str, Any] | None:
    params: dict[str, Any] = {}
    for key in (*TEXT_KEYS, *REGEX_KEYS, "contains_any"):
        if config.get(key) is not None:
            params[key] = strings(problems, (*at, key), config[key]) or []
    for key in REGEX_KEYS:
        patterns = []
        for j, pattern in enumerate(params.get(key, [])):
            translated, why = js_regex(pattern)
            if why is not None:
                problems.error((*at, key, j), why)
                return None
            patterns.append(translated)
        if patterns:
            params[key] = patterns
    if not params:
        problems.error(
            at, f"names no condition; give one of {', '.join((*TEXT_KEYS, *REGEX_KEYS))}"
        )
        return None
    return params


def _file(problems: Problems, at: At, config: dict[str, Any]) -> dict[str, Any] | None:
    params: dict[str, Any] = {
        "must_exist": strings(problems, (*at, "must_exist"), config.get("must_exist", [])) or [],
        "must_not_exist": strings(
            problems, (*at, "must_not_exist"), config.get("must_not_exist", [])
        )
        or [],
        "patterns": [],
    }
    for j, entry in enumerate(config.get("content_patterns") or []):
        where = (*at, "content_patterns", j)
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            problems.error(where, "a content pattern is {path, must_match, must_not_match}")
            return None
        rule: dict[str, Any] = {"path": entry["path"]}
        for key in ("must_match", "must_not_match"):
            found = []
            for k, pattern in enumerate(strings(problems, (*where, key), entry.get(key, [])) or []):
                translated, why = js_regex(pattern)
                if why is not None:
                    problems.error((*where, key, k), why)
                    return None
                found.append(translated)
            rule[key] = found
        params["patterns"].append(rule)
    return params


def behavior_rules(problems: Problems, at: At, config: dict[str, Any]) -> dict[str, Any] | None:
    params: dict[str, Any] = {}
    for key in BEHAVIOR_INTS:
        value = config.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            problems.error((*at, key), f"must be a whole number, not {value!r}")
            return None
        params[key] = value
    if config.get("max_response_time_ms") is not None:  # older spelling of max_duration_ms
        params["max_duration_ms"] = config["max_response_time_ms"]
    for key, ours in (("required_tools", "expect_tools"), ("forbidden_tools", "reject_tools")):
        if config.get(key) is not None:
            params[ours] = _tools(problems, (*at, key), config[key])
    for key, ours in (("required_mcp_servers", "expect_servers"),
                      ("forbidden_mcp_servers", "reject_servers")):  # fmt: skip
        if config.get(key) is not None:
            params[ours] = _servers(problems, (*at, key), config[key])
    return params


def _servers(problems: Problems, at: At, value: Any) -> list[str]:
    """MCP server names, as `config.mcp_servers` names them; a name no MCP client accepts
    (a space, a glob character) is an error, since it could match no call."""
    names = strings(problems, at, value) or []
    for j, name in enumerate(names):
        if not SERVER_NAME.fullmatch(name):
            problems.error((*at, j), f"{name!r} is not an MCP server's name (letters, digits,"
                           " `_`, `-`, `.`)")  # fmt: skip
    return [n for n in names if SERVER_NAME.fullmatch(n)]


def _tools(problems: Problems, at: At, value: Any) -> list[str]:
    """Copilot's tool names (view, edit, bash, ...) as the agent's tools here."""
    if value is None:
        return []
    names = strings(problems, at, value) or []
    mapped = []
    for name in names:
        ours = TOOLS.get(name.lower())
        if ours is None:
            problems.warn(at, f"not applied: the agent here has no tool like {name!r}")
            continue
        mapped.append(ours)
    return mapped
