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

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from evolve_action.formats.discovery_declared import with_declared
from evolve_action.formats.discovery_layouts import case_folder_json as _case_folder_json
from evolve_action.formats.discovery_layouts import evals_apart, plugin_case_file
from evolve_action.formats.discovery_plugins import PluginLayouts
from evolve_action.formats.discovery_refs import referenced_cases, skill_name_of, why_nothing
from evolve_action.formats.discovery_tree import (
    Dir,
    Plugin,
    found_prefix,
    join,
    walk,
)
from evolve_action.formats.placement import (
    Declared,
    EvalFile,
    describe_file,
    format_for_name,
    frontmatter_problem,
    generic_agentv_name,
    skill_dir_name,
    skill_near,
)
from evolve_action.model.evals import Format, Origin, Problem, Severity, Skill
from evolve_action.util.globs import PathFilter

__all__ = ["LAYOUTS", "Discovery", "EvalFile", "describe_file", "discover", "format_for_name"]

LAYOUTS = ("auto", "single", "multi", "marketplace")
# Formats found by the layout of eval sets, never by a file's name alone.
BY_LAYOUT = (Format.EVOLVE, Format.TRIGGERS, Format.SKILL_EVALUATOR)


@dataclass(frozen=True, slots=True)
class Discovery:
    root: Path
    layout: str  # the evolve layout found or forced; "" when the root has none
    files: tuple[EvalFile, ...]
    problems: tuple[Problem, ...] = ()


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


class _Discoverer(PluginLayouts):
    def run(self, layout: str) -> Discovery:
        self.index = walk(self.root)
        found, plugins = self._layout(layout)
        if layout == "auto":
            plugins += self._nested(plugins)
        for plugin in plugins:
            self._eval_sets(plugin)
        skill_plugins = {join(p.rel, "skills"): p for p in plugins}
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

    # --- skill-creator, clauditor, agentv ------------------------------------------------

    def _skill_creator(self, rel_dir: str, skill_plugins: dict[str, Plugin]) -> None:
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
        evals_dir = join(rel_dir, "evals")
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

    def _plugin_case(self, rel_dir: str) -> None:
        entry = self.index[rel_dir]
        name = plugin_case_file(rel_dir, entry.files, entry.subdirs)
        if name is not None:
            rel = join(rel_dir, name)
            fmt = Format.CLAUDE_PLUGIN
            self._add(rel, fmt, skill_near(self.root / rel, fmt, self.root))

    def _by_name(self, rel_dir: str) -> None:
        self._plugin_case(rel_dir)
        under_evals = "evals" in rel_dir.split("/")
        for name in sorted(self.index[rel_dir].files):
            fmt = format_for_name(name)
            rel = join(rel_dir, name)
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
        siblings = self.index.get(parent, Dir()).files
        winner = next((n for n in siblings if n.upper() == "SKILL.EVAL.JSON"), None)
        if winner is None or "SKILL.md" not in siblings:
            return False
        rel = join(rel_dir, name)
        if self.keep(rel):
            self.notes.setdefault(join(parent, winner), []).append(
                Problem(
                    Origin(self.prefix + rel),
                    f"not read: {join(parent, winner)} is this skill's eval spec (clauditor reads"
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
