"""Find every eval file under a root, with its format and the skill it evaluates.

Five conventions share one walk of the tree:

- evolve's eval sets, `evals/<skill>/{evals,triggers}.<ext>`, placed by the repository layout
  (marketplace, multi or single, detected from marker files in that precedence, or forced);
- skill-creator's `<skill>/evals/evals.json` (and its `trigger-eval.json`) in any directory that
  holds a SKILL.md;
- clauditor's `<name>.eval.json` beside a command or inside a skill directory;
- agentv's `EVAL.yaml`, `*.eval.yaml`, `dataset*.yaml` and JSONL datasets, anywhere.

The walk never leaves the root: symlinked directories are not entered, and symlinked eval
files pointing outside it are reported, not read.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evolve_action.globs import PathFilter
from evolve_action.model import Format, Origin, Problem, Severity, Skill
from evolve_action.placement import (
    EXTENSIONS,
    PLUGIN_MARKER,
    EvalFile,
    describe_file,
    format_for_name,
    inside,
    manifest_name,
    skill_near,
)

__all__ = ["LAYOUTS", "Discovery", "EvalFile", "describe_file", "discover", "format_for_name"]

LAYOUTS = ("auto", "single", "multi", "marketplace")
SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "__pycache__"})
MARKETPLACE_MARKER = ".claude-plugin/marketplace.json"
MULTI_MARKER = "plugins/*/.claude-plugin/plugin.json"


@dataclass(frozen=True, slots=True)
class Discovery:
    root: Path
    layout: str  # the evolve layout found or forced; "" when the root has none
    files: tuple[EvalFile, ...]
    problems: tuple[Problem, ...] = ()


@dataclass(slots=True)
class _Dir:
    files: set[str] = field(default_factory=set)
    subdirs: set[str] = field(default_factory=set)
    links: set[str] = field(default_factory=set)  # names of symlinked files


@dataclass(frozen=True, slots=True)
class _Plugin:
    name: str
    rel: str  # "" for the root in single layout


def discover(
    root: Path, *, paths: Sequence[str] = (), layout: str = "auto", prefix: str = ""
) -> Discovery:
    """Every eval file under `root` whose root-relative path passes the `paths` globs.

    `prefix` is prepended to each reported path, so a caller that discovers below its
    working directory can still report paths relative to it.
    """
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; expected one of {', '.join(LAYOUTS)}")
    root = root.resolve()
    return _Discoverer(root, PathFilter(paths), prefix).run(layout)


class _Discoverer:
    def __init__(self, root: Path, keep: PathFilter, prefix: str) -> None:
        self.root = root
        self.keep = keep
        self.prefix = prefix.rstrip("/") + "/" if prefix.strip("/") else ""
        self.index: dict[str, _Dir] = {}
        self.files: dict[str, EvalFile] = {}
        self.problems: list[Problem] = []

    def run(self, layout: str) -> Discovery:
        self.index = _walk(self.root)
        found, plugins = self._layout(layout)
        if layout == "auto":
            plugins += self._nested(plugins)
        for plugin in plugins:
            self._eval_sets(plugin)
        skill_plugins = {_join(p.rel, "skills"): p for p in plugins}
        for rel_dir in sorted(self.index):
            self._skill_creator(rel_dir, skill_plugins)
            self._by_name(rel_dir)
        files = tuple(self.files[key] for key in sorted(self.files))
        return Discovery(self.root, found, files, tuple(self.problems))

    # --- evolve layouts ----------------------------------------------------------------

    def _layout(self, forced: str) -> tuple[str, list[_Plugin]]:
        marketplace = (self.root / MARKETPLACE_MARKER).is_file()
        multi = any(
            (self.root / "plugins" / name / PLUGIN_MARKER).is_file()
            for name in self.index.get("plugins", _Dir()).subdirs
        )
        single = (self.root / PLUGIN_MARKER).is_file()
        markers = {"marketplace": marketplace, "multi": multi, "single": single}
        if forced == "auto":
            layout = next((name for name, ok in markers.items() if ok), "")
        elif markers[forced]:
            layout = forced
        else:
            marker = {"marketplace": MARKETPLACE_MARKER, "multi": MULTI_MARKER}.get(
                forced, PLUGIN_MARKER
            )
            self._problem(
                marker,
                f"layout {forced!r} was requested but {marker} does not exist; add it, or"
                " set layout to auto (markers: .claude-plugin/marketplace.json,"
                " plugins/*/.claude-plugin/plugin.json, .claude-plugin/plugin.json)",
            )
            return "", []
        if layout in ("marketplace", "multi"):
            names = sorted(self.index.get("plugins", _Dir()).subdirs)
            return layout, [_Plugin(name, f"plugins/{name}") for name in names]
        if layout == "single":
            return layout, [_Plugin(manifest_name(self.root) or self.root.name, "")]
        if "evals" in self.index:  # no marker: a bare `evals/<skill>/` still means evolve
            return "", [_Plugin(self.root.name, "")]
        return "", []

    def _nested(self, known: list[_Plugin]) -> list[_Plugin]:
        """Plugins and marketplaces below the root (a monorepo, an examples folder), each
        read as its own markers say; a plugin the root layout already lists is not repeated."""
        seen = {p.rel for p in known}
        found: list[_Plugin] = []
        for rel_dir in sorted(self.index):
            markers = self.index.get(_join(rel_dir, ".claude-plugin"), _Dir()).files
            if not rel_dir or not markers or rel_dir in seen:
                continue
            if "marketplace.json" in markers:
                names = sorted(self.index.get(_join(rel_dir, "plugins"), _Dir()).subdirs)
                inner = [_Plugin(n, _join(rel_dir, f"plugins/{n}")) for n in names]
            elif "plugin.json" in markers:
                name = manifest_name(self.root / rel_dir) or rel_dir.rpartition("/")[2]
                inner = [_Plugin(name, rel_dir)]
            else:
                continue
            for plugin in inner:
                if plugin.rel not in seen:
                    seen.add(plugin.rel)
                    found.append(plugin)
        return found

    def _eval_sets(self, plugin: _Plugin) -> None:
        evals_dir = _join(plugin.rel, "evals")
        for name in sorted(self.index.get(evals_dir, _Dir()).subdirs):
            set_dir = _join(evals_dir, name)
            skill_dir = self.root / plugin.rel / "skills" / name
            skill = Skill(
                name=name,
                dir=skill_dir if skill_dir.is_dir() else None,
                plugin=plugin.name,
                plugin_dir=self.root / plugin.rel,
            )
            self._one_per_stem(set_dir, "evals", Format.EVOLVE, skill)
            self._one_per_stem(set_dir, "triggers", Format.TRIGGERS, skill)

    # --- skill-creator, clauditor, agentv ------------------------------------------------

    def _skill_creator(self, rel_dir: str, skill_plugins: dict[str, _Plugin]) -> None:
        entry = self.index[rel_dir]
        if "SKILL.md" not in entry.files or "evals" not in entry.subdirs:
            return
        parent, _, name = rel_dir.rpartition("/")
        plugin = skill_plugins.get(parent) if rel_dir else None
        skill = Skill(
            name=name or self.root.name,
            dir=self.root / rel_dir,
            plugin=plugin.name if plugin else "",
            plugin_dir=self.root / plugin.rel if plugin else None,
        )
        evals_dir = _join(rel_dir, "evals")
        self._one_per_stem(evals_dir, "evals", Format.EVOLVE, skill)
        if "trigger-eval.json" in self.index.get(evals_dir, _Dir()).files:
            self._add(_join(evals_dir, "trigger-eval.json"), Format.TRIGGERS, skill)

    def _by_name(self, rel_dir: str) -> None:
        for name in sorted(self.index[rel_dir].files):
            fmt = format_for_name(name)
            if fmt is Format.CLAUDITOR or fmt is Format.AGENTV:
                rel = _join(rel_dir, name)
                if fmt is Format.AGENTV and self._is_sidecar(rel_dir, name):
                    continue
                self._add(rel, fmt, skill_near(self.root / rel, fmt, self.root))

    def _is_sidecar(self, rel_dir: str, name: str) -> bool:
        """`dataset.yaml` beside `dataset.jsonl` holds the JSONL dataset's shared settings."""
        stem, _, ext = name.rpartition(".")
        return ext in ("yaml", "yml") and f"{stem}.jsonl" in self.index[rel_dir].files

    # --- bookkeeping ---------------------------------------------------------------------

    def _one_per_stem(self, rel_dir: str, stem: str, fmt: Format, skill: Skill) -> None:
        present = self.index.get(rel_dir, _Dir()).files
        names = [stem + ext for ext in EXTENSIONS if stem + ext in present]
        if len(names) == 1:
            self._add(_join(rel_dir, names[0]), fmt, skill)
        elif names and any(self.keep(_join(rel_dir, n)) for n in names):
            self._problem(
                _join(rel_dir, names[0]),
                f"ambiguous {stem}: found {', '.join(names)} in {rel_dir or '.'}/;"
                " keep exactly one",
            )

    def _add(self, rel: str, fmt: Format, skill: Skill) -> None:
        if rel in self.files or not self.keep(rel):
            return
        path = self.root / rel
        parent, _, name = rel.rpartition("/")
        if name in self.index[parent].links and not inside(path, self.root):
            self._problem(
                rel,
                "is a symlink to a file outside the repository; it was not read."
                " Replace the link with the file itself",
            )
            return
        self.files[rel] = EvalFile(path, self.prefix + rel, fmt, skill)

    def _problem(self, rel: str, message: str) -> None:
        origin = Origin(self.prefix + rel)
        self.problems.append(Problem(origin, message, Severity.ERROR))


def _walk(root: Path) -> dict[str, _Dir]:
    """Directory index of the tree: root-relative POSIX dir → its files and subdirs.

    Symlinked directories are not entered, as evolve's own listing does not: inside the root
    they would list the same files twice, outside it they would read what the PR does not own.
    """
    index: dict[str, _Dir] = {}
    stack = [("", str(root))]
    while stack:
        rel, path = stack.pop()
        entry = index[rel] = _Dir()
        try:
            children = list(os.scandir(path))
        except OSError:
            continue
        for child in children:
            try:
                if child.is_dir(follow_symlinks=False):
                    if child.name not in SKIP_DIRS:
                        entry.subdirs.add(child.name)
                        stack.append((_join(rel, child.name), child.path))
                elif child.is_file():
                    entry.files.add(child.name)
                    if child.is_symlink():
                        entry.links.add(child.name)
            except OSError:
                continue
    return index


def _join(base: str, name: str) -> str:
    return f"{base}/{name}" if base else name
