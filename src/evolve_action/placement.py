"""Where an eval file sits says what it is: its format by name, its skill by place.

Used for files found by discovery's walk and for files a user names directly
(`evolve-action validate path/to/evals.json`), so both get the same skill.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from evolve_action.model import Format, Skill

EXTENSIONS = (".json", ".jsonc", ".yaml", ".yml")  # evolve's probe order
PLUGIN_MARKER = ".claude-plugin/plugin.json"


@dataclass(frozen=True, slots=True)
class EvalFile:
    """One eval file to load: where it is, its format by name, and its skill."""

    path: Path  # absolute
    rel: str  # POSIX, relative to the discovery root (plus the caller's prefix)
    format: Format
    skill: Skill


def format_for_name(name: str) -> Format | None:
    """The format a file's name implies, or None for names no convention uses."""
    lower = name.lower()
    stem, dot, ext = lower.rpartition(".")
    if not dot:
        return None
    suffix = "." + ext
    if suffix in EXTENSIONS and stem == "evals":
        return Format.EVOLVE
    if suffix in EXTENSIONS and stem in ("triggers", "trigger-eval", "trigger_eval"):
        return Format.TRIGGERS
    if lower.endswith(".eval.json"):
        return Format.CLAUDITOR
    if suffix in (".yaml", ".yml") and (
        stem == "eval" or stem.endswith(".eval") or stem.startswith("dataset")
    ):
        return Format.AGENTV
    if suffix == ".jsonl" and (stem.startswith("dataset") or stem.endswith(".eval")):
        return Format.AGENTV
    return None


def describe_file(root: Path, path: Path, fmt: Format | None = None, *, rel: str = "") -> EvalFile:
    """An EvalFile for one file named directly (not found by the walk), with its skill guessed
    from where it sits. Raises ValueError when no format is given and the name implies none."""
    fmt = fmt or format_for_name(path.name)
    if fmt is None:
        raise ValueError(f"cannot tell the format of {path.name} from its name")
    path = path.resolve()
    root = root.resolve()
    rel = rel or relative(path, root)
    return EvalFile(path, rel, fmt, skill_near(path, fmt, root))


def skill_near(path: Path, fmt: Format, root: Path) -> Skill:
    """The skill an eval file sits beside or inside, by each format's convention."""
    parent = path.parent
    if fmt is Format.CLAUDITOR:
        name = path.name[: -len(".eval.json")] if path.name.lower().endswith(".eval.json") else ""
        if name.upper() == "SKILL" or not name:
            return _skill(parent.name, parent)
        if (parent / f"{name}.md").is_file():  # legacy `.claude/commands/<name>.md`
            return Skill(name=name, dir=None)
        if parent.name == "assets" and (parent.parent / "SKILL.md").is_file():
            return _skill(parent.parent.name, parent.parent)
        return Skill(name=name, dir=None)
    evolve_like = fmt in (Format.EVOLVE, Format.TRIGGERS, Format.SKILL_EVALUATOR)
    if evolve_like and parent.parent.name == "evals":
        skills = parent.parent.parent / "skills" / parent.name  # evolve eval set
        return Skill(parent.name, skills if skills.is_dir() else None)
    if evolve_like and parent.name == "evals":
        return _skill(parent.parent.name, parent.parent)  # skill-creator `<skill>/evals/`
    for ancestor in _ancestors(parent, root):
        if (ancestor / "SKILL.md").is_file():
            return _skill(ancestor.name, ancestor)
    stem = path.name.split(".")[0]
    generic = evolve_like or stem.lower() in ("eval", "dataset")
    return Skill(name=parent.name if generic else stem, dir=None)


def _skill(name: str, directory: Path) -> Skill:
    return Skill(name, directory if (directory / "SKILL.md").is_file() else None)


def _ancestors(start: Path, root: Path) -> Iterable[Path]:
    current = start
    while inside(current, root):
        yield current
        if current == root:
            return
        current = current.parent


def manifest_name(root: Path) -> str:
    try:
        data = json.loads((root / PLUGIN_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return ""
    name = data.get("name") if isinstance(data, dict) else None
    return name.strip() if isinstance(name, str) else ""


def inside(path: Path, root: Path) -> bool:
    try:
        Path(os.path.realpath(path)).relative_to(root)
    except ValueError:
        return False
    return True


def relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name
