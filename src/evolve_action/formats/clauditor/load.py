"""clauditor `<skill>.eval.json` / `SKILL.eval.json` → one `Suite`.

The spec becomes one primary case, the slash command `/<skill_name> <test_args>` run with the
resolved system prompt and the staged inputs, graded in three layers: L1 assertions as checks,
L2 sections as one extraction judge item, L3 criteria as unit-scale judge items. Each
`trigger_tests` query becomes a trigger case of its own.

Unknown top-level keys are warnings, not errors: clauditor itself ignores them, its spec grows
a top-level field every few releases (`harness`, `grading_provider`, `sync_tasks`), and our
model keeps formats open (docs/design.md §Model). Inside an assertion, unknown keys are errors,
as in clauditor; inside `grade_thresholds`, `variance` and `trigger_tests` too, because a
misspelt threshold would silently change every verdict.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import re2

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.clauditor import fields as f
from evolve_action.formats.clauditor import files as clauditor_files
from evolve_action.formats.clauditor import items as clauditor_items
from evolve_action.formats.clauditor import sections as clauditor_sections
from evolve_action.formats.documents import Document
from evolve_action.formats.evolve.params import TriggerParams
from evolve_action.model.evals import (
    CLAUDITOR_MIN_MEAN_SCORE,
    CLAUDITOR_MIN_PASS_RATE,
    Case,
    CaseExtra,
    CaseKind,
    Check,
    Format,
    Item,
    LoadResult,
    Suite,
    SuitePolicy,
)
from evolve_action.util.text import json_kind

TOP_LEVEL = (
    "$schema",
    "skill_name",
    "description",
    "test_args",
    "user_prompt",
    "system_prompt",
    "input_files",
    "output_file",
    "output_files",
    "assertions",
    "sections",
    "grading_criteria",
    "grading_model",
    "grading_provider",
    "grade_thresholds",
    "variance",
    "trigger_tests",
    "timeout",
    "transport",
    "harness",
    "allow_hang_heuristic",
    "sync_tasks",
)
# clauditor's defaults.
MIN_PASS_RATE = CLAUDITOR_MIN_PASS_RATE
MIN_MEAN_SCORE = CLAUDITOR_MIN_MEAN_SCORE
N_RUNS = 5
MIN_STABILITY = 0.8

_SKILL_NAME = re2.compile(r"[A-Za-z0-9_.-]+")
_PROVIDERS = {"claude-": "anthropic", "gpt-": "openai"}


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    p = Problems(doc)
    data = doc.data
    if not isinstance(data, dict):
        p.error((), f"a clauditor eval spec is a JSON object, not {json_kind(data)}")
        return LoadResult(doc.rel, Format.CLAUDITOR, None, tuple(p.items))
    f.unknown_keys(p, (), data, TOP_LEVEL, strict=False)
    skill_name = _skill_name(p, data, doc.path)
    settings = _runner_settings(p, data)
    primary = _primary(p, data, skill_name, ctx, settings)
    triggers = _trigger_cases(p, data.get("trigger_tests"), skill_name)
    policy = _policy(p, data)
    judge_model = _judge_model(p, data)
    if p.has_errors or primary is None:
        return LoadResult(doc.rel, Format.CLAUDITOR, None, tuple(p.items))
    suite = Suite(
        format=Format.CLAUDITOR,
        path=doc.path,
        rel=doc.rel,
        skill=ctx.skill,
        cases=(primary, *triggers),
        name=skill_name,
        runs=policy.get("n_runs"),
        judge_model=judge_model,
        policy=SuitePolicy.from_doc(policy),
        warnings=tuple(p.items),
    )
    return LoadResult(doc.rel, Format.CLAUDITOR, suite, tuple(p.items))


def default_skill_name(path: Path) -> str:
    """clauditor's name when `skill_name` is absent."""
    if path.name in ("SKILL.eval.json", "eval.json"):
        return path.parent.name
    if path.name.endswith(".eval.json"):
        return path.name.removesuffix(".eval.json")
    return path.stem


def _skill_name(p: Problems, data: dict[str, Any], path: Path) -> str:
    raw = data.get("skill_name")
    name = default_skill_name(path) if raw is None else f.text(p, ("skill_name",), raw)
    if name is None:
        return default_skill_name(path)
    if not _SKILL_NAME.fullmatch(name) or name.startswith("."):
        p.error(
            ("skill_name",),
            f"{name!r} cannot name a skill: use letters, digits, '_', '.', '-',"
            " not starting with '.'",
        )
    return name


def _primary(
    p: Problems, data: dict[str, Any], skill_name: str, ctx: LoadContext, settings: dict[str, Any]
) -> Case | None:
    description = _text_or(p, data, "description")
    test_args = _text_or(p, data, "test_args")
    user_prompt = f.optional_text(p, data, "user_prompt")
    explicit = f.optional_text(p, data, "system_prompt")
    # A broken explicit prompt is reported and must not fall through to a derived one.
    broken = data.get("system_prompt") is not None and explicit is None
    system = None if broken else clauditor_files.system_prompt(p, explicit, skill_name, ctx)
    inputs = clauditor_files.input_files(p, data.get("input_files", []), _spec_dir(p))
    outputs = clauditor_files.output_paths(p, data, inputs)
    ids = clauditor_items.Ids(p)
    items: list[Item] = [*clauditor_items.assertions(p, ids, data.get("assertions", []))]
    extract = clauditor_sections.sections(p, ids, data.get("sections", []))
    if extract is not None:
        items.append(extract)
    items += clauditor_items.criteria(p, ids, data.get("grading_criteria", []))
    if system is None:
        return None
    prompt = f"/{skill_name} {test_args}" if test_args.strip() else f"/{skill_name}"
    timeout = settings.get("timeout")
    return Case(
        id=skill_name,
        prompt=prompt,
        origin=p.origin(),
        name=skill_name,
        system=system.text,
        files=tuple(inputs),
        items=tuple(items),
        output_files=outputs,
        timeout_seconds=float(timeout) if timeout else None,
        extra=CaseExtra(
            description=description,
            test_args=test_args,
            user_prompt=user_prompt,
            system_prompt_source=system.source,
            skill_body=system.skill_body,
            runner=settings,
        ),
    )


def _spec_dir(p: Problems) -> Path:
    return p.doc.path.parent


def _text_or(p: Problems, data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if value is None:
        return ""
    return f.text(p, (key,), value) or ""


def _runner_settings(p: Problems, data: dict[str, Any]) -> dict[str, Any]:
    """Knobs of clauditor's own runner, validated as clauditor does and kept for the record."""
    out: dict[str, Any] = {}
    if data.get("timeout") is not None:
        out["timeout"] = f.positive_int(p, ("timeout",), data["timeout"])
    if "transport" in data:
        out["transport"] = f.choice(p, ("transport",), data["transport"], ("api", "cli", "auto"))
    if "harness" in data:
        options = ("claude-code", "codex", "auto")
        out["harness"] = f.choice(p, ("harness",), data["harness"], options)
    for key in ("allow_hang_heuristic", "sync_tasks"):
        if key in data:
            out[key] = f.flag(p, (key,), data[key])
    return out


def _policy(p: Problems, data: dict[str, Any]) -> dict[str, Any]:
    policy: dict[str, Any] = {
        "aggregation": "layered",
        "min_pass_rate": MIN_PASS_RATE,
        "min_mean_score": MIN_MEAN_SCORE,
        "min_stability": None,
        "n_runs": None,
    }
    thresholds = data.get("grade_thresholds")
    if thresholds is not None and f.obj(p, ("grade_thresholds",), thresholds, "thresholds"):
        keys = ("min_pass_rate", "min_mean_score")
        f.unknown_keys(p, ("grade_thresholds",), thresholds, keys, strict=True)
        for key in keys:
            if thresholds.get(key) is not None:
                policy[key] = f.unit(p, ("grade_thresholds", key), thresholds[key])
    variance = data.get("variance")
    if variance is not None and f.obj(p, ("variance",), variance, "{n_runs, min_stability}"):
        keys = ("n_runs", "min_stability")
        f.unknown_keys(p, ("variance",), variance, keys, strict=True)
        policy["n_runs"] = f.positive_int(p, ("variance", "n_runs"), variance.get("n_runs", N_RUNS))
        stability = variance.get("min_stability", MIN_STABILITY)
        policy["min_stability"] = f.unit(p, ("variance", "min_stability"), stability)
    return policy


def _judge_model(p: Problems, data: dict[str, Any]) -> str | None:
    """`grading_model`, provider-qualified by `grading_provider` or its prefix."""
    provider = data.get("grading_provider")
    if provider is not None:
        options = ("anthropic", "openai", "auto")
        provider = f.choice(p, ("grading_provider",), provider, options)
    model = data.get("grading_model")
    if model is None:
        return None
    model = f.text(p, ("grading_model",), model, blank_ok=False)
    if model is None or "/" in model:
        return model
    if provider in ("anthropic", "openai"):
        return f"{provider}/{model}"
    inferred = next((v for k, v in _PROVIDERS.items() if model.startswith(k)), None)
    if inferred is None and re2.compile(r"o[0-9]").match(model):
        inferred = "openai"
    if inferred is None:
        p.error(
            ("grading_model",),
            f"cannot tell the provider of {model!r}; set grading_provider to 'anthropic'"
            " or 'openai', or write the model as '<provider>/<model>'",
        )
    return f"{inferred}/{model}" if inferred else None


def _trigger_cases(p: Problems, raw: Any, skill_name: str) -> list[Case]:
    if raw is None:
        return []
    at = ("trigger_tests",)
    if f.obj(p, at, raw, "{should_trigger, should_not_trigger}") is None:
        return []
    keys = ("should_trigger", "should_not_trigger")
    f.unknown_keys(p, at, raw, keys, strict=True)
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for key, expected in (("should_trigger", True), ("should_not_trigger", False)):
        for i, query in f.string_list(p, (*at, key), raw.get(key, [])):
            where = f"{key}[{i}]"
            if query in seen:
                p.error((*at, key, i), f"the query {query!r} is also {seen[query]}; keep one")
                continue
            seen[query] = where
            origin = p.origin(*at, key, i)
            check = Check(
                id="trigger",
                kind="triggers.fired",
                text=f"/{skill_name} {'fires' if expected else 'does not fire'}",
                origin=origin,
                params=TriggerParams(skill_name, expected),
                source="trigger",
            )
            cases.append(
                Case(
                    id=f"trigger: {query}",
                    prompt=query,
                    origin=origin,
                    kind=CaseKind.TRIGGER,
                    should_trigger=expected,
                    items=(check,),
                )
            )
    return cases
