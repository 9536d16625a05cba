"""An agentv suite's defaults for its cases: graders, limits, prompt, shared input, vars.

Each generation put them elsewhere: `execution.evaluators` (AgentV 2, replaced by a case's
own list), `assertions` / `assert` (AgentV 4 and 5, run after a case's own), `prompts`,
`input` and `input_files`, and AgentV 5's `default_test` and `defaults` (inline, or in a file
named by `file://`). `execution.trials.count` is how often each case runs.
"""

from __future__ import annotations

from typing import Any

from evolve_action.formats.agentv.case import Defaults
from evolve_action.formats.agentv.common import At, Src, number, resolve_file
from evolve_action.formats.agentv.composite import Evaluator
from evolve_action.formats.agentv.evaluators import parse_list
from evolve_action.formats.agentv.input import Prompt, preset_of
from evolve_action.formats.agentv.keys import check_keys
from evolve_action.formats.agentv.template import prompt_template
from evolve_action.formats.agentv.tests import read_src
from evolve_action.util.text import json_kind


def suite_defaults(src: Src, settings: dict[str, Any], sources: list[Src]) -> Defaults:
    execution = settings.get("execution", {})
    if not isinstance(execution, dict):
        src.error(("execution",), "must be a mapping (target, timeout_seconds, threshold)")
        execution = {}
    evaluators: tuple[Evaluator, ...] = ()
    append = False
    if "assertions" in settings:  # AgentV 4: these run after each case's own
        evaluators, append = parse_list(src, ("assertions",), settings["assertions"]), True
    elif "assert" in settings:
        evaluators, append = parse_list(src, ("assert",), settings["assert"]), True
    elif "evaluators" in execution:  # AgentV 2: these run unless a case lists its own
        evaluators = parse_list(src, ("execution", "evaluators"), execution["evaluators"])
    if isinstance(settings.get("evaluator"), str) and settings["evaluator"] not in (
        "llm_judge",
        "llm-grader",
        "llm_grader",
    ):
        src.warn(("evaluator",), "ignored: only an LLM judge can be a default evaluator kind")
    timeout = None
    if "timeout_seconds" in execution:
        where = ("execution", "timeout_seconds")
        timeout = number(src, where, execution["timeout_seconds"], lo=1, hi=3600, integer=True)
    preset = preset_of(src, settings, _system_message(src, settings, sources))
    variables, threshold, more = _default_test(src, settings, sources)
    if more:
        evaluators, append = (*evaluators, *more), True
    return Defaults(
        evaluators=evaluators,
        append=append,
        timeout_s=timeout,
        prompt=_prompt(src, settings),
        preset=preset,
        variables=variables,
        threshold=threshold,
    )


def _system_message(src: Src, settings: dict[str, Any], sources: list[Src]) -> str | None:
    """AgentV 5 `defaults:` (inline, or `file://` a YAML file): its `system_message` is every
    test's system prompt; its provider and grader choices belong to the action's inputs."""
    if "defaults" not in settings:
        return None
    found = mapping_or_file(src, ("defaults",), settings["defaults"], sources)
    if found is None:
        return None
    holder, at, value = found
    check_keys(holder, value, at=at, scope="defaults")
    message = value.get("system_message")
    if message is not None and not isinstance(message, str):
        holder.error((*at, "system_message"), "must be the system prompt, a string")
        return None
    return message


def mapping_or_file(
    src: Src, at: At, value: Any, sources: list[Src]
) -> tuple[Src, At, dict[str, Any]] | None:
    """A mapping written inline, or in the YAML file a `file://` string names."""
    holder = src
    if isinstance(value, str):
        path = resolve_file(src, at, value.removeprefix("file://"))
        other = read_src(src, path, path.relative_to(src.root).as_posix()) if path else None
        if other is None:
            return None
        sources.append(other)
        value, holder, at = other.doc.data, other, ()
    if not isinstance(value, dict):
        holder.error(at, f"must be a mapping, or a file:// path to one; not {json_kind(value)}")
        return None
    return holder, at, value


def _default_test(
    src: Src, settings: dict[str, Any], sources: list[Src]
) -> tuple[dict[str, Any] | None, float | None, tuple[Evaluator, ...]]:
    """AgentV 5 `default_test:` (inline, or `file://` a YAML file): vars every test starts
    from, graders every test adds, and the tests' threshold."""
    if "default_test" not in settings:
        return None, None, ()
    value, holder = settings["default_test"], src
    at: At = ("default_test",)
    if isinstance(value, str):
        path = resolve_file(src, at, value.removeprefix("file://"))
        other = read_src(src, path, path.relative_to(src.root).as_posix()) if path else None
        if other is None:
            return None, None, ()
        sources.append(other)
        value, holder, at = other.doc.data, other, ()
    if not isinstance(value, dict):
        holder.error(
            at, f"default_test is a mapping (vars, assert, threshold), not {json_kind(value)}"
        )
        return None, None, ()
    check_keys(holder, value, at=at, scope="default_test")
    variables = value.get("vars") if isinstance(value.get("vars"), dict) else None
    threshold = None
    if "threshold" in value:
        threshold = number(holder, (*at, "threshold"), value["threshold"], lo=0.0, hi=1.0)
    graders: tuple[Evaluator, ...] = ()
    if "assert" in value:
        graders = parse_list(holder, (*at, "assert"), value["assert"])
    return variables, threshold, graders


def _prompt(src: Src, settings: dict[str, Any]) -> Prompt | None:
    """Later files wrap each test's input in `prompts:` (usually just `{{ input }}`); AgentV 5
    writes prompt objects `{id, label, prompt | file}` whose file holds text or chat messages."""
    if "prompts" not in settings:
        return None
    prompts = settings["prompts"]
    if not isinstance(prompts, list) or not prompts:
        src.error(("prompts",), "must be a list of prompts, such as ['{{ input }}']")
        return None
    if len(prompts) > 1:
        src.warn(
            ("prompts",),
            f"{len(prompts)} prompts: only the first is used; each prompt is its own eval here,"
            " so keep one per file",
        )
    first = prompts[0]
    if isinstance(first, str):
        template = prompt_template([first])
        return None if template is None else Prompt(template)
    if not isinstance(first, dict):
        src.error(
            ("prompts", 0), f"a prompt is a string or {{id, prompt | file}}, not {json_kind(first)}"
        )
        return None
    text = first.get("prompt", first.get("raw"))
    if isinstance(text, str):
        template = prompt_template([text])
        return None if template is None else Prompt(template)
    if not isinstance(first.get("file"), str):
        src.error(("prompts", 0), "a prompt object needs `prompt:` (its text) or `file:`")
        return None
    path = resolve_file(src, ("prompts", 0, "file"), first["file"].removeprefix("file://"))
    if path is None:
        return None
    other = read_src(src, path, path.relative_to(src.root).as_posix())
    if path.suffix in (".json", ".yaml", ".yml") and other is not None:
        data = other.doc.data
        if isinstance(data, list) and all(isinstance(m, dict) and "role" in m for m in data):
            return Prompt(data)
    try:
        return Prompt(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        src.error(("prompts", 0, "file"), f"cannot read {first['file']!r}: {exc}")
        return None


def trials(src: Src, settings: dict[str, Any]) -> int | None:
    """`execution.trials.count`: how often each case runs (the action's `runs` input wins)."""
    execution = settings.get("execution")
    trials = execution.get("trials") if isinstance(execution, dict) else None
    if trials is None:
        return None
    at = ("execution", "trials")
    if not isinstance(trials, dict):
        src.error(at, f"trials is a mapping (count, strategy), not {json_kind(trials)}")
        return None
    strategy = trials.get("strategy", "pass_at_k")
    if strategy != "mean":
        src.warn(
            (*at, "strategy"),
            f"strategy {strategy!r} is not applied: every run is graded on its own and the"
            " pull request's runs are compared with its base's",
        )
    count = number(src, (*at, "count"), trials.get("count"), lo=1, hi=100, integer=True)
    return None if count is None else int(count)
