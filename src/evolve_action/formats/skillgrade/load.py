"""The skillgrade loader.

`version`, `skill`, `defaults: {agent, provider, trials, timeout, threshold, docker}` and
`tasks: [{name, instruction, workspace: [{src, dest}], graders, trials, timeout}]`. Each task
is a case: `instruction` the prompt, `workspace` its fixtures, a `deterministic` grader a
confined command whose printed score is the item's (weighted), an `llm_rubric` grader a judge
item scored 0-1 (weighted); `defaults.threshold` the weighted score a run must reach.
Docker images and their setup cannot run here: warned, and the task runs in the action's
workspace (its tools may then be missing, which its graders will show).
"""

from __future__ import annotations

from typing import Any

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.formats.placement import inside
from evolve_action.formats.skillgrade.checks import CommandParams
from evolve_action.model.evals import (
    Case,
    Check,
    Fixture,
    Format,
    Item,
    JudgeItem,
    LoadResult,
    Origin,
    Problem,
    Scale,
    Severity,
    Suite,
    SuitePolicy,
)
from evolve_action.util.text import json_kind

At = tuple[str | int, ...]


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    problems = Problems(doc)
    data = doc.data if isinstance(doc.data, dict) else {}
    defaults = _mapping(data.get("defaults"))
    if "docker" in defaults or defaults.get("provider") == "docker":
        problems.warn(("defaults",), "Docker images and their setup do not run here: the tasks"
                      " run in the action's workspace, without the image's tools")  # fmt: skip
    for key in ("agent", "model"):
        if key in defaults:
            problems.warn(("defaults", key), f"{key} is not applied: the action's inputs decide")
    tasks = _list(data.get("tasks"))
    cases: list[Case] = []
    for i, raw in enumerate(tasks):
        mark = problems.mark()
        case = _case(doc, ctx, problems, i, raw)
        left_out = problems.demote_since(mark, "this task is not run; the file's other tasks run")
        cases += [case] if case is not None and not left_out else []
    if not cases and tasks:
        lead = Problem(Origin(doc.rel, doc.line("tasks")), "not run: no task has a grader that"
                       " runs here", Severity.WARNING)  # fmt: skip
        return LoadResult(doc.rel, Format.SKILLGRADE, None, (lead, *problems.items))
    if not cases:
        problems.error(("tasks",), "no task: give one an instruction and graders")
    threshold = defaults.get("threshold")
    pass_mark = float(threshold) if isinstance(threshold, int | float) else None
    trials = defaults.get("trials")
    suite = Suite(
        format=Format.SKILLGRADE, path=doc.path, rel=doc.rel, skill=ctx.skill, cases=tuple(cases),
        runs=trials if isinstance(trials, int) and trials > 0 else None,
        policy=SuitePolicy(threshold=pass_mark),
        warnings=problems.warnings(),
    )  # fmt: skip
    return problems.result(Format.SKILLGRADE, suite)


def _case(doc: Document, ctx: LoadContext, problems: Problems, i: int, raw: Any) -> Case | None:
    at: At = ("tasks", i)
    if not isinstance(raw, dict):
        problems.error(at, f"a task is a mapping with an instruction, not {json_kind(raw)}")
        return None
    name = _text(raw.get("name")) or f"task-{i + 1}"
    instruction = raw.get("instruction")
    if not isinstance(instruction, str) or not instruction.strip():
        problems.warn((*at, "instruction"), f"task {name!r} has no instruction; it is not run")
        return None
    graders = _list(raw.get("graders"))
    items = [it for j, g in enumerate(graders) if (it := _grader(problems, (*at, "graders", j), g))]
    if not items:
        problems.warn(at, f"task {name!r} is not run: none of its graders runs here")
        return None
    timeout = raw.get("timeout")
    seconds = float(timeout) if isinstance(timeout, int | float) and timeout > 0 else None
    return Case(
        id=name, prompt=instruction.strip(), origin=problems.origin(*at), name=name,
        items=tuple(items), files=_workspace(doc, ctx, problems, at, raw.get("workspace")),
        timeout_seconds=seconds,
    )  # fmt: skip


def _grader(problems: Problems, at: At, raw: Any) -> Item | None:
    if not isinstance(raw, dict):
        problems.warn(at, f"a grader is a mapping with a type, not {json_kind(raw)}; not run")
        return None
    given = raw.get("weight", 1)
    weight = float(given) if isinstance(given, int | float) and given > 0 else 1.0
    origin = problems.origin(*at)
    kind, ident = raw.get("type"), f"grader-{at[-1] if isinstance(at[-1], int) else 0}"
    ident = f"{ident.split('-')[0]}-{int(at[-1]) + 1}" if isinstance(at[-1], int) else ident
    if kind == "deterministic" and isinstance(raw.get("run"), str):
        return Check(
            ident,
            "skillgrade.deterministic",
            f"deterministic grader: {raw['run'][:80]}",
            origin,
            CommandParams(raw["run"]),
            weight=weight,
            source="deterministic",
        )
    if kind == "llm_rubric" and isinstance(raw.get("rubric"), str):
        return JudgeItem(ident, raw["rubric"].strip(), origin, Scale.UNIT, weight=weight,
                         source="llm_rubric")  # fmt: skip
    problems.warn(at, f"grader type {kind!r} (or its `run`/`rubric`) is not one this reads;"
                  " it is not run")  # fmt: skip
    return None


def _mapping(raw: Any) -> dict[str, Any]:
    return raw if isinstance(raw, dict) else {}


def _list(raw: Any) -> list[Any]:
    return raw if isinstance(raw, list) else []


def _text(raw: Any) -> str:
    return raw if isinstance(raw, str) else ""


def _workspace(
    doc: Document, ctx: LoadContext, problems: Problems, at: At, raw: Any
) -> tuple[Fixture, ...]:
    out: list[Fixture] = []
    root = ctx.root.resolve()
    for j, entry in enumerate(raw if isinstance(raw, list) else []):
        src = entry.get("src") if isinstance(entry, dict) else None
        if not isinstance(src, str):
            continue
        source = doc.path.parent / src
        dest = entry.get("dest") if isinstance(entry.get("dest"), str) else src
        if not source.is_file() or not inside(source, root):
            problems.warn((*at, "workspace", j), f"{src!r} is not a file beside the eval; the"
                          " task runs without it")  # fmt: skip
            continue
        out.append(
            Fixture(source.absolute(), dest.strip("/"), problems.origin(*at, "workspace", j))
        )
    return tuple(out)
