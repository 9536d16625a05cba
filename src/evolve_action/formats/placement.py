"""Where an eval file sits says what it is: its format by name, its skill by place.

Used for files found by discovery's walk and for files a user names directly
(`evolve-action validate path/to/evals.json`), so both get the same skill.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from evolve_action.formats import documents, families
from evolve_action.model.evals import Format, Problem, Skill
from evolve_action.util import frontmatter, globs

EXTENSIONS = (".json", ".jsonc", ".yaml", ".yml")  # evolve's probe order
PLUGIN_MARKER = ".claude-plugin/plugin.json"
MARKETPLACE_MARKER = ".claude-plugin/marketplace.json"
# Older AgentV generations named datasets `dataset.yaml`, `dataset-<topic>.yaml`; a second dot
# marks a helper beside one (`dataset.grader-scores.yaml`) or a result (`dataset.baseline.jsonl`).
_DATASET = re.compile(r"dataset(?:[-_][^.]*)?")
_FRONTMATTER_BYTES = 64 * 1024
# File stems and folders that say "this is an eval" but not what it evaluates.
GENERIC_STEMS = ("eval", "dataset", "suite")
GENERIC_FOLDERS = ("evals", "eval", "tests", "suites")


@dataclass(frozen=True, slots=True)
class EvalFile:
    """One eval file to load: where it is, its format by name, and its skill."""

    path: Path  # absolute
    rel: str  # POSIX, relative to the discovery root (plus the caller's prefix)
    format: Format
    skill: Skill
    notes: tuple[Problem, ...] = ()  # warnings discovery has about this file (shown with it)
    declared: bool = False  # `.evolve.yaml` `formats:` says what it is: its format is certain


@dataclass(frozen=True, slots=True)
class Declared:
    """One `.evolve.yaml` `formats:` entry: the files its glob matches are of this format."""

    paths: str  # a glob over repository-relative paths (`**` spans folders)
    format: Format

    def matches(self, rel: str) -> bool:
        return globs.translate(self.paths).fullmatch(rel) is not None


def declared_format(rel: str, declared: Iterable[Declared]) -> Format | None:
    """The format `.evolve.yaml` gives this path: the first entry whose glob matches it."""
    return next((d.format for d in declared if d.matches(rel)), None)


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
    if ".baseline." in lower:  # AgentV's committed result baselines are outputs, not evals
        return None
    # Vally's own suite name; `.vally.yaml` alone is Vally's project config, not an eval.
    if suffix in (".yaml", ".yml") and stem.endswith(".vally") and stem != ".vally":
        return Format.VALLY
    if suffix in (".yaml", ".yml") and stem == "trigger_tests":  # waza's trigger prompts
        return Format.WAZA
    if lower == "criteria.json":  # a tessl scenario, when task.md sits beside it
        return Format.TESSL
    if stem == "promptfooconfig" and suffix in (".yaml", ".yml", ".json"):
        return Format.PROMPTFOO
    if suffix in (".yaml", ".yml") and (
        stem in ("eval", "suite") or stem.endswith(".eval") or _DATASET.fullmatch(stem)
    ):
        return Format.AGENTV
    if suffix == ".jsonl" and (stem.endswith(".eval") or _DATASET.fullmatch(stem)):
        return Format.AGENTV
    return families.format_named(lower)


def generic_agentv_name(name: str) -> bool:
    """`dataset*.yaml`, `suite.yaml`: names AgentV only looks for below an `evals/` folder."""
    stem = name.lower().rpartition(".")[0]
    return stem == "suite" or bool(_DATASET.fullmatch(stem))


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
        # skill-creator `<skill>/evals/`
        return _skill(skill_dir_name(parent.parent, root), parent.parent)
    for ancestor in _ancestors(parent, root):
        if (ancestor / "SKILL.md").is_file():
            return _skill(skill_dir_name(ancestor, root), ancestor)
    stem = path.name.split(".")[0]
    generic = evolve_like or stem.lower().startswith(GENERIC_STEMS)
    return Skill(name=feature_folder(path) if generic else stem, dir=None)


def feature_folder(path: Path) -> str:
    """The folder that names what a generically named eval file is about: the nearest one
    that is not itself a generic eval folder (`features/basic/evals/dataset.eval.yaml` →
    `basic`)."""
    for folder in path.parents:
        if folder.name and folder.name.lower() not in GENERIC_FOLDERS:
            return folder.name
    return path.name.split(".")[0]


def skill_dir_name(directory: Path, root: Path) -> str:
    """A skill's name from its directory. At the repository root the directory is wherever the
    checkout landed (`workspace` in Actions), so SKILL.md's frontmatter `name` says it there."""
    if directory.resolve() == root.resolve():
        return frontmatter_name(directory / "SKILL.md") or directory.name
    return directory.name


def frontmatter_name(skill_md: Path) -> str:
    """SKILL.md's frontmatter `name`, or "" when it has none that reads."""
    name = frontmatter.fields(_head(skill_md)).get("name")
    return name.strip() if isinstance(name, str) and "/" not in name else ""


def frontmatter_problem(skill_md: Path) -> tuple[str, int | None] | None:
    """(message, line) when SKILL.md's front matter does not read, within the limits."""
    found = frontmatter.problem(_head(skill_md))
    if found is None:
        return None
    message = (
        f"the front matter does not read ({found.message}), so the skill is named after its"
        f" directory, {skill_md.parent.name}; fix the front matter to name it"
    )
    return message, found.line


def _head(skill_md: Path) -> str:
    try:
        with skill_md.open(encoding="utf-8", errors="replace") as handle:
            return handle.read(_FRONTMATTER_BYTES)
    except OSError:
        return ""


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
    data = _json(root / PLUGIN_MARKER)
    name = data.get("name") if isinstance(data, dict) else None
    return name.strip() if isinstance(name, str) else ""


def marketplace_plugins(root: Path) -> list[tuple[str, str]]:
    """(name, root-relative folder) of each plugin a marketplace lists by a local `source`
    (`./` is the repository itself, "" here); remote sources (git URLs, GitHub) are skipped."""
    data = _json(root / MARKETPLACE_MARKER)
    plugins = data.get("plugins") if isinstance(data, dict) else None
    found: list[tuple[str, str]] = []
    for entry in plugins if isinstance(plugins, list) else []:
        source = entry.get("source") if isinstance(entry, dict) else None
        if not isinstance(source, str) or not source.startswith("."):
            continue
        folder = (root / source).resolve()
        if not folder.is_dir() or not inside(folder, root.resolve()):
            continue
        rel = folder.relative_to(root.resolve()).as_posix()
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            name = manifest_name(folder) or (folder.name if rel != "." else root.name)
        found.append((name.strip(), "" if rel == "." else rel))
    return found


def _json(path: Path) -> object:
    """A plugin manifest or marketplace, read within the documents' limits; None when it
    does not read (discovery then goes by directory names)."""
    if not path.is_file():
        return None
    try:
        return documents.read(path).data
    except documents.DocumentError:
        return None


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
