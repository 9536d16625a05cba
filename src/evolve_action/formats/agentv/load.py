"""The AgentV / AgentEvals loader: `EVAL.yaml`, `*.eval.yaml`, `suite.yaml`, `dataset*.yaml`,
JSONL datasets.

The format renamed its keys almost weekly, so every
generation is read: the case list is `evalcases`, `eval_cases`, `cases` or `tests` (inline,
or files and folders it names, `agentv_tests.py`); a JSONL dataset takes its shared settings
from the YAML sidecar of the same name. Keys a generation defines are read or, when they
cannot be honoured, rejected with a reason; keys none defines are warned about, so nothing is
ignored without a word. Grading follows the spec's verdict: a weighted mean of the graders'
scores against a threshold (0.8), with `required` items as floors.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import re2

from evolve_action.formats.agentv import workspace as agentv_workspace
from evolve_action.formats.agentv.case import build_case
from evolve_action.formats.agentv.common import (
    DEFAULT_THRESHOLD,
    At,
    Src,
    number,
)
from evolve_action.formats.agentv.keys import check_keys
from evolve_action.formats.agentv.kinds import SkillUse
from evolve_action.formats.agentv.suite import mapping_or_file, suite_defaults, trials
from evolve_action.formats.agentv.tests import case_rows, read_src
from evolve_action.formats.agentv.vars import without_env
from evolve_action.formats.agentv.workspace import Workspace
from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.formats.placement import GENERIC_STEMS, feature_folder
from evolve_action.model.evals import (
    Case,
    Check,
    Fixture,
    Format,
    LoadResult,
    Origin,
    Severity,
    Skill,
    Suite,
    SuitePolicy,
)
from evolve_action.util.text import json_kind

# Spec rule: lowercase letters, digits and single hyphens; starts with a letter; 2-64 long.
_NAME = re2.compile(r"^[a-z](?:[a-z0-9]|-[a-z0-9])*$")
# AgentV 4 only asks for lowercase letters, digits and hyphens.
_NAME_4 = re2.compile(r"^[a-z0-9-]+$")


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    root = ctx.root.resolve()
    main = Src(doc, Problems(doc), root, doc.path.parent.resolve())
    main.doc = replace(doc, data=without_env(main, doc.data))
    sources = [main]
    settings_src, settings = _settings(main, sources)
    check_keys(settings_src, settings)
    rows = case_rows(main, settings, sources)
    if rows is None:
        main.error((), "no cases: add `tests:` (older files say evalcases, eval_cases or cases)")
        rows = []
    defaults = suite_defaults(settings_src, settings, sources)
    suite_space = _workspace(settings_src, ("workspace",), settings, sources)
    cases: list[Case] = []
    spaces: list[Workspace] = [suite_space] if suite_space else []
    seen: dict[str, Origin] = {}
    for src, at, row in rows:
        case = build_case(src, at, row, defaults)
        if case is None:
            continue
        if case.id in seen:
            src.error((*at, "id"), f"case id {case.id!r} is already used at {seen[case.id]}")
            continue
        seen[case.id] = case.origin
        space = _workspace(src, (*at, "workspace"), row, sources) or suite_space
        if space is not None:
            spaces.append(space)
            case = replace(case, files=(*space.files, *case.files))
        cases.append(case)
    name = _suite_name(settings_src, settings, doc.path)
    skill = _skill(settings_src, settings, ctx.skill)
    skill, cases = _template_skill(skill, spaces, cases)
    meta = settings.get("metadata")
    names_skill = isinstance(meta, dict) and any(
        isinstance(meta.get(k), str) for k in ("skill", "skill_path")
    )
    policy = _policy(settings_src, settings)
    runs = trials(settings_src, settings)
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
        runs=runs,
        policy=policy,
        agent=skill.dir is not None or names_skill,
        warnings=tuple(p for p in problems if p.severity is Severity.WARNING),
    )
    return LoadResult(doc.rel, Format.AGENTV, suite, problems)


def _settings(main: Src, sources: list[Src]) -> tuple[Src, dict[str, Any]]:
    """The mapping of suite-level keys: the file itself, or a JSONL dataset's YAML sidecar.
    A YAML file holding a bare list of cases (AgentV's `cases` file type) has none."""
    if isinstance(main.doc.data, dict):
        return main, main.doc.data
    if not isinstance(main.doc.data, list):
        found = json_kind(main.doc.data)
        main.error((), f"an agentv eval file is a mapping with `tests:`, not {found}")
        return main, {}
    if main.doc.path.suffix != ".jsonl":
        return main, {}
    for suffix in (".yaml", ".yml"):
        sidecar = main.doc.path.with_suffix(suffix)
        if sidecar.is_file():
            rel = str(Path(main.doc.rel).with_suffix(suffix).as_posix())
            src = read_src(main, sidecar, rel)
            if src is None:
                return main, {}
            sources.append(src)
            if not isinstance(src.doc.data, dict):
                src.error((), "the sidecar of a JSONL dataset is a mapping of shared settings")
                return src, {}
            return src, src.doc.data
    return main, {}


def _workspace(src: Src, at: At, holder: Any, sources: list[Src]) -> Workspace | None:
    """`workspace:`, or AgentV 5's `environment: {type: host, workdir}` (the same template)."""
    if not isinstance(holder, dict):
        return None
    if "workspace" in holder:
        return agentv_workspace.parse(src, at, holder["workspace"], sources)
    if "environment" not in holder:
        return None
    at = (*at[:-1], "environment")
    found = mapping_or_file(src, at, holder["environment"], sources)
    if found is None:
        return None
    env_src, env_at, env = found
    if env.get("type", "host") != "host" or set(env) - {"type", "workdir"}:
        env_src.error(
            env_at,
            "only `environment: {type: host, workdir: <folder>}` is supported: the workdir is"
            " copied into every run's workspace; containers and setup steps are not",
        )
        return None
    if "workdir" not in env:
        return None
    return agentv_workspace.parse(env_src, env_at, {"template": env["workdir"]}, sources)


def _template_skill(
    skill: Skill, spaces: list[Workspace], cases: list[Case]
) -> tuple[Skill, list[Case]]:
    """A skill kept in a workspace template is the one the suite evaluates when its
    skill-trigger graders name it (or it is the template's only skill). It is installed as the
    skill under test, so its files are not copied a second time as fixtures."""
    offered: dict[str, Path] = {}
    for space in spaces:
        for name, folder in space.skills.items():
            offered.setdefault(name, folder)
    if not offered or skill.dir is not None:
        return skill, cases
    named = [
        item.params.skill
        for case in cases
        for item in case.items
        if isinstance(item, Check) and isinstance(item.params, SkillUse)
    ]
    chosen = next((n for n in named if n in offered), None)
    if chosen is None and len(offered) == 1:
        chosen = next(iter(offered))
    if chosen is None:
        return skill, cases
    folder = offered[chosen]
    kept = [replace(c, files=tuple(f for f in c.files if not _under(f, folder))) for c in cases]
    return replace(skill, name=chosen, dir=folder), kept


def _under(fixture: Fixture, folder: Path) -> bool:
    return fixture.source.is_relative_to(folder)


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
        if not 1 <= len(name) <= 64 or not _NAME_4.match(name):
            src.error(
                ("name",),
                f"{name!r} is not a valid eval name: up to 64 lowercase letters, digits and"
                " hyphens",
            )
        elif not _NAME.match(name) or len(name) < 2:
            src.warn(
                ("name",),
                f"{name!r} does not follow the spec's rule (2-64 characters, a letter first,"
                " single hyphens, no hyphen at the end); AgentV accepts it",
            )
        return name
    if "name" in settings:
        src.error(("name",), "must be a non-empty string")
    if isinstance(settings.get("dataset"), str) and settings["dataset"]:
        return str(settings["dataset"])
    return suite_label(path)


def suite_label(path: Path) -> str:
    """A nameless suite is called after its file, or after its feature's folder when the file
    has a generic name (`examples/features/basic/evals/dataset.eval.yaml` → `basic`)."""
    stem = path.name.split(".")[0]
    return feature_folder(path) if stem.lower().startswith(GENERIC_STEMS) else stem


def _policy(src: Src, settings: dict[str, Any]) -> SuitePolicy:
    threshold = DEFAULT_THRESHOLD
    execution = settings.get("execution")
    if isinstance(execution, dict) and "threshold" in execution:
        got = number(src, ("execution", "threshold"), execution["threshold"], lo=0.0, hi=1.0)
        threshold = DEFAULT_THRESHOLD if got is None else got
    elif "threshold" in settings:  # AgentV 5 writes it at the top
        got = number(src, ("threshold",), settings["threshold"], lo=0.0, hi=1.0)
        threshold = DEFAULT_THRESHOLD if got is None else got
    return SuitePolicy(
        threshold=threshold, aggregation="weighted_mean", required_semantics="force_fail"
    )
