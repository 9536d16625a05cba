"""Vally's named environments: `environment: <name>` in an eval spec (at its root or in a
stimulus) names an entry of `environments:` in the project's `.vally.yaml`, the nearest one
above the spec. The entry is put in the name's place, its paths (skills, files' `src`) made
relative to the spec as an inline environment's are, so the rest of the loader reads both
alike. What a run here cannot provide is warned and left out: a git worktree as the
workspace (`git: {type: worktree}`, `type: worktree`). `mcpServers` are read by
`stimulus.py` (`formats/mcp_servers.py`).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document, DocumentError, read
from evolve_action.formats.placement import inside

PROJECT = ".vally.yaml"
LEFT_OUT = {
    "git": "a git worktree or checkout as the workspace is not staged here; the case runs in a"
    " workspace holding the environment's files",
    "type": "a worktree environment (the repository as the workspace) is not staged here; the"
    " case runs in a workspace holding the environment's files",
}


def resolved(doc: Document, ctx: LoadContext, problems: Problems) -> Document:
    """The spec with every named environment replaced by its definition (warned when the
    name is not defined) and the parts a run cannot provide left out (warned)."""
    data = doc.data
    if not isinstance(data, dict):
        return doc
    named = _Named(doc, ctx, problems)
    out = dict(data)
    out["environment"] = named.expand(("environment",), data.get("environment"))
    stimuli = data.get("stimuli")
    if isinstance(stimuli, list):
        out["stimuli"] = [
            {**s, "environment": named.expand(("stimuli", i, "environment"), s["environment"])}
            if isinstance(s, dict) and "environment" in s
            else s
            for i, s in enumerate(stimuli)
        ]
    if out["environment"] is None:
        del out["environment"]
    return replace(doc, data=out)


class _Named:
    def __init__(self, doc: Document, ctx: LoadContext, problems: Problems) -> None:
        self.doc, self.ctx, self.problems = doc, ctx, problems
        self._project: tuple[Path, dict[str, Any]] | None = None

    def expand(self, at: tuple[str | int, ...], env: Any) -> Any:
        if isinstance(env, str):
            env = self._lookup(at, env)
        if not isinstance(env, dict):
            return env
        kept = dict(env)
        for key, why in LEFT_OUT.items():
            if key in kept:
                self.problems.warn((*at, key), f"{key}: {why}")
                del kept[key]
        return kept

    def _lookup(self, at: tuple[str | int, ...], name: str) -> dict[str, Any] | None:
        folder, environments = self._environments()
        found = environments.get(name)
        if not isinstance(found, dict):
            where = f"{PROJECT} ({folder.relative_to(self.ctx.root.resolve()).as_posix() or '.'})"
            self.problems.warn(
                at,
                f"names the environment {name!r}, which no `environments:`"
                f" entry of the nearest {where} defines; the cases run without it",
            )
            return None
        return _relative_to_spec(found, folder, self.doc.path.parent)

    def _environments(self) -> tuple[Path, dict[str, Any]]:
        if self._project is None:
            self._project = _project(self.doc.path.parent, self.ctx.root.resolve())
        return self._project


def _project(start: Path, root: Path) -> tuple[Path, dict[str, Any]]:
    """The nearest `.vally.yaml` at or above `start` within the root, and its environments."""
    folder = start.resolve()
    while inside(folder, root):
        config = folder / PROJECT
        if config.is_file():
            try:
                data = read(config).data
            except DocumentError:
                return folder, {}
            envs = data.get("environments") if isinstance(data, dict) else None
            return folder, envs if isinstance(envs, dict) else {}
        if folder == root:
            break
        folder = folder.parent
    return root, {}


def _relative_to_spec(env: dict[str, Any], base: Path, spec_dir: Path) -> dict[str, Any]:
    """Paths of a named environment are the project's; the loader reads them from the spec."""

    def moved(path: Any) -> Any:
        if not isinstance(path, str) or Path(path).is_absolute():
            return path
        return os.path.relpath(base / path, spec_dir)

    out = dict(env)
    skills = env.get("skills")
    if isinstance(skills, list):
        out["skills"] = [moved(s) for s in skills]
    elif isinstance(skills, str):
        out["skills"] = [moved(skills)]
    files = env.get("files")
    if isinstance(files, list):
        out["files"] = [
            {**f, "src": moved(f.get("src"))} if isinstance(f, dict) else moved(f) for f in files
        ]
    return out
