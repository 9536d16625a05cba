"""Installing skills into a workspace the way agent harnesses do, and reading their SKILL.md.

A skill is COPIED to `.claude/skills/<dir name>/`, never symlinked: a link would hand the agent
a path into the PR checkout. Symlinks inside the skill are followed only when they stay inside
it, and eval files that sit in a skill directory (skill-creator's `evals/`, clauditor's
`*.eval.json`) are left out so the agent cannot read how it will be graded.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path

from evolve_action.execute.sandbox.confine import resolved
from evolve_action.util import frontmatter

SKILLS_DIR = ".claude/skills"
DESCRIPTION_CAP = 1024
# Left out of an installed skill: grading material and VCS/cache noise.
_SKIP_DIRS_AT_ROOT = frozenset({"evals"})
_SKIP_DIRS = frozenset({".git", "__pycache__", "node_modules"})
_SKIP_FILES = ("*.eval.json", "*.eval.yaml", "*.eval.yml", "EVAL.yaml", "EVAL.yml")


class WorkspaceError(Exception):
    """The workspace could not be prepared; the run ends as an error of kind `workspace`."""


@dataclass(frozen=True, slots=True)
class SkillInfo:
    """An installed skill, as the model is told about it."""

    name: str  # frontmatter `name`, else the directory name
    description: str
    body: str  # SKILL.md without its frontmatter
    path_in_workspace: str  # `.claude/skills/<dir>`, POSIX, relative to the workspace root
    files: tuple[str, ...] = ()  # the skill's other files, relative to its directory

    @property
    def dir_name(self) -> str:
        return self.path_in_workspace.rsplit("/", 1)[-1]


def parse_skill_md(text: str, fallback_name: str) -> tuple[str, str, str]:
    """(name, description, body) of a SKILL.md; bad or missing frontmatter falls back to the
    directory name and the first paragraph, because a sloppy skill should still be testable."""
    _, body = frontmatter.split(text)
    fields = frontmatter.fields(text)
    name = fields.get("name")
    description = fields.get("description")
    if not isinstance(name, str) or not name.strip():
        name = fallback_name
    if not isinstance(description, str) or not description.strip():
        description = first_paragraph(body)
    return name.strip(), " ".join(description.split())[:DESCRIPTION_CAP], body.lstrip("\n")


def first_paragraph(body: str) -> str:
    """The first paragraph of prose, skipping headings, as one line."""
    words: list[str] = []
    for line in body.splitlines():
        stripped = line.strip()
        if not stripped:
            if words:
                break
            continue
        if stripped.startswith("#") and not words:
            continue
        words.append(stripped)
    return " ".join(words)


def install_skill(source: Path, workspace: Path, skills_dir: str = SKILLS_DIR) -> SkillInfo:
    """Copy one skill (a directory with SKILL.md, or a single command `.md` file) into place,
    under `skills_dir` (Claude Code's `.claude/skills` unless the agent looks elsewhere)."""
    if source.is_file():
        dir_name, skill_md = source.stem, source
    else:
        dir_name, skill_md = source.name, source / "SKILL.md"
    if not skill_md.is_file():
        raise WorkspaceError(
            f"cannot install skill {dir_name!r}: {skill_md.name} is missing in its directory; "
            "add a SKILL.md (frontmatter name and description, then instructions)"
        )
    target = workspace / skills_dir / dir_name
    target.mkdir(parents=True, exist_ok=True)
    if source.is_file():
        _copy_file(source, target / "SKILL.md")
        files: list[str] = []
    else:
        files = _copy_tree(source.resolve(), target)
    text = (target / "SKILL.md").read_text(encoding="utf-8", errors="replace")
    name, description, body = parse_skill_md(text, dir_name)
    others = tuple(sorted(f for f in files if f != "SKILL.md"))
    return SkillInfo(name, description, body, f"{skills_dir}/{dir_name}", others)


def plugin_skills(plugin_dir: Path | None) -> list[Path]:
    """Every `skills/*/` of a plugin that has a SKILL.md, in name order."""
    if plugin_dir is None:
        return []
    found = (plugin_dir / "skills").glob("*/SKILL.md")
    return sorted((p.parent for p in found if not p.parent.is_symlink()), key=lambda p: p.name)


def _copy_tree(root: Path, target: Path) -> list[str]:
    """Copy regular files under `root`; a symlink is copied as the file it names only when
    that file lies inside `root`. Returns the copied files, relative and POSIX."""
    copied: list[str] = []
    for current, dirs, names in os.walk(root, followlinks=False):
        here = Path(current)
        rel_dir = here.relative_to(root)
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in _SKIP_DIRS
            and not (rel_dir == Path() and d in _SKIP_DIRS_AT_ROOT)
            and not (here / d).is_symlink()  # linked directories could loop or leave the skill
        )
        for name in sorted(names):
            if any(fnmatch(name, pattern) for pattern in _SKIP_FILES):
                continue
            src = resolved(here / name)
            if src is None or not src.is_relative_to(root) or not src.is_file():
                continue
            rel = rel_dir / name
            _copy_file(src, target / rel)
            copied.append(rel.as_posix())
    return copied


def _copy_file(src: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest, follow_symlinks=True)
    executable = src.stat().st_mode & stat.S_IXUSR
    dest.chmod(0o755 if executable else 0o644)
