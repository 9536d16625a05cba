"""evolve's eval sets, placed by the repository's layout: marketplace, multi or single
(detected from marker files in that precedence, or forced), plugins nested below the root,
and a plugin's top-level `evals/evals.json`."""

from __future__ import annotations

from pathlib import Path

from evolve_action.formats.discovery_refs import skill_name_of
from evolve_action.formats.discovery_tree import Dir, DiscoveryState, Plugin, join
from evolve_action.formats.placement import (
    EXTENSIONS,
    MARKETPLACE_MARKER,
    PLUGIN_MARKER,
    manifest_name,
    marketplace_plugins,
)
from evolve_action.model.evals import Format, Severity, Skill

MULTI_MARKER = "plugins/*/.claude-plugin/plugin.json"


class PluginLayouts(DiscoveryState):
    def _layout(self, forced: str) -> tuple[str, list[Plugin]]:
        marketplace = (self.root / MARKETPLACE_MARKER).is_file()
        multi = any(
            (self.root / "plugins" / name / PLUGIN_MARKER).is_file()
            for name in self.index.get("plugins", Dir()).subdirs
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
            names = sorted(self.index.get("plugins", Dir()).subdirs)
            found = [Plugin(name, f"plugins/{name}") for name in names]
            if layout == "marketplace":  # plugins listed by a local `source`, `./` included
                found += self._listed(self.root, "", found)
            return layout, found
        if layout == "single":
            return layout, [Plugin(manifest_name(self.root) or self.root.name, "")]
        if "evals" in self.index:  # no marker: a bare `evals/<skill>/` still means evolve
            return "", [Plugin(self.root.name, "")]
        return "", []

    def _nested(self, known: list[Plugin]) -> list[Plugin]:
        """Plugins and marketplaces below the root (a monorepo, an examples folder), each
        read as its own markers say; a plugin the root layout already lists is not repeated."""
        seen = {p.rel for p in known}
        found: list[Plugin] = []
        for rel_dir in sorted(self.index):
            markers = self.index.get(join(rel_dir, ".claude-plugin"), Dir()).files
            if not rel_dir or not markers or rel_dir in seen:
                continue
            if "marketplace.json" in markers:
                names = sorted(self.index.get(join(rel_dir, "plugins"), Dir()).subdirs)
                inner = [Plugin(n, join(rel_dir, f"plugins/{n}")) for n in names]
                inner += self._listed(self.root / rel_dir, rel_dir, inner)
            elif "plugin.json" in markers:
                name = manifest_name(self.root / rel_dir) or rel_dir.rpartition("/")[2]
                inner = [Plugin(name, rel_dir)]
            else:
                continue
            for plugin in inner:
                if plugin.rel not in seen:
                    seen.add(plugin.rel)
                    found.append(plugin)
        return found

    def _listed(self, base: Path, rel_base: str, known: list[Plugin]) -> list[Plugin]:
        """Plugins a marketplace lists by local source that its `plugins/` folder lacks."""
        seen = {p.rel for p in known}
        out = []
        for name, rel in marketplace_plugins(base):
            full = join(rel_base, rel) if rel else rel_base
            if full not in seen:
                seen.add(full)
                out.append(Plugin(name, full))
        return out

    def _eval_sets(self, plugin: Plugin) -> None:
        evals_dir = join(plugin.rel, "evals")
        for name in sorted(self.index.get(evals_dir, Dir()).subdirs):
            self._eval_set(join(evals_dir, name), self._plugin_skill(plugin, name))
        top = self.index.get(evals_dir, Dir()).files
        if any(f"evals{ext}" in top for ext in EXTENSIONS):
            self._top_eval_set(plugin, evals_dir)

    def _plugin_skill(self, plugin: Plugin, name: str) -> Skill:
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

    def _top_eval_set(self, plugin: Plugin, evals_dir: str) -> None:
        """`evals/evals.json` directly in a plugin's `evals/`: the skill its `skill_name` names
        (a plugin whose main skill keeps its evals at the top, the others in subfolders)."""
        if "SKILL.md" in self.index.get(plugin.rel, Dir()).files:
            return  # a skill at the plugin root: skill-creator's `<skill>/evals/` reads it
        present = self.index[evals_dir].files
        names = [f"evals{ext}" for ext in EXTENSIONS if f"evals{ext}" in present]
        name = skill_name_of(self.root / evals_dir / names[0])
        if (self.root / plugin.rel / "skills" / name / "SKILL.md").is_file():
            self._eval_set(evals_dir, self._plugin_skill(plugin, name))
            return
        if not any(self.keep(join(evals_dir, n)) for n in names):
            return
        said = f"its skill_name {name!r} is no skill here" if name else "it has no skill_name"
        self._problem(
            join(evals_dir, names[0]),
            f"sits directly in {evals_dir}/ and {said}, so it was not read; move it to"
            f" {evals_dir}/<skill>/ or set skill_name to a folder under"
            f" {join(plugin.rel, 'skills')}/",
            Severity.WARNING,
        )
