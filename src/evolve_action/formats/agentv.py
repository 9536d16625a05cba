"""The AgentV / AgentEvals loader: `EVAL.yaml`, `*.eval.yaml`, `dataset*.yaml`, JSONL datasets.

The format renamed its keys almost weekly (reference/agentv_clauditor.md A.1), so every
generation is read: the case list is `evalcases`, `eval_cases`, `cases` or `tests` (whose
entries may be file paths to more cases); a JSONL dataset takes its shared settings from the
YAML sidecar of the same name. Grading follows the spec's verdict: a weighted mean of the
evaluators' scores against a threshold (0.8), with `required` items as floors.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import re2

from evolve_action.documents import Document, DocumentError, read
from evolve_action.formats.agentv_case import Defaults, build_case
from evolve_action.formats.agentv_common import (
    DEFAULT_THRESHOLD,
    At,
    Src,
    kind_of,
    number,
    resolve_file,
)
from evolve_action.formats.agentv_evaluators import Evaluator, parse_list
from evolve_action.formats.agentv_template import prompt_template
from evolve_action.formats.base import LoadContext, Problems
from evolve_action.model import (
    Case,
    Format,
    LoadResult,
    Origin,
    Problem,
    Severity,
    Skill,
    Suite,
)

CASE_KEYS = ("evalcases", "eval_cases", "cases", "tests")
# Spec rule: lowercase letters, digits and single hyphens; starts with a letter; 2-64 long.
_NAME = re2.compile(r"^[a-z](?:[a-z0-9]|-[a-z0-9])*$")
_STEMS_WITHOUT_MEANING = ("eval", "dataset")


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    root = ctx.root.resolve()
    main = Src(doc, Problems(doc), root, doc.path.parent.resolve())
    sources = [main]
    settings_src, settings = _settings(main, sources)
    rows = _rows(main, settings_src, settings, sources)
    defaults = _defaults(settings_src, settings)
    cases: list[Case] = []
    seen: dict[str, Origin] = {}
    for src, at, row in rows:
        case = build_case(src, at, row, defaults)
        if case is None:
            continue
        if case.id in seen:
            src.error((*at, "id"), f"case id {case.id!r} is already used at {seen[case.id]}")
            continue
        seen[case.id] = case.origin
        cases.append(case)
    name = _suite_name(settings_src, settings, doc.path)
    skill = _skill(settings_src, settings, ctx.skill)
    meta = settings.get("metadata")
    names_skill = isinstance(meta, dict) and any(
        isinstance(meta.get(k), str) for k in ("skill", "skill_path")
    )
    policy = _policy(settings_src, settings)
    problems = tuple(p for s in sources for p in s.problems.items)
    if any(p.severity is Severity.ERROR for p in problems):
        return LoadResult(doc.rel, Format.AGENTV, None, problems)
    suite = Suite(
        format=Format.AGENTV,
        path=doc.path,
        rel=doc.rel,
        skill=skill,
        cases=tuple(cases),
        name=name,
        policy=policy,
        agent=skill.dir is not None or names_skill,
        warnings=tuple(p for p in problems if p.severity is Severity.WARNING),
    )
    return LoadResult(doc.rel, Format.AGENTV, suite, problems)


def _settings(main: Src, sources: list[Src]) -> tuple[Src, dict[str, Any]]:
    """The mapping of suite-level keys: the file itself, or a JSONL dataset's YAML sidecar."""
    if isinstance(main.doc.data, dict):
        return main, main.doc.data
    if not isinstance(main.doc.data, list):
        found = kind_of(main.doc.data)
        main.error((), f"an agentv eval file is a mapping with `tests:`, not {found}")
        return main, {}
    for suffix in (".yaml", ".yml"):
        sidecar = main.doc.path.with_suffix(suffix)
        if sidecar.is_file():
            rel = str(Path(main.doc.rel).with_suffix(suffix).as_posix())
            src = _read(main, (), sidecar, rel)
            if src is None:
                return main, {}
            sources.append(src)
            if not isinstance(src.doc.data, dict):
                src.error((), "the sidecar of a JSONL dataset is a mapping of shared settings")
                return src, {}
            return src, src.doc.data
    return main, {}


def _read(src: Src, at: At, path: Path, rel: str) -> Src | None:
    try:
        doc = read(path, rel, scalar_keys=True)
    except DocumentError as exc:
        src.problems.items.append(Problem(Origin(exc.rel, exc.line), exc.message))
        return None
    return Src(doc, Problems(doc), src.root, src.main_dir)


def _rows(
    main: Src, settings_src: Src, settings: dict[str, Any], sources: list[Src]
) -> list[tuple[Src, At, Any]]:
    if isinstance(main.doc.data, list):
        return [(main, (i,), row) for i, row in enumerate(main.doc.data)]
    keys = [k for k in CASE_KEYS if k in settings]
    if not keys:
        main.error((), "no cases: add `tests:` (older files say evalcases, eval_cases or cases)")
        return []
    if len(keys) > 1:
        main.error((keys[1],), f"both {keys[0]!r} and {keys[1]!r} list cases; keep one")
        return []
    key = keys[0]
    value = settings[key]
    if isinstance(value, str):
        return _referenced(main, (key,), value, sources)
    if not isinstance(value, list) or not value:
        main.error((key,), "must be a non-empty list of cases")
        return []
    rows: list[tuple[Src, At, Any]] = []
    for i, row in enumerate(value):
        if isinstance(row, str) and key == "tests":
            rows.extend(_referenced(main, (key, i), row, sources))
        else:
            rows.append((main, (key, i), row))
    return rows


def _referenced(main: Src, at: At, ref: str, sources: list[Src]) -> list[tuple[Src, At, Any]]:
    """Cases from a file named in `tests` (YAML list or mapping, or JSONL rows)."""
    if not ref.endswith((".yaml", ".yml", ".jsonl", ".json")):
        main.error(at, f"{ref!r}: a test file reference must name a .yaml, .yml or .jsonl file")
        return []
    path = resolve_file(main, at, ref)
    if path is None:
        return []
    src = _read(main, at, path, path.relative_to(main.root).as_posix())
    if src is None:
        return []
    sources.append(src)
    data = src.doc.data
    if isinstance(data, dict):
        key = next((k for k in CASE_KEYS if isinstance(data.get(k), list)), None)
        if key is None:
            src.error((), "a referenced test file holds a list of cases (or `tests:`)")
            return []
        prefix: At = (key,)
        data = data[key]
    else:
        prefix = ()
    if not isinstance(data, list):
        src.error((), "a referenced test file holds a list of cases")
        return []
    out: list[tuple[Src, At, Any]] = []
    for i, row in enumerate(data):
        if isinstance(row, str):
            src.error((*prefix, i), "a referenced test file cannot reference further files")
            continue
        out.append((src, (*prefix, i), row))
    return out


def _defaults(src: Src, settings: dict[str, Any]) -> Defaults:
    execution = settings.get("execution", {})
    if not isinstance(execution, dict):
        src.error(("execution",), "must be a mapping (target, timeout_seconds, evaluators)")
        execution = {}
    evaluators: tuple[Evaluator, ...] = ()
    if "assertions" in settings:  # AgentV 4's name for the list wins, as there
        evaluators = parse_list(src, ("assertions",), settings["assertions"])
    elif "evaluators" in execution:
        evaluators = parse_list(src, ("execution", "evaluators"), execution["evaluators"])
    elif "assert" in settings:
        evaluators = parse_list(src, ("assert",), settings["assert"])
    if isinstance(settings.get("evaluator"), str) and settings["evaluator"] != "llm_judge":
        src.warn(("evaluator",), "ignored: only llm_judge can be a default evaluator kind")
    timeout = None
    if "timeout_seconds" in execution:
        where = ("execution", "timeout_seconds")
        timeout = number(src, where, execution["timeout_seconds"], lo=1, hi=3600, integer=True)
    return Defaults(evaluators=evaluators, timeout_s=timeout, prompt=_prompt(src, settings))


def _prompt(src: Src, settings: dict[str, Any]) -> str | None:
    """Later files wrap each test's input in `prompts:` (usually just `{{ input }}`)."""
    if "prompts" not in settings:
        return None
    prompts = settings["prompts"]
    if not isinstance(prompts, list) or not prompts or not all(isinstance(p, str) for p in prompts):
        src.error(("prompts",), "must be a list of prompt templates, such as ['{{ input }}']")
        return None
    if len(prompts) > 1:
        src.warn(("prompts",), "several prompts: only the first is used")
    return prompt_template(prompts)


def _skill(src: Src, settings: dict[str, Any], found: Skill) -> Skill:
    """The skill the file names (`metadata.skill`, `metadata.skill_path`, the spec's link
    back), else the one discovery placed it with, found under `skills/` when discovery could
    only guess its name (an `evals/<skill>/EVAL.yaml` layout)."""
    meta = settings.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    named = meta.get("skill") if isinstance(meta.get("skill"), str) else None
    if isinstance(meta.get("skill_path"), str):
        folder = _skill_dir(src, meta["skill_path"])
        if folder is not None:
            return replace(found, name=named or folder.name, dir=folder)
        src.warn(("metadata", "skill_path"), "no SKILL.md there; the skill is found by name")
    if found.dir is not None and named in (None, found.name):
        return found
    wanted = named or found.name
    bases = [b for b in (found.plugin_dir, src.root) if b is not None]
    for base in bases:
        for folder in (base / "skills" / wanted, base / ".claude" / "skills" / wanted):
            if (folder / "SKILL.md").is_file():
                return replace(found, name=wanted, dir=folder)
    return found if named is None else replace(found, name=named, dir=None)


def _skill_dir(src: Src, value: str) -> Path | None:
    try:
        folder = src.root / value.lstrip("/") if value.startswith("/") else src.dir / value
        folder = folder.resolve()
        usable = folder.is_relative_to(src.root) and (folder / "SKILL.md").is_file()
    except (OSError, RuntimeError, ValueError):
        return None
    return folder if usable else None


def _suite_name(src: Src, settings: dict[str, Any], path: Path) -> str:
    name = settings.get("name")
    if isinstance(name, str) and name:
        if not 2 <= len(name) <= 64 or not _NAME.match(name):
            src.error(
                ("name",),
                f"{name!r} is not a valid eval name: 2-64 lowercase letters, digits and single"
                " hyphens, starting with a letter and ending with a letter or digit",
            )
        return name
    if "name" in settings:
        src.error(("name",), "must be a non-empty string")
    if isinstance(settings.get("dataset"), str) and settings["dataset"]:
        return str(settings["dataset"])
    stem = path.name.split(".")[0]
    if stem.lower().startswith(_STEMS_WITHOUT_MEANING) and path.parent.name:
        return path.parent.name
    return stem


def _policy(src: Src, settings: dict[str, Any]) -> dict[str, Any]:
    threshold = DEFAULT_THRESHOLD
    execution = settings.get("execution")
    if isinstance(execution, dict) and "threshold" in execution:
        got = number(src, ("execution", "threshold"), execution["threshold"], lo=0.0, hi=1.0)
        threshold = DEFAULT_THRESHOLD if got is None else got
    return {
        "aggregation": "weighted_mean",
        "threshold": threshold,
        "required_semantics": "force_fail",
    }
