"""One waza task file as a case: `id`, `name`, `inputs.prompt`, `inputs.files` (staged from the
task's `context_dir`, else the eval's `fixtures/`), `expected`, `graders`, `timeout_seconds`,
follow-ups. The eval's global graders come after the task's own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.formats.graders.fields import At, text
from evolve_action.formats.placement import inside
from evolve_action.formats.waza.expected import expected_items
from evolve_action.formats.waza.follow_ups import follow_ups
from evolve_action.formats.waza.graders import grader_items
from evolve_action.model.evals import Case, Fixture, Item, Severity, Skill
from evolve_action.util.text import json_kind

TASK_KEYS = frozenset(
    {"id", "name", "description", "enabled", "context_dir", "timeout_seconds", "tags"}
    | {"inputs", "expected", "graders", "requirements", "continue_session", "follow_ups"}
)
MAX_TASK_BYTES = 1024 * 1024


def task_case(
    doc: Document,
    ctx: LoadContext,
    problems: Problems,
    path: Path,
    at: At,
    skill: Skill,
    timeout: float | None,
    shared: list[Item],
) -> Case | None:
    rel = path.relative_to(doc.path.parent).as_posix()
    try:
        raw = yaml.safe_load(path.read_bytes()[:MAX_TASK_BYTES])
    except (OSError, yaml.YAMLError, RecursionError) as exc:
        problems.error(at, f"task file {rel} does not read as YAML: {str(exc)[:200]}")
        return None
    if not isinstance(raw, dict):
        problems.error(at, f"task file {rel} is {json_kind(raw)}, not a task mapping")
        return None
    if raw.get("enabled") is False:
        problems.warn(at, f"task file {rel} is not run: it says enabled: false")
        return None
    sub = Problems(doc)  # task problems are placed at the `tasks` entry, naming the file
    inputs: dict[str, Any] = raw["inputs"] if isinstance(raw.get("inputs"), dict) else {}
    prompt = text(sub, at, inputs.get("prompt"))
    task_id = raw["id"] if isinstance(raw.get("id"), str) and raw["id"] else path.stem
    items: list[Item] = grader_items(sub, at, raw.get("graders"))
    items += expected_items(sub, at, raw.get("expected"), skill.name)
    items += shared
    files = _files(doc, ctx, sub, at, path, raw, inputs.get("files"))
    for problem in sub.items:
        message = f"{rel}: {problem.message}"
        (problems.error if problem.severity is Severity.ERROR else problems.warn)(at, message)
    for key in raw:
        if key not in TASK_KEYS:
            problems.warn(at, f"{rel}: unknown task key {key!r} is ignored")
    if prompt is None or files is None:
        return None
    own = raw.get("timeout_seconds")
    limit = float(own) if isinstance(own, int | float) and not isinstance(own, bool) else timeout
    name = raw["name"] if isinstance(raw.get("name"), str) else ""
    return Case(
        task_id,
        prompt,
        problems.origin(*at),
        name=name,
        files=tuple(files),
        items=tuple(items),
        timeout_seconds=limit,
        follow_ups=follow_ups(problems, at, rel, raw, inputs),
    )


def _files(
    doc: Document,
    ctx: LoadContext,
    problems: Problems,
    at: At,
    task: Path,
    raw: dict[str, Any],
    value: Any,
) -> list[Fixture] | None:
    """`inputs.files` relative to the task's `context_dir` (else the eval's `fixtures/`)."""
    if value is None:
        return []
    if not isinstance(value, list):
        problems.error(at, f"inputs.files must be a list, not {json_kind(value)}")
        return []
    context = raw.get("context_dir")
    bases = [task.parent / context] if isinstance(context, str) else []
    bases += [doc.path.parent / "fixtures", task.parent, doc.path.parent]
    root = ctx.root.resolve()
    files: list[Fixture] = []
    for entry in value:
        if isinstance(entry, dict) and "content" in entry:
            problems.warn(
                at,
                "this task is not run: inline file content cannot be staged by this"
                " build of evolve-action; put it in a file under fixtures/",
            )
            return None
        rel = entry.get("path") if isinstance(entry, dict) else entry
        if not isinstance(rel, str) or not rel:
            problems.error(at, "an inputs.files entry is {path: <file>}")
            continue
        source = next(
            (b / rel for b in bases if (b / rel).is_file() and inside(b / rel, root)), None
        )
        if source is None:  # the task runs without it, as a reference left unresolved
            problems.warn(
                at,
                f"inputs.files {rel!r} is not in the context folder: the task runs without"
                " it; add it",
            )
            continue
        files.append(Fixture(source.absolute(), rel, problems.origin(*at)))
    return files
