"""The tree one discovery walks, and the state it fills: the directory index (`walk`), the
plugins found, the eval files and problems so far, and the helpers every convention's reader
shares (`discovery` and `discovery_plugins` read the conventions)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from evolve_action.formats.placement import EXTENSIONS, EvalFile, inside
from evolve_action.model.evals import Format, Origin, Problem, Severity, Skill
from evolve_action.util.globs import PathFilter

SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "__pycache__"})
TRIGGER_SET_NAMES = ("trigger-eval.json", "trigger_eval.json")  # skill-creator's trigger set


@dataclass(slots=True)
class Dir:
    files: set[str] = field(default_factory=set)
    subdirs: set[str] = field(default_factory=set)
    links: set[str] = field(default_factory=set)  # names of symlinked files


@dataclass(frozen=True, slots=True)
class Plugin:
    name: str
    rel: str  # "" for the root in single layout


class DiscoveryState:
    """What one discovery has found so far, and how it records a file or a problem."""

    def __init__(self, root: Path, keep: PathFilter, prefix: str) -> None:
        self.root = root
        self.keep = keep
        self.prefix = prefix.rstrip("/") + "/" if prefix.strip("/") else ""
        self.index: dict[str, Dir] = {}
        self.files: dict[str, EvalFile] = {}
        self.problems: list[Problem] = []
        self.notes: dict[str, list[Problem]] = {}  # rel → warnings shown with that file

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

    def _one_per_stem(self, rel_dir: str, stem: str, fmt: Format, skill: Skill) -> bool:
        """Add `<stem>.<ext>`; True when the folder has one (even an ambiguous one)."""
        present = self.index.get(rel_dir, Dir()).files
        names = [stem + ext for ext in EXTENSIONS if stem + ext in present]
        if len(names) == 1:
            self._add(join(rel_dir, names[0]), fmt, skill)
        elif names and any(self.keep(join(rel_dir, n)) for n in names):
            self._problem(
                join(rel_dir, names[0]),
                f"ambiguous {stem}: found {', '.join(names)} in {rel_dir or '.'}/;"
                " keep exactly one",
            )
        return bool(names)

    def _trigger_set(self, rel_dir: str, skill: Skill) -> None:
        present = self.index.get(rel_dir, Dir()).files
        for name in TRIGGER_SET_NAMES:
            if name in present:
                self._add(join(rel_dir, name), Format.TRIGGERS, skill)
                return


def found_prefix(prefix: str) -> str:
    return prefix.rstrip("/") + "/" if prefix.strip("/") else ""


def walk(root: Path) -> dict[str, Dir]:
    """Directory index of the tree: root-relative POSIX dir → its files and subdirs.

    Symlinked directories are not entered, as evolve's own listing does not: inside the root
    they would list the same files twice, outside it they would read what the PR does not own.
    """
    index: dict[str, Dir] = {}
    stack = [("", str(root))]
    while stack:
        rel, path = stack.pop()
        entry = index[rel] = Dir()
        try:
            children = list(os.scandir(path))
        except OSError:
            continue
        for child in children:
            try:
                if child.is_dir(follow_symlinks=False):
                    if child.name not in SKIP_DIRS:
                        entry.subdirs.add(child.name)
                        stack.append((join(rel, child.name), child.path))
                elif child.is_file():
                    entry.files.add(child.name)
                    if child.is_symlink():
                        entry.links.add(child.name)
            except OSError:
                continue
    return index


def join(base: str, name: str) -> str:
    return f"{base}/{name}" if base else name
