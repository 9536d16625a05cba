"""Find every eval file under a root, with its format and the skill it evaluates.

Five conventions share one walk of the tree:

- evolve's eval sets, `evals/<skill>/{evals,triggers}.<ext>`, placed by the repository layout
  (marketplace, multi or single, detected from marker files in that precedence, or forced);
- skill-creator's `<skill>/evals/evals.json` (and its `trigger-eval.json`) in any directory that
  holds a SKILL.md;
- clauditor's `<name>.eval.json` beside a command or inside a skill directory (a skill's
  `SKILL.eval.json` wins over its `assets/<name>.eval.json`, as clauditor reads only the first);
- agentv's `EVAL.yaml` and `*.eval.yaml` anywhere, and below an `evals/` folder the names of
  other generations (`suite.yaml`, `dataset*.yaml`, JSONL datasets). Committed result baselines
  (`*.baseline.*`), helper files and files another eval file reads as its cases are not evals;
- every other format's files by name anywhere (Vally, waza, tessl beside a `task.md`,
  promptfoo, and a family's declared `names`), each for the nearest skill.

The walk never leaves the root: symlinked directories are not entered, and symlinked eval
files pointing outside it are reported, not read. A tree with skills or eval-like files that
yields no eval file gets a warning saying why.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from evolve_action.formats.discovery_declared import with_declared
from evolve_action.formats.discovery_layouts import case_folder_json as _case_folder_json
from evolve_action.formats.discovery_layouts import evals_apart, plugin_case_file
from evolve_action.formats.discovery_refs import referenced_cases, skill_name_of, why_nothing
from evolve_action.formats.placement import (
    EXTENSIONS,
    MARKETPLACE_MARKER,
    PLUGIN_MARKER,
    Declared,
    EvalFile,
    describe_file,
    format_for_name,
    frontmatter_problem,
    generic_agentv_name,
    inside,
    manifest_name,
    marketplace_plugins,
    skill_dir_name,
    skill_near,
)
from evolve_action.model.evals import Format, Origin, Problem, Severity, Skill
from evolve_action.util.globs import PathFilter

__all__ = ["LAYOUTS", "Discovery", "EvalFile", "describe_file", "discover", "format_for_name"]

LAYOUTS = ("auto", "single", "multi", "marketplace")
SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "__pycache__"})
TRIGGER_SET_NAMES = ("trigger-eval.json", "trigger_eval.json")  # skill-creator's trigger set
MULTI_MARKER = "plugins/*/.claude-plugin/plugin.json"
# Formats found by the layout of eval sets, never by a file's name alone.
BY_LAYOUT = (Format.EVOLVE, Format.TRIGGERS, Format.SKILL_EVALUATOR)


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
    root: Path,
    *,
    paths: Sequence[str] = (),
    layout: str = "auto",
    prefix: str = "",
    declared: Sequence[Declared] = (),
) -> Discovery:
    """Every eval file under `root` whose root-relative path passes the `paths` globs.

    `prefix` is prepended to each reported path, so a caller that discovers below its
    working directory can still report paths relative to it.
    """
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; expected one of {', '.join(LAYOUTS)}")
    root = root.resolve()
    keep = PathFilter(paths)
    found = _Discoverer(root, keep, prefix).run(layout)
    if not declared:
        return found
    files = with_declared(root, found.files, declared, keep, found_prefix(prefix))
    return replace(found, files=files)


class _Discoverer:
    def __init__(self, root: Path, keep: PathFilter, prefix: str) -> None:
        self.root = root
        self.keep = keep
        self.prefix = prefix.rstrip("/") + "/" if prefix.strip("/") else ""
        self.index: dict[str, _Dir] = {}
        self.files: dict[str, EvalFile] = {}
        self.problems: list[Problem] = []
        self.notes: dict[str, list[Problem]] = {}  # rel → warnings shown with that file

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
        self._evals_apart()
        self._drop_referenced()
        if not self.files and not self.problems:
            for rel, message in why_nothing(self.root, {k: v.files for k, v in self.index.items()}):
                self._problem(rel, message, Severity.WARNING)
        files = tuple(
            replace(self.files[key], notes=tuple(self.notes.get(key, ())))
            for key in sorted(self.files)
        )
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
            found = [_Plugin(name, f"plugins/{name}") for name in names]
            if layout == "marketplace":  # plugins listed by a local `source`, `./` included
                found += self._listed(self.root, "", found)
            return layout, found
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
                inner += self._listed(self.root / rel_dir, rel_dir, inner)
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

    def _listed(self, base: Path, rel_base: str, known: list[_Plugin]) -> list[_Plugin]:
        """Plugins a marketplace lists by local source that its `plugins/` folder lacks."""
        seen = {p.rel for p in known}
        out = []
        for name, rel in marketplace_plugins(base):
            full = _join(rel_base, rel) if rel else rel_base
            if full not in seen:
                seen.add(full)
                out.append(_Plugin(name, full))
        return out

    def _eval_sets(self, plugin: _Plugin) -> None:
        evals_dir = _join(plugin.rel, "evals")
        for name in sorted(self.index.get(evals_dir, _Dir()).subdirs):
            self._eval_set(_join(evals_dir, name), self._plugin_skill(plugin, name))
        top = self.index.get(evals_dir, _Dir()).files
        if any(f"evals{ext}" in top for ext in EXTENSIONS):
            self._top_eval_set(plugin, evals_dir)

    def _plugin_skill(self, plugin: _Plugin, name: str) -> Skill:
        skill_dir = self.root / plugin.rel / "skills" / name
        return Skill(
            name=name,
            dir=skill_dir if skill_dir.is_dir() else None,
            plugin=plugin.name,
            plugin_dir=self.root / plugin.rel,
        )

    def _eval_set(self, set_dir: str, skill: Skill) -> None:
        """evolve's pair, and skill-creator's trigger set where evolve's is absent."""
        self._one_per_stem(set_dir, "evals", Format.EVOLVE, skill)
        if not self._one_per_stem(set_dir, "triggers", Format.TRIGGERS, skill):
            self._trigger_set(set_dir, skill)

    def _top_eval_set(self, plugin: _Plugin, evals_dir: str) -> None:
        """`evals/evals.json` directly in a plugin's `evals/`: the skill its `skill_name` names
        (a plugin whose main skill keeps its evals at the top, the others in subfolders)."""
        if "SKILL.md" in self.index.get(plugin.rel, _Dir()).files:
            return  # a skill at the plugin root: skill-creator's `<skill>/evals/` reads it
        present = self.index[evals_dir].files
        names = [f"evals{ext}" for ext in EXTENSIONS if f"evals{ext}" in present]
        name = skill_name_of(self.root / evals_dir / names[0])
        if (self.root / plugin.rel / "skills" / name / "SKILL.md").is_file():
            self._eval_set(evals_dir, self._plugin_skill(plugin, name))
            return
        if not any(self.keep(_join(evals_dir, n)) for n in names):
            return
        said = f"its skill_name {name!r} is no skill here" if name else "it has no skill_name"
        self._problem(
            _join(evals_dir, names[0]),
            f"sits directly in {evals_dir}/ and {said}, so it was not read; move it to"
            f" {evals_dir}/<skill>/ or set skill_name to a folder under"
            f" {_join(plugin.rel, 'skills')}/",
            Severity.WARNING,
        )

    # --- skill-creator, clauditor, agentv ------------------------------------------------

    def _skill_creator(self, rel_dir: str, skill_plugins: dict[str, _Plugin]) -> None:
        entry = self.index[rel_dir]
        if "SKILL.md" not in entry.files or "evals" not in entry.subdirs:
            return
        parent, _, _name = rel_dir.rpartition("/")
        plugin = skill_plugins.get(parent) if rel_dir else None
        if not rel_dir:  # at the root, the front matter names the skill (`skill_dir_name`)
            self._unread_frontmatter()
        skill = Skill(
            name=skill_dir_name(self.root / rel_dir, self.root),
            dir=self.root / rel_dir,
            plugin=plugin.name if plugin else "",
            plugin_dir=self.root / plugin.rel if plugin else None,
        )
        evals_dir = _join(rel_dir, "evals")
        self._one_per_stem(evals_dir, "evals", Format.EVOLVE, skill)
        self._trigger_set(evals_dir, skill)

    def _evals_apart(self) -> None:
        files = {rel: entry.files for rel, entry in self.index.items()}
        for evals_dir, skill_dir in evals_apart(files, set(self.files), self._skill_name_of):
            skill = Skill(skill_dir_name(self.root / skill_dir, self.root), self.root / skill_dir)
            self._one_per_stem(evals_dir, "evals", Format.EVOLVE, skill)
            self._trigger_set(evals_dir, skill)

    def _skill_name_of(self, rel: str) -> str:
        return skill_name_of(self.root / rel)

    def _unread_frontmatter(self) -> None:
        found = frontmatter_problem(self.root / "SKILL.md")
        if found is not None:
            self._problem("SKILL.md", found[0], Severity.WARNING, found[1])

    def _trigger_set(self, rel_dir: str, skill: Skill) -> None:
        present = self.index.get(rel_dir, _Dir()).files
        for name in TRIGGER_SET_NAMES:
            if name in present:
                self._add(_join(rel_dir, name), Format.TRIGGERS, skill)
                return

    def _plugin_case(self, rel_dir: str) -> None:
        entry = self.index[rel_dir]
        name = plugin_case_file(rel_dir, entry.files, entry.subdirs)
        if name is not None:
            rel = _join(rel_dir, name)
            fmt = Format.CLAUDE_PLUGIN
            self._add(rel, fmt, skill_near(self.root / rel, fmt, self.root))

    def _by_name(self, rel_dir: str) -> None:
        self._plugin_case(rel_dir)
        under_evals = "evals" in rel_dir.split("/")
        for name in sorted(self.index[rel_dir].files):
            fmt = format_for_name(name)
            rel = _join(rel_dir, name)
            if fmt is Format.AGENTV:
                if self._is_sidecar(rel_dir, name) or (
                    generic_agentv_name(name) and not under_evals
                ):
                    continue
                self._add(rel, fmt, skill_near(self.root / rel, fmt, self.root))
            elif fmt is Format.TESSL and "task.md" not in self.index[rel_dir].files:
                continue
            elif fmt is Format.CLAUDITOR:
                if not self._shadowed_spec(rel_dir, name):
                    self._add(rel, fmt, skill_near(self.root / rel, fmt, self.root))
            elif fmt is not None and fmt not in BY_LAYOUT:
                self._add(rel, fmt, skill_near(self.root / rel, fmt, self.root))
            elif fmt is None and _case_folder_json(rel_dir, name):
                fmt = Format.BEST_PRACTICE
                self._add(rel, fmt, skill_near(self.root / rel, fmt, self.root))

    def _shadowed_spec(self, rel_dir: str, name: str) -> bool:
        """`<skill>/assets/<name>.eval.json` beside a `<skill>/SKILL.eval.json`: clauditor finds
        only the sibling of SKILL.md, so that one is read and this one is not."""
        parent, _, folder = rel_dir.rpartition("/")
        if folder != "assets" or name.upper() == "SKILL.EVAL.JSON":
            return False
        siblings = self.index.get(parent, _Dir()).files
        winner = next((n for n in siblings if n.upper() == "SKILL.EVAL.JSON"), None)
        if winner is None or "SKILL.md" not in siblings:
            return False
        rel = _join(rel_dir, name)
        if self.keep(rel):
            self.notes.setdefault(_join(parent, winner), []).append(
                Problem(
                    Origin(self.prefix + rel),
                    f"not read: {_join(parent, winner)} is this skill's eval spec (clauditor reads"
                    " the SKILL.eval.json beside SKILL.md and only opens assets/ specs when"
                    " named with --eval); merge the two or delete one",
                    Severity.WARNING,
                )
            )
        return True

    def _drop_referenced(self) -> None:
        """An AgentV file another one reads as its cases (`tests: ./dataset.jsonl`,
        `file://cases/*.yaml`) is loaded through that file only, so no case is loaded twice."""
        agentv = [rel for rel, f in self.files.items() if f.format is Format.AGENTV]
        if len(agentv) < 2:
            return
        taken: set[str] = set()
        for rel in agentv:
            if rel not in taken:
                taken |= referenced_cases(self.root, rel, agentv)
        for rel in taken:
            self.files.pop(rel, None)

    def _is_sidecar(self, rel_dir: str, name: str) -> bool:
        """`dataset.yaml` beside `dataset.jsonl` holds the JSONL dataset's shared settings."""
        stem, _, ext = name.rpartition(".")
        return ext in ("yaml", "yml") and f"{stem}.jsonl" in self.index[rel_dir].files

    # --- bookkeeping ---------------------------------------------------------------------

    def _one_per_stem(self, rel_dir: str, stem: str, fmt: Format, skill: Skill) -> bool:
        """Add `<stem>.<ext>`; True when the folder has one (even an ambiguous one)."""
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
        return bool(names)

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

    def _problem(
        self, rel: str, message: str, severity: Severity = Severity.ERROR, line: int | None = None
    ) -> None:
        origin = Origin(self.prefix + rel, line)
        self.problems.append(Problem(origin, message, severity))


def found_prefix(prefix: str) -> str:
    return prefix.rstrip("/") + "/" if prefix.strip("/") else ""


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
