"""AgentV's `workspace:`: what the agent's working folder holds before a case runs.

A `template:` folder is copied into every run's workspace, file by file, as the case's
fixtures; a skill kept in it (`.claude/skills/<name>/SKILL.md`, or the `.agents`, `.codex`,
`.github`, `.copilot` equivalents) is the skill the suite evaluates when the file's
`skill-trigger` graders name it. Every run gets a fresh copy, which is what `mode: pooled` or
`temp` and a `reset` hook ask for.

What cannot be honoured is rejected, never ignored: hooks that run commands (`before_all`,
...), `repos` to clone, a `docker` image, a `static` workspace at a host path.
The workspace is the suite's `workspace:` (inline, or the path of a YAML file holding it), or
a case's own, which wins.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evolve_action.formats.agentv.common import At, Src, rel_dir, resolve_file
from evolve_action.formats.agentv.tests import read_src
from evolve_action.model.evals import Fixture
from evolve_action.util.text import json_kind

SKILL_HOMES = (".claude/skills", ".agents/skills", ".codex/skills", ".github/skills")
SKILL_HOMES_MORE = (".copilot/skills",)
HOOKS = ("before_all", "before_each", "after_each", "after_all")
MAX_TEMPLATE_FILES = 2000  # a template this large is a checkout, not a fixture set
_SKIP = frozenset({".git", "node_modules", "__pycache__", ".venv"})
_KEYS = ("template", "isolation", "repos", "hooks", "mode", "path", "docker", "env")


@dataclass(frozen=True)
class Workspace:
    files: tuple[Fixture, ...] = ()
    skills: dict[str, Path] = field(default_factory=dict)  # skill name → folder in the template


def parse(src: Src, at: At, value: Any, sources: list[Src]) -> Workspace | None:
    """The workspace a `workspace:` value asks for; None after reporting what cannot be done."""
    if isinstance(value, str):
        path = resolve_file(src, at, value)
        if path is None:
            return None
        other = read_src(src, path, path.relative_to(src.root).as_posix())
        if other is None:
            return None
        sources.append(other)
        return parse(other, (), other.doc.data, sources)
    if not isinstance(value, dict):
        src.error(at, f"workspace is a mapping (template, hooks) or a path, not {json_kind(value)}")
        return None
    ok = True
    for key in value:
        if key not in _KEYS:
            src.warn((*at, key), f"unknown workspace key {key!r} is ignored")
    if "repos" in value:
        src.error(
            (*at, "repos"),
            "cloning other repositories into the workspace is not supported: the pull request"
            " must hold everything a run uses; commit the files into a `template:` folder",
        )
        ok = False
    if "docker" in value:
        src.error((*at, "docker"), "docker workspaces are not supported; runs use a sandbox")
        ok = False
    if value.get("mode") == "static" or "path" in value:
        src.error(
            (*at, "path" if "path" in value else "mode"),
            "a static workspace at a host path is not supported: every run gets a fresh copy"
            " of the `template:` folder; use a template",
        )
        ok = False
    ok = _hooks(src, (*at, "hooks"), value.get("hooks")) and ok
    if value.get("isolation") == "shared":
        src.warn(
            (*at, "isolation"),
            "every case runs in a fresh copy of the workspace here, so a case does not see"
            " what an earlier case changed",
        )
    if "env" in value:
        src.warn((*at, "env"), "workspace env is not set: commands see only a scrubbed environment")
    files: tuple[Fixture, ...] = ()
    skills: dict[str, Path] = {}
    if "template" in value:
        found = _template(src, (*at, "template"), value["template"])
        if found is None:
            return None
        files, skills = found
    return Workspace(files, skills) if ok else None


def _hooks(src: Src, at: At, hooks: Any) -> bool:
    if hooks is None:
        return True
    if not isinstance(hooks, dict):
        src.error(at, f"hooks is a mapping (before_all, before_each, ...), not {json_kind(hooks)}")
        return False
    if hooks.get("enabled") is False:
        return True
    ok = True
    for name in HOOKS:
        hook = hooks.get(name)
        if isinstance(hook, dict) and ("command" in hook or "script" in hook):
            key = "command" if "command" in hook else "script"
            src.error(
                (*at, name, key),
                f"workspace hooks that run commands ({name}) are not supported: they would run"
                " pull-request code outside the agent's run; put the files they would prepare"
                " into the `template:` folder, or remove the hook",
            )
            ok = False
    return ok


def _template(src: Src, at: At, value: Any) -> tuple[tuple[Fixture, ...], dict[str, Path]] | None:
    if not isinstance(value, str) or not value.strip():
        src.error(at, "template is the path of a folder to copy into the workspace")
        return None
    base = src.root if value.startswith("/") else src.dir
    try:
        folder = (base / value.lstrip("/")).resolve()
        inside, exists = folder.is_relative_to(src.root), folder.is_dir()
    except (OSError, RuntimeError, ValueError):
        inside, exists = False, False
    if not inside:
        src.error(at, f"{value!r} points outside the repository; keep the template inside it")
        return None
    if not exists:
        src.error(
            at,
            f"no such folder: {value!r} (looked in {rel_dir(src, base)}); the template is"
            " copied into every run's workspace",
        )
        return None
    origin = src.origin(at)
    files: list[Fixture] = []
    for current, dirs, names in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP and not Path(current, d).is_symlink())
        for name in sorted(names):
            path = Path(current, name)
            if path.is_symlink() or not path.is_file():
                continue
            files.append(Fixture(path, path.relative_to(folder).as_posix(), origin))
            if len(files) > MAX_TEMPLATE_FILES:
                src.error(at, f"{value!r} holds over {MAX_TEMPLATE_FILES} files; keep it small")
                return None
    if not files:
        src.error(at, f"{value!r} is an empty folder; nothing would be copied")
        return None
    return tuple(files), _skills(folder)


def _skills(folder: Path) -> dict[str, Path]:
    """The skills a template holds, by folder name; the first home that has one wins."""
    skills: dict[str, Path] = {}
    for home in (*SKILL_HOMES, *SKILL_HOMES_MORE):
        base = folder / home
        if not base.is_dir():
            continue
        for skill_md in sorted(base.glob("*/SKILL.md")):
            if not skill_md.parent.is_symlink():
                skills.setdefault(skill_md.parent.name, skill_md.parent)
    return skills
