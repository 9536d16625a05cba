"""AXIS's config (`axis.config.json`, or the literal object an `axis.config.ts`/`.js`
exports): whether a file of that name is AXIS's, its keys, and the scenario files its
`scenarios` names (a folder walked for scenarios, a file, or a list of both; `./scenarios`
when it names none)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.formats.documents_js import CODE_KEY, SUFFIXES
from evolve_action.formats.placement import inside

MAX_SCENARIOS = 2_000
CODE = SUFFIXES  # scenario modules
CONFIG_KEYS = frozenset(
    {"scenarios", "agents", "judging", "settings", "adapters", "$schema", "skills", "name"}
    | {"artifacts"}
)
# Keys of AXIS's config that a run here does not apply, and why.
NOT_APPLIED = {
    "env": "not passed: the job's environment variables never reach the agent of a pull"
    " request's eval; scenarios that need them run without",
    "mcp_servers": "not started: MCP servers a config names are not run for a pull request's"
    " eval; scenarios run without them",
    "beforeAll": "not run: a config's lifecycle scripts are code a run here does not execute",
    "afterAll": "not run: a config's lifecycle scripts are code a run here does not execute",
}
AXIS_ONLY = ("agents", "judging", "adapters", "mcp_servers", "beforeAll", "afterAll")
DEFAULT_SCENARIOS = "./scenarios"  # where AXIS looks when the config names no `scenarios`
NOT_MINE = (
    "not read: this axis.config file has neither `scenarios` nor a key only AXIS's config"
    " has, so it is not an AXIS config; nothing runs from it and no check fails for it"
)


def is_axis(data: Any) -> bool:
    """AXIS's config: `scenarios` as a path or a list, or a key only AXIS's config has (it
    then looks in `./scenarios`). Another tool's file of the same name has neither."""
    if not isinstance(data, dict):
        return False
    if isinstance(data.get("scenarios"), str | list):
        return True
    return "scenarios" not in data and any(key in data for key in AXIS_ONLY)


def check_keys(problems: Problems, data: dict[str, Any]) -> None:
    for key in data:
        if key not in CONFIG_KEYS and key not in NOT_APPLIED and key != CODE_KEY:
            problems.warn((key,), f"unknown AXIS key {key!r} is ignored")
    for key, why in NOT_APPLIED.items():
        if key in data:
            problems.warn((key,), why)
    if data.get(CODE_KEY):
        said = ", ".join(str(k) for k in data[CODE_KEY][:6])
        problems.warn(
            (), f"written as code, which is not run here, so left out: {said}; the rest of"
            " the config is read",
        )  # fmt: skip


def scenario_files(doc: Document, ctx: LoadContext, problems: Problems, raw: Any) -> list[Path]:
    """The scenario files of `scenarios`: a folder (walked for scenarios), a file, or a list
    of both; a remote repository or an inline scenario is warned, never fetched or run."""
    entries = raw if isinstance(raw, list) else [raw]
    root = ctx.root.resolve()
    out: list[Path] = []
    for i, entry in enumerate(entries):
        at: tuple[str | int, ...] = ("scenarios", i) if isinstance(raw, list) else ("scenarios",)
        if not isinstance(entry, str):
            problems.warn(at, "an inline scenario is code of a JS/TS config; not run here")
            continue
        if "://" in entry or entry.startswith("git@"):
            problems.warn(at, f"{entry!r} is a remote repository's scenarios; not fetched here")
            continue
        target = (doc.path.parent / entry).resolve()
        if not inside(target, root):
            problems.warn(at, f"{entry!r} leads outside the repository; not read")
        elif target.is_dir():
            out += _walk(target)
        elif target.is_file():
            out.append(target)
        else:  # made by a build step, or a typo: nothing to run either way
            problems.warn(
                at, f"{entry!r} is no folder or file of the repository (a folder a build step"
                " makes is not made here); fix the path to have it run",
            )  # fmt: skip
    return out[:MAX_SCENARIOS]


def _walk(folder: Path) -> list[Path]:
    out: list[Path] = []
    for path in sorted(folder.rglob("*")):
        if "node_modules" in path.parts or not path.is_file() or path.is_symlink():
            continue
        if path.suffix == ".json" or (path.suffix in CODE and not path.name.endswith(".d.ts")):
            out.append(path)
            if len(out) >= MAX_SCENARIOS:
                break
    return out
