"""The `claude plugin eval` loader: one case folder, `evals/<case>/`.

The case is `case.yaml` (`schema_version`, `name`, `execution: {prompt, max_turns,
timeout_seconds, allowed_tools, model}`, `runs`, `graders:`, `expected_outcome`, `context:
{scaffold_script}`) and/or `prompt.md` (the prompt as its body, the same run fields in its
front matter), with one grader per `graders/<name>.md` (its fields in the front matter, a
regex pattern or an llm grader's criteria in the body). Their tool runs each case 3 times with
the plugin and 3 times without: here `runs` is 3 unless the case says, and the case asks for
the no-skill arm. `allowed_tools` and `model` are the action's inputs' to decide (warned).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.claude_plugin.graders import grader
from evolve_action.formats.claude_plugin.mocks import mock_servers
from evolve_action.formats.documents import Document, DocumentError, read
from evolve_action.formats.placement import inside
from evolve_action.model.evals import (
    Case,
    Fixture,
    Format,
    Item,
    LoadResult,
    Origin,
    Problem,
    SetupCommand,
    Severity,
    Skill,
    Suite,
    SuitePolicy,
)
from evolve_action.util.text import json_kind

NOT_MINE = (
    "not read: a case.yaml without `schema_version`, `execution` or `graders` is not a"
    " `claude plugin eval` case (an AgentV case file has `input` and `criteria`); nothing runs"
    " from it and no check fails for it"
)
DEFAULT_RUNS = 3  # their tool's sessions per arm
MAX_GRADERS = 200
SCAFFOLD_DIR = ".claude-plugin-eval"
IGNORED = ("allowed_tools", "model", "env")
CASE_KEYS = frozenset(
    {
        "schema_version",
        "name",
        "description",
        "tags",
        "execution",
        "runs",
        "graders",
        "expected_outcome",
        "context",
        "max_turns",
        "timeout_seconds",
        *IGNORED,
    }
)


def is_case(data: Any) -> bool:
    """A `case.yaml` of this format: `schema_version` with `execution` or `graders`, or a
    prompt folder's front matter only (`name` + `context`)."""
    if not isinstance(data, dict):
        return False
    if "front_matter" in data and "body" in data:
        return True
    return (
        "schema_version" in data
        or "execution" in data
        or (isinstance(data.get("graders"), list) and not ({"input", "criteria"} & set(data)))
    )


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    if not is_case(doc.data):
        notice = Problem(Origin(doc.rel, doc.line()), NOT_MINE, Severity.NOTICE)
        return LoadResult(doc.rel, None, None, (notice,))
    problems = Problems(doc)
    suite = _suite(doc, ctx, problems)
    return problems.result(Format.CLAUDE_PLUGIN, suite)


def _suite(doc: Document, ctx: LoadContext, problems: Problems) -> Suite | None:
    folder = doc.path.parent
    case_data, prompt_doc = _parts(doc, folder, problems)
    if case_data is None:
        return None
    front = prompt_doc.data.get("front_matter") if prompt_doc is not None else {}
    front = front if isinstance(front, dict) else {}
    run = {**front, **_mapping(case_data.get("execution"))}
    prompt = run.get("prompt")
    if not isinstance(prompt, str) and prompt_doc is not None:
        prompt = str(prompt_doc.data.get("body", ""))
    if not isinstance(prompt, str) or not prompt.strip():
        problems.error(
            ("execution", "prompt"),
            "the case has no prompt: write execution.prompt"
            " in case.yaml or the prompt as prompt.md's body",
        )
        return None
    for key in IGNORED:
        if key in run:
            problems.warn((), f"{key} is not applied: the action's inputs decide it")
    given = case_data.get("name")
    name = given if isinstance(given, str) and given.strip() else folder.name
    items = _graders(case_data, folder, problems)
    if not items:
        problems.error(
            ("graders",),
            "the case has no grader that runs here; their tool refuses"
            " a case with none: add graders/<name>.md or graders: in case.yaml",
        )
        return None
    files, setup = _scaffold(case_data, folder, ctx, problems)
    case = Case(
        id=name, prompt=prompt.strip(), origin=problems.origin(), name=name,
        expected_output=str(case_data.get("expected_outcome") or ""), items=tuple(items),
        files=files, setup_commands=setup, mcp_servers=mock_servers(folder, ctx, problems, name),
        max_turns=_count(run.get("max_turns")), timeout_seconds=_count(run.get("timeout_seconds")),
    )  # fmt: skip
    runs = _count(case_data.get("runs", front.get("runs"))) or DEFAULT_RUNS
    return Suite(
        format=Format.CLAUDE_PLUGIN, path=doc.path, rel=doc.rel, skill=_skill(folder, ctx, prompt),
        cases=(case,), name=name, runs=runs, policy=SuitePolicy(no_skill_arm=True),
        warnings=problems.warnings(),
    )  # fmt: skip


def _parts(
    doc: Document, folder: Path, problems: Problems
) -> tuple[dict[str, Any] | None, Document | None]:
    """case.yaml's mapping ({} when the folder has only prompt.md) and prompt.md's document."""
    if doc.path.suffix.lower() == ".md":
        return {}, doc
    if not isinstance(doc.data, dict):
        problems.error((), f"case.yaml is a mapping, not {json_kind(doc.data)}")
        return None, None
    for key in doc.data:
        if key not in CASE_KEYS:
            problems.warn((key,), f"unknown case key {key!r} is ignored; check its spelling")
    prompt_md = folder / "prompt.md"
    if not prompt_md.is_file():
        return doc.data, None
    try:
        return doc.data, read(prompt_md, f"{doc.rel.rpartition('/')[0]}/prompt.md")
    except DocumentError as exc:
        problems.warn((), f"prompt.md does not read ({exc.message}); it is not used")
        return doc.data, None


def _graders(case: dict[str, Any], folder: Path, problems: Problems) -> list[Item]:
    items: list[Item] = []
    inline = case.get("graders")
    for i, raw in enumerate(inline if isinstance(inline, list) else []):
        if not isinstance(raw, dict):
            problems.error(("graders", i), f"a grader is a mapping, not {json_kind(raw)}")
            continue
        name = str(raw.get("name") or f"grader-{i + 1}")
        body = str(raw.get("criteria") or raw.get("pattern") or "")
        found = grader(name, raw, body, ("graders", i), problems)
        if found is not None:
            items.append(found)
    directory = folder / "graders"
    files = sorted(directory.glob("*.md"))[:MAX_GRADERS] if directory.is_dir() else []
    for path in files:
        found = _file_grader(path, problems)
        if found is not None:
            items.append(found)
    return items


def _file_grader(path: Path, problems: Problems) -> Item | None:
    rel = f"{problems.doc.rel.rpartition('/')[0]}/graders/{path.name}"
    try:
        doc = read(path, rel)
    except DocumentError as exc:
        problems.add(Problem(Origin(rel, exc.line), _unread(exc.message), Severity.WARNING))
        return None
    fields = doc.data.get("front_matter")
    if not isinstance(fields, dict):
        problems.add(Problem(Origin(rel, 1), _unread("no front matter"), Severity.WARNING))
        return None
    sub = Problems(doc)
    found = grader(path.stem, fields, str(doc.data.get("body", "")), ("front_matter",), sub)
    for p in sub.items:
        problems.add(p)
    return found


def _unread(why: str) -> str:
    return (
        f"the grader does not read ({why}); it is not run: its front matter is a mapping"
        " with `type`"
    )


def _scaffold(
    case: dict[str, Any], folder: Path, ctx: LoadContext, problems: Problems
) -> tuple[tuple[Fixture, ...], tuple[SetupCommand, ...]]:
    """`context.scaffold_script`: staged into the workspace and run there before the agent."""
    script = _mapping(case.get("context")).get("scaffold_script")
    if not isinstance(script, str) or not script.strip():
        return (), ()
    source = (folder / script).resolve()
    at = ("context", "scaffold_script")
    if not inside(source, ctx.root.resolve()) or not source.is_file():
        problems.warn(
            at,
            f"scaffold script {script!r} is not a file of the case folder; the"
            " case runs without it",
        )
        return (), ()
    dest = f"{SCAFFOLD_DIR}/{source.name}"
    origin = problems.origin(*at)
    return (Fixture(source, dest, origin),), (SetupCommand(f"bash {dest}", origin),)


def _skill(folder: Path, ctx: LoadContext, prompt: str) -> Skill:
    """The plugin's skill: the plugin is the folder holding `evals/`; of several skills, the
    one the prompt names, else the skill discovery gave the file."""
    plugin = folder.parent.parent
    if (plugin / "SKILL.md").is_file():
        return Skill(plugin.name, plugin)
    skills = sorted(p.parent for p in (plugin / "skills").glob("*/SKILL.md"))
    named = [s for s in skills if s.name in prompt]
    chosen = named[0] if named else (skills[0] if len(skills) == 1 else None)
    if chosen is None:
        return ctx.skill
    return Skill(chosen.name, chosen, plugin=plugin.name, plugin_dir=plugin)


def _mapping(raw: Any) -> dict[str, Any]:
    return raw if isinstance(raw, dict) else {}


def _count(raw: Any) -> int | None:
    ok = isinstance(raw, int) and not isinstance(raw, bool) and raw > 0
    return raw if ok else None
