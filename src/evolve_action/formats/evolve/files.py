"""evolve's `files` staging rule: where each listed fixture comes from and where it lands.

An entry is relative to the directory of the evals file. One leading `evals/` is dropped, so
skill-creator's skill-root-relative `evals/files/x.pdf` works unchanged. A path below `files/`
keeps its path below `files/` in the workspace; anything else lands by basename at the
workspace root. Entries that escape the evals directory are refused, but for a
skill-creator file (`<skill>/evals/evals.json`) a skill-root path to a file beside the skill
(`../other/SKILL.md`), which stays in the repository.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.model.evals import Fixture
from evolve_action.model.fixtures import Refusal, fixture_source

MAX_FOLDER_FILES = 500  # a fixture folder is staged file by file, within this bound
INLINE = (
    "inline file content is not supported; list fixture paths relative to the evals file"
    ' instead, e.g. "files": ["files/input.txt"]'
)


@dataclass(frozen=True)
class Staged:
    """One entry after the lexical rule: the cleaned source path and its destination."""

    cleaned: str  # relative to the evals directory, POSIX
    dest: str  # relative to the workspace root, POSIX


def stage(entry: str) -> Staged | str:
    """Apply the lexical rule to one entry; a string back is the reason it is refused."""
    cleaned = _clean(entry.replace("\\", "/"))
    if cleaned.startswith("evals/"):
        cleaned = cleaned[len("evals/") :]
    elif cleaned == "evals":
        cleaned = "."
    if cleaned in ("", ".") or cleaned.startswith("/") or cleaned.split("/")[0] == "..":
        return f"{entry!r} escapes the evals directory; list a path inside it"
    if cleaned.startswith("files/"):
        return Staged(cleaned, cleaned[len("files/") :])
    return Staged(cleaned, posixpath.basename(cleaned))


def _clean(path: str) -> str:
    # posixpath.normpath keeps a leading "//"; Go's path.Clean collapses it.
    cleaned = posixpath.normpath(path) if path else ""
    return "/" + cleaned.lstrip("/") if cleaned.startswith("//") else cleaned


@dataclass
class FixtureResolver:
    """Resolves a case's `files` against the disk: existence, confinement, collisions."""

    problems: Problems
    evals_dir: Path
    root: Path  # fixtures must resolve inside the repository
    skill_dir: Path | None  # skill-creator: paths are relative to the skill root

    def resolve(self, at: tuple[str | int, ...], value: Any) -> tuple[Fixture, ...]:
        if value is None:
            return ()
        if isinstance(value, dict):
            self.problems.error(at, INLINE)
            return ()
        if not isinstance(value, list):
            self.problems.error(at, "must be a list of fixture paths relative to the evals file")
            return ()
        fixtures: list[Fixture] = []
        seen: dict[str, str] = {}
        for j, entry in enumerate(value):
            for fixture in self._entry((*at, j), entry):
                self._keep(fixtures, seen, (*at, j), str(entry), fixture)
        return tuple(fixtures)

    def _keep(
        self,
        fixtures: list[Fixture],
        seen: dict[str, str],
        at: tuple[str | int, ...],
        entry: str,
        fixture: Fixture,
    ) -> None:
        first = seen.get(fixture.dest)
        if first is not None:
            self.problems.error(
                at,
                f"{first} and {entry} both stage to {fixture.dest}; the later one would"
                " overwrite the earlier, so keep one of them or move one under files/",
            )
            return
        seen[fixture.dest] = entry
        fixtures.append(fixture)

    def _entry(self, at: tuple[str | int, ...], entry: Any) -> list[Fixture]:
        """One `files` entry: a file, or (skill-creator) a folder staged file by file; a
        missing one is a warning for skill-creator, whose tool never checks its files."""
        in_skill = self.skill_dir is not None and self.evals_dir.parent == self.skill_dir
        if self.skill_dir is None or not in_skill or not isinstance(entry, str):
            fixture = self._one(at, entry)
            return [] if fixture is None else [fixture]
        staged = stage(entry)
        if isinstance(staged, str):
            fixture = self._one(at, entry)
            return [] if fixture is None else [fixture]
        source = self.skill_dir / entry
        try:
            folder = source.is_dir() and not source.is_symlink()
            missing = (
                not source.is_symlink()
                and not source.exists()
                and not (self.evals_dir / entry).exists()
            )
        except OSError:  # a name too long for the OS, say: `_one` reports it at its line
            folder = missing = False
        if folder:
            return self._folder(at, entry, source, staged.dest)
        if missing:
            self.problems.warn(
                at,
                f"fixture {entry} not found (looked for {self._shown(source)});"
                " the case runs without it (skill-creator never checks its files)",
            )
            return []
        fixture = self._one(at, entry)
        return [] if fixture is None else [fixture]

    def _folder(
        self, at: tuple[str | int, ...], entry: str, folder: Path, dest: str
    ) -> list[Fixture]:
        files = sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
        if len(files) > MAX_FOLDER_FILES:
            self.problems.error(
                at, f"fixture folder {entry} holds more than {MAX_FOLDER_FILES} files; list fewer"
            )
            return []
        out = []
        for path in files:
            real = fixture_source(path, self.root)
            if isinstance(real, Refusal):
                self.problems.warn(at, f"{path.relative_to(folder).as_posix()} in {entry} {real}")
                continue
            rel = path.relative_to(folder).as_posix()
            out.append(Fixture(source=real, dest=f"{dest}/{rel}", origin=self.problems.origin(*at)))
        return out

    def _one(self, at: tuple[str | int, ...], entry: Any) -> Fixture | None:
        if not isinstance(entry, str) or not entry.strip():
            self.problems.error(at, "must be a non-empty path string")
            return None
        staged = stage(entry)
        if isinstance(staged, str):
            beside = self._sibling(entry)
            if beside is None:
                self.problems.error(at, staged)
                return None
            staged = beside
        try:
            source = self._source(entry, staged)
            found = source.exists()
        except OSError as exc:  # a name too long for the OS, say
            self.problems.error(at, f"fixture {entry[:80]!r} cannot be looked up: {exc.strerror}")
            return None
        if not found and not source.is_symlink():
            self.problems.error(at, f"fixture {entry} not found (looked for {self._shown(source)})")
            return None
        real = fixture_source(source, self.root)
        if isinstance(real, Refusal):
            self.problems.error(at, f"fixture {entry} {real}")
            return None
        return Fixture(source=real, dest=staged.dest, origin=self.problems.origin(*at))

    def _sibling(self, entry: str) -> Staged | None:
        """skill-creator and agentskills.io list `files` from the skill root, so `../other/
        SKILL.md` names a file beside the skill; it is read when it stays in the repository
        (landing by basename), for an evals file in `<skill>/evals/` only."""
        skill_dir = self.skill_dir.absolute() if self.skill_dir is not None else None
        raw = posixpath.normpath(entry.replace("\\", "/"))
        if skill_dir is None or self.evals_dir.parent != skill_dir or not raw.startswith("../"):
            return None
        source = Path(posixpath.normpath((skill_dir / raw).as_posix()))
        if not source.is_file() or not source.resolve().is_relative_to(self.root.resolve()):
            return None
        return Staged(Path(os.path.relpath(source, self.evals_dir)).as_posix(), source.name)

    def _source(self, entry: str, staged: Staged) -> Path:
        source = self.evals_dir / staged.cleaned
        # skill-creator lists paths from the skill root (`SKILL.md`, `references/x.md`); evolve
        # reads them from the evals directory. When the file sits in `<skill>/evals/` and only
        # the skill-root reading exists, take it.
        skill_dir = self.skill_dir.absolute() if self.skill_dir is not None else None
        raw = posixpath.normpath(entry.replace("\\", "/"))
        if not source.exists() and self.evals_dir.parent == skill_dir and skill_dir is not None:
            alternative = skill_dir / staged.cleaned
            if not raw.startswith("evals/") and alternative.exists():
                return alternative
        # An evals.json kept at the skill root (agentv's skill-creator examples do) lists
        # `evals/files/x` from there: the path as written is the one that exists.
        as_written = self.evals_dir / raw
        if not source.exists() and raw.startswith("evals/") and as_written.is_file():
            return as_written
        return source

    def _shown(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.name
