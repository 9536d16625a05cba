"""The waza loader: `eval.yaml` holding `tasks:` (file globs, or `include:` entries) and
`trigger_tests.yaml`, in both schema versions (1.x, and 2.0's `schemaVersion`, `scenario`,
`requirements`).

Each task file (`id`, `name`, `inputs.prompt`, `inputs.files`, `expected`, `graders`,
`timeout_seconds`) is one case; the eval's global `graders` apply to every task after its
own. `config.trials_per_task` is the runs, `config.timeout_seconds` each task's timeout.
`metrics` thresholds score a whole suite in waza; here the action's verdict across base and
head takes their place (warned). A trigger file's `should_trigger_prompts` and
`should_not_trigger_prompts` are trigger cases, as evolve's triggers are.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.formats.evolve.params import TriggerParams
from evolve_action.formats.evolve.triggers import fired_text
from evolve_action.formats.graders.fields import At
from evolve_action.formats.mcp_servers import read_servers
from evolve_action.formats.placement import inside
from evolve_action.formats.waza.graders import grader_items
from evolve_action.formats.waza.params import BehaviorParams
from evolve_action.formats.waza.task import task_case
from evolve_action.model.evals import (
    Case,
    CaseKind,
    Check,
    Format,
    LoadResult,
    Origin,
    Problem,
    Severity,
    Skill,
    Suite,
)
from evolve_action.model.mcp import McpServer
from evolve_action.util.text import json_kind

TOP_KEYS = frozenset(
    {"name", "description", "skill", "version", "config", "metrics", "graders", "tasks"}
    | {"schemaVersion", "scenario", "requirements", "baseline", "inputs"}
)
SPECIAL = {
    "hooks": "not run: hooks run commands around the tasks, which evolve-action does not do;"
    " commit what they prepare as task files instead",
    "tasks_from": "tasks_from (tasks kept in another file) is not supported yet; list the task"
    " files under tasks:",
    "range": "not applied: every task runs here",
}
CONFIG_READ = ("trials_per_task", "timeout_seconds", "mcp_servers")
CONFIG_NO_EFFECT = frozenset(
    {
        "parallel",
        "max_workers",
        "fail_fast",
        "verbose",
        "model",
        "max_attempts",
        "skill_directories",
    }
)
MAX_TASKS = 500


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    problems = Problems(doc)
    data = doc.data
    suite: Suite | None
    if isinstance(data, dict) and (
        "should_trigger_prompts" in data or "should_not_trigger_prompts" in data
    ):
        suite = _triggers(doc, ctx, problems, data)
    else:
        suite = _suite(doc, ctx, problems)
    fmt = suite.format if suite is not None else Format.WAZA
    return problems.result(fmt, suite)


def _skill(doc: Document, ctx: LoadContext, name: Any) -> Skill:
    """The skill `skill:` names: beside the eval (or above `tests/`), else a `skills/<name>/`
    folder of the repository, else discovery's."""
    if not isinstance(name, str) or not name.strip():
        return ctx.skill
    root = ctx.root.resolve()
    for folder in (doc.path.parent, doc.path.parent.parent):
        if (folder / "SKILL.md").is_file() and inside(folder, root):
            return Skill(name, folder.resolve())
    found = sorted(root.glob(f"**/skills/{name}/SKILL.md"))
    if found:
        return Skill(name, found[0].parent)
    return Skill(name, ctx.skill.dir if ctx.skill.name == name else None)


def _suite(doc: Document, ctx: LoadContext, problems: Problems) -> Suite | None:
    data = doc.data
    if not isinstance(data, dict):
        problems.error((), f"a waza eval is a mapping with `tasks:`, not {json_kind(data)}")
        return None
    for key in data:
        if key in SPECIAL:
            (problems.error if key == "tasks_from" else problems.warn)((key,), SPECIAL[key])
        elif key not in TOP_KEYS:
            problems.warn((key,), f"unknown waza key {key!r} is ignored; check its spelling")
    if data.get("metrics") is not None:
        problems.warn(
            ("metrics",),
            "not applied: waza's metric thresholds score a whole run"
            " of the suite; here the action's verdict on base and head decides",
        )
    if data.get("requirements") is not None:
        problems.warn(
            ("requirements",),
            "not graded on their own: requirements map onto the"
            " graders they name, which are graded",
        )
    runs, timeout = _config(problems, data.get("config"))
    skill = _skill(doc, ctx, data.get("skill"))
    shared = grader_items(problems, ("graders",), data.get("graders"), prefix="global-")
    cases: list[Case] = []
    seen: dict[str, Origin] = {}
    for path, at in _task_files(doc, ctx, problems, data.get("tasks")):
        mark = problems.mark()
        case = task_case(doc, ctx, problems, path, at, skill, timeout, shared)
        if problems.demote_since(mark, "this task is not run; the suite's other tasks run"):
            continue
        if case is None:
            continue
        if case.id in seen:
            problems.error(at, f"task id {case.id!r} is already used at {seen[case.id]}")
            continue
        seen[case.id] = case.origin
        cases.append(case)
    if not cases and not problems.has_errors:
        problems.not_run(("tasks",), "no task of this suite can run here (below, why)")
        return None
    servers = _servers(problems, data.get("config"))
    if servers:  # every task's agent gets the config's MCP servers
        cases = [replace(c, mcp_servers=servers) for c in cases]
    _undeclared_required(problems, cases, {s.name for s in servers})
    name = data.get("name") if isinstance(data.get("name"), str) else ""
    return Suite(
        format=Format.WAZA,
        path=doc.path,
        rel=doc.rel,
        skill=skill,
        cases=tuple(cases),
        name=name or skill.name,
        runs=runs,
        warnings=problems.warnings(),
    )


def _servers(problems: Problems, config: Any) -> tuple[McpServer, ...]:
    """`config.mcp_servers`: the servers by name, as MCP clients declare them."""
    value = config.get("mcp_servers") if isinstance(config, dict) else None
    return read_servers(problems, ("config", "mcp_servers"), value, case="every task")


def _undeclared_required(problems: Problems, cases: list[Case], declared: set[str]) -> None:
    """A `required_mcp_servers` entry no `config.mcp_servers` declares can never hold: a run's
    agent gets the declared servers and no other. Warned once per grader and server."""
    said: set[tuple[Origin, str]] = set()
    for case in cases:
        for check in case.checks:
            if not isinstance(check.params, BehaviorParams):
                continue
            for server in check.params.expect_servers:
                if server in declared or (check.origin, server) in said:
                    continue
                said.add((check.origin, server))
                problems.add(Problem(check.origin, f"required_mcp_servers names {server!r}, "
                    "which `config.mcp_servers` does not declare; a run's agent has only the "
                    "declared servers, so this rule always fails", Severity.WARNING))  # fmt: skip


def _config(problems: Problems, value: Any) -> tuple[int | None, float | None]:
    if value is None:
        return None, None
    if not isinstance(value, dict):
        problems.error(("config",), f"must be a mapping, not {json_kind(value)}")
        return None, None
    runs = value.get("trials_per_task")
    if runs is not None and (isinstance(runs, bool) or not isinstance(runs, int) or runs < 1):
        problems.error(("config", "trials_per_task"), f"must be a whole number ≥ 1, not {runs!r}")
        runs = None
    timeout = value.get("timeout_seconds")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        problems.error(
            ("config", "timeout_seconds"), f"must be a number of seconds, not {timeout!r}"
        )
        timeout = None
    executor = value.get("executor")
    if executor not in (None, "copilot-sdk"):
        problems.warn(
            ("config", "executor"),
            f"not applied: executor {executor!r} is waza's; here"
            " the action's own agent runs every task with the `models` input",
        )
    for key in value:
        if key not in (*CONFIG_READ, "executor") and key not in CONFIG_NO_EFFECT:
            problems.warn(("config", key), f"unknown config key {key!r} is ignored")
    return runs, float(timeout) if timeout is not None else None


def _task_files(
    doc: Document, ctx: LoadContext, problems: Problems, value: Any
) -> list[tuple[Path, At]]:
    """Every task file the `tasks:` patterns name, in pattern then name order."""
    if not isinstance(value, list) or not value:
        problems.error(("tasks",), "must be a non-empty list of task file patterns")
        return []
    root = ctx.root.resolve()
    found: list[tuple[Path, At]] = []
    seen: set[Path] = set()
    for i, entry in enumerate(value):
        pattern = entry.get("include") if isinstance(entry, dict) else entry
        if not isinstance(pattern, str) or not pattern.strip():
            inline = isinstance(entry, dict) and "prompt" in entry
            said = (
                "an inline task, which waza's schema does not take (tasks are file globs,"
                " e.g. tasks/*.yaml); move it to a task file"
                if inline
                else "a task entry is a file glob or {include: <glob>}"
            )
            problems.error(("tasks", i), said)
            continue
        matches = sorted(p for p in doc.path.parent.glob(pattern) if p.is_file())
        matches = [p for p in matches if inside(p, root)]
        if not matches:
            problems.warn(
                ("tasks", i),
                f"{pattern!r} names no task file next to the eval (nothing of it runs; the"
                " other patterns' tasks do); fix it",
            )
            continue
        for path in matches:
            if path not in seen and len(seen) < MAX_TASKS:
                seen.add(path)
                found.append((path, ("tasks", i)))
    return found


def _triggers(doc: Document, ctx: LoadContext, problems: Problems, data: dict[str, Any]) -> Suite:
    """waza's `trigger_tests.yaml` as trigger cases (the skill fires, or does not)."""
    skill = _skill(doc, ctx, data.get("skill"))
    cases: list[Case] = []
    seen: set[str] = set()
    for key, should in (("should_trigger_prompts", True), ("should_not_trigger_prompts", False)):
        entries = data.get(key) or []
        if not isinstance(entries, list):
            problems.error(
                (key,), f"must be a list of {{prompt}} entries, not {json_kind(entries)}"
            )
            continue
        for j, entry in enumerate(entries):
            prompt = entry.get("prompt") if isinstance(entry, dict) else entry
            if not isinstance(prompt, str) or not prompt.strip():
                problems.error((key, j), "an entry is {prompt: <text>}")
                continue
            if prompt in seen:
                problems.warn((key, j), "this prompt is already listed; it runs once")
                continue
            seen.add(prompt)
            origin = problems.origin(key, j)
            check = Check(
                "fired",
                "triggers.fired",
                fired_text(skill.name, should),
                origin,
                TriggerParams(skill.name, should),
                source="trigger",
            )
            cases.append(
                Case(
                    prompt,
                    prompt,
                    origin,
                    kind=CaseKind.TRIGGER,
                    items=(check,),
                    should_trigger=should,
                )
            )
    return Suite(
        Format.TRIGGERS,
        doc.path.absolute(),
        doc.rel,
        skill,
        tuple(cases),
        name=skill.name,
        warnings=problems.warnings(),
    )
