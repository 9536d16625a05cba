"""The tessl loader: a scenario folder, `evals/<scenario>/task.md` + `criteria.json`.

`task.md` is the agent's whole task (input files are written into it for the agent to
extract). `criteria.json` is `{context, type: "weighted_checklist", checklist: [{name,
description, max_score}]}`: the judge awards each item a share of its `max_score`, and the
run's score is the points awarded over the points possible, as tessl scores a scenario.
tessl reports that score (with and without the tile) and sets no pass mark; here a run passes
at half the points, and the score itself is what the comment compares.

The skill is the tile's (`tile.json` above the scenario, or the one SKILL.md there): tessl
installs the whole tile, evolve-action one skill, so a tile of several skills installs the one
the scenario names (its folder name or task), else the first, with a warning saying which.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.formats.graders.fields import At, text
from evolve_action.formats.placement import inside
from evolve_action.model.evals import (
    Case,
    Format,
    JudgeItem,
    LoadResult,
    Scale,
    Skill,
    Suite,
    SuitePolicy,
)
from evolve_action.util.text import json_kind

PASS_SHARE = 0.5  # of the checklist's points: tessl itself sets no pass mark
MAX_TASK_BYTES = 512 * 1024
TYPES = ("weighted_checklist",)


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    problems = Problems(doc)
    suite = _suite(doc, ctx, problems)
    return problems.result(Format.TESSL, suite)


def _suite(doc: Document, ctx: LoadContext, problems: Problems) -> Suite | None:
    data = doc.data
    if not isinstance(data, dict):
        problems.error((), f"criteria.json is a mapping with a checklist, not {json_kind(data)}")
        return None
    kind = data.get("type")
    if kind not in TYPES:
        problems.error(("type",), f"must be weighted_checklist (tessl's one type), not {kind!r}")
        return None
    for key in data:
        if key not in ("context", "type", "checklist"):
            problems.warn((key,), f"unknown key {key!r} is ignored; check its spelling")
    scenario = doc.path.parent
    task = _task(scenario, problems)
    items = _checklist(problems, data.get("checklist"))
    if task is None or not items:
        return None
    context: str = data["context"] if isinstance(data.get("context"), str) else ""
    skill = _skill(scenario, task, ctx, problems)
    case = Case(
        id=scenario.name,
        prompt=task,
        origin=problems.origin(),
        expected_output=context,  # what the scenario tests, for the judge only
        items=tuple(items),
    )
    return Suite(
        format=Format.TESSL,
        path=doc.path,
        rel=doc.rel,
        skill=skill,
        cases=(case,),
        name=scenario.name,
        policy=SuitePolicy(threshold=PASS_SHARE),
        warnings=problems.warnings(),
    )


def _task(scenario: Path, problems: Problems) -> str | None:
    path = scenario / "task.md"
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_TASK_BYTES + 1)
    except OSError:
        problems.error((), "task.md is missing beside criteria.json; a scenario needs both")
        return None
    if len(raw) > MAX_TASK_BYTES:
        problems.error((), f"task.md is over {MAX_TASK_BYTES // 1024} KiB; shorten it")
        return None
    body = raw.decode("utf-8", "replace")
    if not body.strip():
        problems.error((), "task.md is empty; write the task the agent is given")
        return None
    return body


def _checklist(problems: Problems, value: Any) -> list[JudgeItem]:
    if not isinstance(value, list) or not value:
        problems.error(("checklist",), "must be a non-empty list of {name, description, max_score}")
        return []
    items: list[JudgeItem] = []
    for j, raw in enumerate(value):
        at = ("checklist", j)
        mark = problems.mark()
        item = _item(problems, at, j, raw)
        if not problems.demote_since(mark, "this item is not judged; the others are"):
            items += [item] if item is not None else []
    if not items and not problems.has_errors:
        problems.not_run(("checklist",), "no checklist item reads (below, why)")
    return items


def _item(problems: Problems, at: At, j: int, raw: Any) -> JudgeItem | None:
    if not isinstance(raw, dict):
        problems.error(at, f"a checklist item is a mapping, not {json_kind(raw)}")
        return None
    name = text(problems, (*at, "name"), raw.get("name"))
    description = text(problems, (*at, "description"), raw.get("description"))
    points = raw.get("max_score")
    if isinstance(points, str) and re.fullmatch(r"\s*\d+(?:\.\d+)?\s*", points):
        points = float(points)  # written as text: the number it says
    if isinstance(points, bool) or not isinstance(points, int | float) or points <= 0:
        problems.error((*at, "max_score"), f"must be a number above 0, not {points!r}")
        return None
    for key in raw:
        if key not in ("name", "description", "max_score", "category"):
            problems.warn((*at, key), f"unknown checklist key {key!r} is ignored")
    if name is None or description is None:
        return None
    return JudgeItem(
        f"{j + 1}. {name}",
        f"{name}: {description} (the share of {points:g} points it earns)",
        problems.origin(*at),
        Scale.UNIT,
        kind="criterion",
        weight=float(points),
        group=str(raw.get("category", "")),
        source="checklist",
    )


def _skill(scenario: Path, task: str, ctx: LoadContext, problems: Problems) -> Skill:
    root = ctx.root.resolve()
    for tile in (scenario.parent.parent, scenario.parent):
        if not inside(tile, root):
            continue
        if (tile / "SKILL.md").is_file():
            return Skill(tile.name, tile.resolve())
        paths = _tile_skills(tile)
        if paths:
            chosen = _pick(paths, scenario.name, task)
            if len(paths) > 1:
                problems.warn(
                    (),
                    f"the tile has {len(paths)} skills and its rules; tessl installs them all,"
                    f" evolve-action the one this scenario names or else the first: {chosen.name}",
                )
            return Skill(chosen.name, chosen.resolve())
    return ctx.skill


def _tile_skills(tile: Path) -> list[Path]:
    """The skill folders `tile.json` lists, else `skills/*/` holding a SKILL.md."""
    try:
        manifest = json.loads((tile / "tile.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        manifest = None
    found: list[Path] = []
    skills = manifest.get("skills") if isinstance(manifest, dict) else None
    if isinstance(skills, dict):
        for entry in skills.values():
            path = entry.get("path") if isinstance(entry, dict) else None
            if isinstance(path, str) and (tile / path).is_file() and inside(tile / path, tile):
                found.append((tile / path).parent)
    if not found and (tile / "skills").is_dir():
        found = sorted(p.parent for p in (tile / "skills").glob("*/SKILL.md"))
    return found


def _pick(paths: list[Path], scenario: str, task: str) -> Path:
    for path in paths:  # a whole hyphen-bounded name, not any substring ("a" in "bypass")
        if f"-{path.name}-" in f"-{scenario}-" or f"/{path.name}/" in task:
            return path
    return paths[0]
