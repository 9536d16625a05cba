"""One Vally stimulus as one case: its prompt, staged files, graders, rubric, constraints and
`expect_activation`.

The root `environment` is merged into each stimulus's own (files of both are staged, the
stimulus's last so they win on a shared destination; the root's commands run first). Its
`turns` are read by `vally_turns`; its `environment.commands` run in the workspace, in the
confinement, before the agent starts; its `mcpServers` (the root's, then the stimulus's) are
started per run (`formats/mcp_servers.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.formats.graders.fields import (
    At,
    label,
    mapping,
    seconds,
    statements,
    strings,
    text,
)
from evolve_action.formats.graders.gates import activation_check, constraint_items
from evolve_action.formats.mcp_servers import read_servers
from evolve_action.formats.placement import inside
from evolve_action.formats.vally.graders import grader_items
from evolve_action.formats.vally.turns import user_turns
from evolve_action.model.evals import Case, CaseExtra, Fixture, Item, SetupCommand, Skill
from evolve_action.model.mcp import McpServer
from evolve_action.util.text import json_kind

STIMULUS_READ = frozenset(
    {"name", "prompt", "turns", "graders", "rubric", "constraints", "environment"}
    | {"expect_activation", "timeout", "description"}
)
# Labels Vally's filters and reports use (`--tag`, suites' `filter`), no effect on a run;
# `invariants` name the graders `vally compare` expects to agree across arms.
STIMULUS_NO_EFFECT = frozenset({"tags", "category", "invariants", "id"})
ENV_KEYS = ("skills", "files", "commands", "mcpServers")
MAX_FILES = 2000  # files staged from one stimulus's folders; a bound, not a Vally rule


@dataclass(frozen=True)
class Shared:
    """What every stimulus of one spec reads."""

    doc: Document
    ctx: LoadContext
    problems: Problems
    skill: Skill
    timeout: float | None
    environment: Any  # the root `environment`, merged into each stimulus's
    servers: tuple[McpServer, ...] = ()  # the root environment's `mcpServers`, read once


def build_case(shared: Shared, at: At, raw: Any) -> Case | None:
    problems = shared.problems
    if not isinstance(raw, dict):
        problems.error(at, f"a stimulus is a mapping with name and prompt, not {json_kind(raw)}")
        return None
    for key in raw:
        if key not in STIMULUS_READ and key not in STIMULUS_NO_EFFECT:
            problems.warn(
                (*at, key), f"unknown stimulus key {key!r} is ignored; check its spelling"
            )
    name = label(problems, (*at, "name"), raw.get("name"), f"stimulus-{int(at[-1]) + 1}")
    turns = user_turns(problems, at, raw)
    if turns is None:
        return None
    files, commands = _environment(shared, at, raw.get("environment"))
    timeout = shared.timeout
    if raw.get("timeout") is not None:
        timeout = seconds(problems, (*at, "timeout"), raw["timeout"])
    rubric = _rubric(problems, at, raw.get("rubric"))
    items: list[Item] = grader_items(problems, at, raw.get("graders"), rubric, len(turns))
    constraints, max_turns = constraint_items(problems, at, raw.get("constraints"))
    items += constraints
    activation = raw.get("expect_activation")
    if activation is not None:
        check = activation_check(problems, (*at, "expect_activation"), activation, shared.skill)
        if check is not None:
            items.append(check)
    authored = raw.get("graders")
    if not items and isinstance(authored, list) and authored:
        problems.warn(at, f"stimulus {name!r} is not run: none of its graders runs here")
        return None
    if not items:
        problems.warn(at, f"stimulus {name!r} has no graders: every run of it passes")
    return Case(
        id=name,
        prompt=turns[0],
        origin=problems.origin(*at),
        follow_ups=turns[1:],
        setup_commands=tuple(commands),
        files=tuple(files),
        items=tuple(items),
        max_turns=max_turns,
        timeout_seconds=timeout,
        extra=CaseExtra(rubric=tuple(rubric)),
        mcp_servers=_servers(shared, at, raw.get("environment"), name),
    )


def root_servers(problems: Problems, environment: Any) -> tuple[McpServer, ...]:
    """The root environment's `mcpServers`, which every stimulus gets."""
    if not isinstance(environment, dict):
        return ()
    value = environment.get("mcpServers")
    return read_servers(problems, ("environment", "mcpServers"), value, case="every stimulus")


def _servers(shared: Shared, at: At, own: Any, name: str) -> tuple[McpServer, ...]:
    """The root's servers, then the stimulus's own; a name both declare is the stimulus's."""
    value = own.get("mcpServers") if isinstance(own, dict) else None
    where = (*at, "environment", "mcpServers")
    mine = read_servers(shared.problems, where, value, case=f"stimulus {name!r}")
    names = {s.name for s in mine}
    return (*(s for s in shared.servers if s.name not in names), *mine)


def _rubric(problems: Problems, at: At, value: Any) -> list[str]:
    if value is None:
        return []
    return statements(problems, (*at, "rubric"), value) or []


def _environment(shared: Shared, at: At, own: Any) -> tuple[list[Fixture], list[SetupCommand]]:
    """Files to stage and commands to run, root environment first."""
    files: list[Fixture] = []
    commands: list[SetupCommand] = []
    for where, env in ((("environment",), shared.environment), ((*at, "environment"), own)):
        block = mapping(shared.problems, where, env)
        if not block:
            continue
        for key in block:
            if key not in ENV_KEYS:
                shared.problems.warn((*where, key), f"unknown environment key {key!r} is ignored")
        if block.get("commands") is not None:
            said = strings(shared.problems, (*where, "commands"), block["commands"]) or []
            commands += [
                SetupCommand(run, shared.problems.origin(*where, "commands", i))
                for i, run in enumerate(said)
            ]
        entries = block.get("files")
        if entries is None:
            continue
        if not isinstance(entries, list):
            shared.problems.error((*where, "files"), f"must be a list, not {json_kind(entries)}")
            continue
        for j, entry in enumerate(entries):
            files += _fixtures(shared, (*where, "files", j), entry)
    return files, commands


def _fixtures(shared: Shared, at: At, entry: Any) -> list[Fixture]:
    """`{src, dest}` (a file, or a folder staged file by file), relative to the eval spec."""
    problems = shared.problems
    if isinstance(entry, str):
        entry = {"src": entry, "dest": entry}
    if not isinstance(entry, dict):
        problems.error(at, f"a file entry is {{src, dest}}, not {json_kind(entry)}")
        return []
    src = text(problems, (*at, "src"), entry.get("src"))
    dest = entry.get("dest", src)
    if src is None or not isinstance(dest, str):
        if src is not None:
            problems.error((*at, "dest"), f"must be a path, not {json_kind(dest)}")
        return []
    root = shared.ctx.root.resolve()
    source = shared.doc.path.parent / src
    if not inside(source, root):
        problems.refuse((*at, "src"), f"{src!r} leads outside the repository; keep fixtures in it")
        return []
    origin = problems.origin(*at)
    dest = dest.strip("/") or "."
    if source.is_file():
        return [Fixture(source.absolute(), dest, origin)]
    if not source.is_dir():  # Vally would fail the trial; here the case runs without it
        problems.warn(
            (*at, "src"),
            f"{src!r} does not exist next to the eval file: the stimulus runs without it;"
            " add it or fix the path",
        )
        return []
    found = sorted(p for p in source.rglob("*") if p.is_file() and not p.is_symlink())
    if len(found) > MAX_FILES:
        problems.refuse((*at, "src"), f"{src!r} holds more than {MAX_FILES} files; stage fewer")
        return []
    return [
        Fixture(p.absolute(), _join(dest, p.relative_to(source).as_posix()), origin) for p in found
    ]


def _join(dest: str, rel: str) -> str:
    return rel if dest == "." else f"{dest}/{rel}"
