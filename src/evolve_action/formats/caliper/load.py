"""The caliper loader.

A spec is `skills: [paths]` (or `skill: {path}`), `sandbox`, `mcp`, `judge` and `tasks: [{name,
prompt, setup, cleanup, expect, assert, activates}]`. Each task is a case: `expect` a binary
judge item, each `activates` skill a check that the skill fired, `setup` a command run in the
workspace first. `mcp` servers (by name, as MCP clients declare them) are started for every
task (`formats/mcp_servers.py`). An `assert` is Python over caliper's sandbox and `sandbox`
settings cannot be provided here: each is warned (naming the task) and the rest runs; a task
with nothing left to grade is not run. `cleanup` is moot: a run's workspace is discarded.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.formats.evolve.params import TriggerParams
from evolve_action.formats.mcp_servers import read_servers
from evolve_action.formats.placement import inside
from evolve_action.model.evals import (
    Case,
    Check,
    Format,
    Item,
    JudgeItem,
    LoadResult,
    Origin,
    Problem,
    Scale,
    SetupCommand,
    Severity,
    Skill,
    Suite,
)
from evolve_action.util.text import json_kind

TOP = frozenset({"skills", "skill", "sandbox", "mcp", "judge", "tasks", "name", "description"})
TASK = frozenset({"name", "prompt", "setup", "cleanup", "expect", "assert", "activates", "id"})


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    problems = Problems(doc)
    data = doc.data if isinstance(doc.data, dict) else {}
    for key in data:
        if key not in TOP:
            problems.warn((key,), f"unknown caliper key {key!r} is ignored")
    if "sandbox" in data:
        problems.warn(("sandbox",), "sandbox: caliper's sandbox settings do not apply here;"
                      " the tasks run without them")  # fmt: skip
    servers = read_servers(problems, ("mcp",), data.get("mcp"), case="every task")
    skill = _skill(doc, ctx, data)
    given = data.get("tasks")
    tasks: list[Any] = given if isinstance(given, list) else []
    cases = [c for i, raw in enumerate(tasks) if (c := _case(problems, i, raw, skill))]
    cases = [replace(c, mcp_servers=servers) for c in cases] if servers else cases
    if not cases and tasks:
        lead = Problem(
            Origin(doc.rel, doc.line("tasks")),
            "not run: no task has anything that can be graded here (an `expect` or `activates`)",
            Severity.WARNING,
        )
        return LoadResult(doc.rel, Format.CALIPER, None, (lead, *problems.items))
    if not cases:
        problems.error(("tasks",), "no task: give one a prompt and an `expect`")
    suite = Suite(
        format=Format.CALIPER, path=doc.path, rel=doc.rel, skill=skill, cases=tuple(cases),
        name=doc.path.name.removesuffix(".eval.yaml"),
        warnings=problems.warnings(),
    )  # fmt: skip
    return problems.result(Format.CALIPER, suite)


def _case(problems: Problems, i: int, raw: Any, skill: Skill) -> Case | None:
    at = ("tasks", i)
    if not isinstance(raw, dict):
        problems.error(at, f"a task is a mapping with a prompt, not {json_kind(raw)}")
        return None
    given = raw.get("name")
    name = given if isinstance(given, str) and given.strip() else f"task-{i + 1}"
    prompt = raw.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        problems.warn((*at, "prompt"), f"task {name!r} has no prompt; it is not run")
        return None
    for key in raw:
        if key not in TASK:
            problems.warn((*at, key), f"unknown task key {key!r} is ignored")
    if "assert" in raw:
        problems.warn(
            (*at, "assert"),
            f"task {name!r}: its inline Python assert runs in"
            " caliper's sandbox and is not run here; the rest of the task runs",
        )
    items: list[Item] = []
    if isinstance(raw.get("expect"), str) and raw["expect"].strip():
        items.append(JudgeItem("expect", raw["expect"].strip(), problems.origin(*at, "expect"),
                               Scale.BINARY, source="expect"))  # fmt: skip
    activates = raw.get("activates")
    for j, fired in enumerate(activates if isinstance(activates, list) else []):
        if isinstance(fired, str):
            params = TriggerParams(fired, True)
            origin = problems.origin(*at, "activates", j)
            items.append(Check(f"activates-{fired}", "triggers.fired", f"skill {fired} fires",
                               origin, params, source="activates"))  # fmt: skip
    if not items:
        problems.warn(at, f"task {name!r} is not run: nothing of it can be graded here")
        return None
    setup = raw.get("setup")
    commands = (
        (SetupCommand(setup, problems.origin(*at, "setup"), check_exit=False),)
        if isinstance(setup, str) and setup.strip() else ()
    )  # fmt: skip
    return Case(id=name, prompt=prompt.strip(), origin=problems.origin(*at), name=name,
                items=tuple(items), setup_commands=commands)  # fmt: skip


def _skill(doc: Document, ctx: LoadContext, data: dict[str, Any]) -> Skill:
    named = data.get("skills")
    paths = [p for p in named if isinstance(p, str)] if isinstance(named, list) else []
    single = data.get("skill")
    if isinstance(single, dict) and isinstance(single.get("path"), str):
        paths.append(single["path"])
    for path in paths:
        folder = (doc.path.parent / path).resolve()
        folder = folder.parent if folder.name == "SKILL.md" else folder
        if (folder / "SKILL.md").is_file() and inside(folder, ctx.root.resolve()):
            return Skill(_name(folder), folder)
    return ctx.skill


def _name(folder: Path) -> str:
    return folder.name
