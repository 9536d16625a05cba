"""agentv evaluator lists (`execution.evaluators`, `evaluators`, `assert`) → `Evaluator` specs.

Specs are parsed and validated once per list; `agentv_items.py` turns them into a case's
checks and judge items. Every generation's type names are accepted (`code_judge`,
`llm-rubric`, `icontains-any`, `skill-used`, bare strings in `assert` lists, ...).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from evolve_action.formats.agentv import params as params
from evolve_action.formats.agentv.common import (
    REQUIRED_TRUE_FLOOR,
    At,
    Src,
    number,
    required_floor,
    resolve_file,
    root_rel,
)
from evolve_action.formats.agentv.composite import CHILD_KEYS, Evaluator, composite
from evolve_action.formats.agentv.rubrics import Rubric, parse_rubrics
from evolve_action.formats.agentv.template import TEMPLATE_VARIABLES, variables_in
from evolve_action.formats.agentv.types import accepted_types, kind_of_type
from evolve_action.formats.trajectory import matchers
from evolve_action.util.text import json_kind

METRIC_KINDS = ("execution_metrics", "latency", "cost", "token_usage")
SKILL_KINDS = ("skill_used", "not_skill_used", "skill_trigger")
TEXT_KINDS = frozenset(
    f"{neg}{kind}"
    for neg in ("", "not_")
    for kind in (
        *(f"{i}contains{m}" for i in ("", "i") for m in ("", "_any", "_all")),
        "starts_with",
        "ends_with",
        "equals",
        "regex",
        "is_json",
    )
)
# Keys every grader may carry; the rest are the type's own (unknown ones are warned about).
COMMON_KEYS = frozenset(
    {"name", "type", "weight", "required", "min_score", "negate", "id", "metric"}
)
RUBRIC_KEYS = ("rubrics", "criteria", "value")
OWN_KEYS: dict[str, frozenset[str]] = {
    "llm_judge": frozenset({"prompt", "rubrics", "model", "target", "config", "max_steps"})
    | frozenset({"temperature", "preprocessors"}),
    "rubric": frozenset({"rubrics", "criteria", "value", "preprocessors"}),
    "composite": frozenset({*CHILD_KEYS, "aggregator"}),
    "tool_trajectory": frozenset({"mode", "minimums", "expected", "args_match", "argsMatch"}),
    "field_accuracy": frozenset({"fields", "aggregation"}),
    "execution_metrics": frozenset(params.METRIC_LIMITS)
    | frozenset({"target_exploration_ratio", "exploration_tolerance"}),
    "latency": frozenset({"threshold"}),
    "cost": frozenset({"budget"}),
    "token_usage": frozenset({"max_total", "max_input", "max_output"}),
    "skill_used": frozenset({"skill", "value", "should_trigger"}),
    "trajectory_tool_used": frozenset({"value"}),
    "trajectory_tool_sequence": frozenset({"value"}),
    "text": frozenset({"value", "values", "flags"}),
}
PROMPT_EXTENSIONS = (".md", ".txt", ".prompt", ".j2", ".jinja", ".hbs", ".mustache", ".tmpl")


def parse_list(src: Src, at: At, value: Any) -> tuple[Evaluator, ...]:
    """Parse an evaluator / assertion list; bare strings become one rubric evaluator."""
    if not isinstance(value, list):
        src.error(at, f"must be a list of evaluators, not {json_kind(value)}")
        return ()
    out: list[Evaluator] = []
    names: set[str] = set()
    # Generated names (`contains`, `contains-2`) keep clear of the names authors wrote.
    written = {e["name"] for e in value if isinstance(e, dict) and isinstance(e.get("name"), str)}
    strings = [(i, v) for i, v in enumerate(value) if isinstance(v, str)]
    for i, entry in enumerate(value):
        if isinstance(entry, str):
            if strings and i == strings[0][0]:
                name = _free_name("criteria", names, written)
                out.append(_criteria(src, at, strings, name))
            continue
        ev = _one(src, (*at, i), entry, names, written)
        if ev is not None:
            out.append(ev)
    return tuple(out)


def _free_name(base: str, names: set[str], written: set[str]) -> str:
    name, n = base, 1
    while name in names or name in written:
        n += 1
        name = f"{base}-{n}"
    names.add(name)
    return name


def _criteria(src: Src, at: At, strings: list[tuple[int, str]], name: str) -> Evaluator:
    """Bare-string assertions are rubric criteria graded by the judge, pass or fail."""
    rubrics: list[Rubric] = []
    for n, (i, words) in enumerate(strings, start=1):
        if not words.strip():
            src.error((*at, i), "an assertion must not be empty")
            continue
        rubrics.append(Rubric(f"rubric-{n}", words.strip(), src.origin((*at, i))))
    return Evaluator(name, "rubric", src.origin((*at, strings[0][0])), rubrics=tuple(rubrics))


def _one(src: Src, at: At, ev: Any, names: set[str], written: set[str]) -> Evaluator | None:
    if not isinstance(ev, dict):
        src.error(at, f"an evaluator is a mapping with name and type, not {json_kind(ev)}")
        return None
    raw_type = ev.get("type")
    if set(ev) == {"include"}:
        src.error(
            at,
            "assertion templates (`include:`) are not supported yet; write the graders here",
        )
        return None
    if not isinstance(raw_type, str) or not raw_type.strip():
        src.error(at, "a grader needs `type:` (for example llm-grader, contains or code-grader)")
        return None
    kind = kind_of_type(raw_type)
    if kind is None:
        src.error((*at, "type"), f"unknown grader type {raw_type!r}; use one of {accepted_types()}")
        return None
    if kind == "rubric" and "prompt" in ev and not any(k in ev for k in RUBRIC_KEYS):
        kind = "llm_judge"  # AgentV 5's `llm-rubric` with a judge `prompt`, no criteria list
    if "name" not in ev and isinstance(ev.get("metric"), str) and ev["metric"].strip():
        ev = {**ev, "name": ev["metric"]}  # AgentV 5 (promptfoo) names a grader `metric`
    name = _name(src, at, ev, kind, names, written)
    if name is None:
        return None
    weight = 1.0
    if "weight" in ev:
        weight = number(src, (*at, "weight"), ev["weight"], lo=0.0) or 0.0
    required = _required(src, at, ev)
    negate = ev.get("negate") is True
    if "negate" in ev and not isinstance(ev["negate"], bool):
        src.error((*at, "negate"), "must be true or false")
    if kind != "code_judge":
        _unknown_keys(src, at, ev, kind)
    base = Evaluator(name, kind, src.origin(at), weight, required, negate=negate)
    return _typed(src, at, ev, base, raw_type)


def _required(src: Src, at: At, ev: dict[str, Any]) -> float | None:
    """The floor a required grader must reach: `min_score`, a number, else the 0.8 of `true`.
    `min_score` alone only sets when AgentV calls that grader passed, not the case's verdict."""
    floor = required_floor(
        src, (*at, "required"), ev.get("required"), true_floor=REQUIRED_TRUE_FLOOR
    )
    if "min_score" in ev:
        own = number(src, (*at, "min_score"), ev["min_score"], lo=0.0, hi=1.0)
        if floor is not None and own is not None:
            return own
    return floor


def _unknown_keys(src: Src, at: At, ev: dict[str, Any], kind: str) -> None:
    own = OWN_KEYS.get("text" if kind in TEXT_KINDS else kind, frozenset())
    if kind in SKILL_KINDS:
        own = OWN_KEYS["skill_used"]
    for key in ev:
        if key not in COMMON_KEYS and key not in own:
            src.warn((*at, key), f"unknown key {key!r} of a {ev.get('type')} grader is ignored")


def _name(
    src: Src, at: At, ev: dict[str, Any], kind: str, names: set[str], written: set[str]
) -> str | None:
    if "name" not in ev:
        return _free_name(kind, names, written)
    name = ev["name"]
    if not isinstance(name, str) or not name.strip() or "/" in name:
        src.error((*at, "name"), "an evaluator name is a non-empty string without '/'")
        return None
    if name in names:
        src.error((*at, "name"), f"two evaluators here are named {name!r}; names must differ")
        return None
    names.add(name)
    return name


def _typed(
    src: Src, at: At, ev: dict[str, Any], base: Evaluator, raw_type: str
) -> Evaluator | None:
    kind = base.type
    found: dict[str, Any] | None
    if kind == "code_judge":
        found = params.code_judge(src, at, ev)
    elif kind == "llm_judge":
        return _llm_judge(src, at, ev, base)
    elif kind == "rubric":
        key = next((k for k in RUBRIC_KEYS if k in ev), "rubrics")
        rubrics = parse_rubrics(src, (*at, key), ev.get(key))
        return _replace(base, rubrics=rubrics) if rubrics else None
    elif kind == "composite":
        return composite(src, at, ev, base, parse_list)
    elif kind == "tool_trajectory":
        found = params.tool_trajectory(src, at, ev, exact_args="assertions" in at)
    elif kind == "field_accuracy":
        found = params.field_accuracy(src, at, ev)
    elif kind in METRIC_KINDS:
        found = params.execution_metrics(src, at, ev, kind)
        kind = "execution_metrics"
    elif kind in TEXT_KINDS:
        found = params.text_check(src, at, ev, kind)
        kind = _text_kind(kind)
        if found is not None and base.negate:  # `negate: true` folds into the text rule
            found = {**found, "negate": not found["negate"]}
            base = _replace(base, negate=False)
    elif kind in SKILL_KINDS:
        found = params.skill_used(src, at, ev, kind)
        kind = "skill_used"
    elif kind in ("trajectory_tool_used", "trajectory_tool_sequence"):
        written = "trajectory:" + kind.removeprefix("trajectory_").replace("_", "-")
        parsed = matchers.parse(written, ev.get("value"))
        if isinstance(parsed, str):
            src.error((*at, "value"), f"{written}: {parsed}")
            return None
        found, kind = {"trajectory": parsed}, "trajectory"  # the check's typed parameters
    else:  # the catalogue and these branches list the same kinds; a gap is a bug here
        raise ValueError(f"grader kind {kind!r} ({raw_type!r}) has no parser")
    return None if found is None else _replace(base, type=kind, params=found)


def _text_kind(kind: str) -> str:
    base = kind.removeprefix("not_")
    if base in ("regex", "is_json", "equals", "starts_with", "ends_with"):
        return base
    return "contains"


def _replace(ev: Evaluator, **changes: Any) -> Evaluator:
    return dataclasses.replace(ev, **changes)


def _llm_judge(src: Src, at: At, ev: dict[str, Any], base: Evaluator) -> Evaluator | None:
    for key in ("target", "model"):
        if key in ev:
            src.warn(
                (*at, key), "ignored: one judge model grades every run (the judge-model input)"
            )
    if "rubrics" in ev:
        if "prompt" in ev:
            src.warn(
                (*at, "prompt"),
                "not used: with `rubrics`, the judge grades each rubric item on its own",
            )
        rubrics = parse_rubrics(src, (*at, "rubrics"), ev["rubrics"])
        return _replace(base, type="rubric", rubrics=rubrics) if rubrics else None
    prompt = ev.get("prompt")
    if prompt is None:
        return base
    if isinstance(prompt, dict):
        src.error((*at, "prompt"), "prompt scripts are not supported yet; write the prompt inline")
        return None
    if not isinstance(prompt, str) or not prompt.strip():
        src.error((*at, "prompt"), "must be the judge prompt or the path of a prompt file")
        return None
    written = prompt.strip().removeprefix("file://")
    if not prompt.strip().startswith("file://") and not _looks_like_path(prompt):
        _unknown_variables(src, (*at, "prompt"), prompt)
        return _replace(base, template=prompt)
    path = resolve_file(src, (*at, "prompt"), written)
    if path is None:
        return None
    try:
        template = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        src.error((*at, "prompt"), f"cannot read {prompt!r}: {exc}")
        return None
    _unknown_variables(src, (*at, "prompt"), template)
    return _replace(base, template=template, params={"prompt_file": root_rel(src, path)})


def _unknown_variables(src: Src, at: At, template: str) -> None:
    unknown = sorted(variables_in(template) - set(TEMPLATE_VARIABLES))
    if unknown:
        shown = ", ".join(f"{{{{{name}}}}}" for name in unknown)
        src.warn(at, f"unknown template variables stay as written: {shown}")


def _looks_like_path(prompt: str) -> bool:
    one = prompt.strip()
    if "\n" in one or " " in one:
        return False
    return one.endswith(PROMPT_EXTENSIONS) or "/" in one
