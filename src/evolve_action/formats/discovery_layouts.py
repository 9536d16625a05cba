"""Layouts that say a file is an eval file where its name alone does not.

`claude plugin eval` keeps a case in `evals/<case>/`: its `case.yaml`, else a `prompt.md`
beside a `graders/` folder. Anthropic's best-practice guide keeps single-case JSON files in a
skill's `evals/` or `evaluations/` folder (its loader says "not mine" to any other JSON).
skill-creator's `evals/evals.json` is read beside its skill's SKILL.md; one kept apart from
its skill (an evals folder beside a copy of the skill, a `<skill>-workspace/` folder) is read
for the one skill folder its `skill_name`, else the folder holding it, names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Set

CASE_FILES = ("case.yaml", "case.yml")
CASE_FOLDERS = ("evals", "evaluations")
WORKSPACE = "-workspace"  # skill-creator's `<skill>-workspace/`, beside the skill


def plugin_case_file(rel_dir: str, files: Set[str], subdirs: Set[str]) -> str | None:
    """The file of a `claude plugin eval` case folder, or None when `rel_dir` is not one."""
    parts = rel_dir.split("/")
    if len(parts) < 2 or parts[-2] != "evals":
        return None
    found = next((n for n in CASE_FILES if n in files), None)
    if found is None and "prompt.md" in files and "graders" in subdirs:
        return "prompt.md"
    return found


def case_folder_json(rel_dir: str, name: str) -> bool:
    """A JSON file in an `evals/` or `evaluations/` folder: the best-practice guide's place."""
    return rel_dir.rpartition("/")[2] in CASE_FOLDERS and name.lower().endswith(".json")


def evals_apart(
    files_by_dir: Mapping[str, Set[str]], claimed: Set[str], skill_name_of: Callable[[str], str]
) -> list[tuple[str, str]]:
    """(evals folder, skill folder) of each `<folder>/evals/evals.json` no layout read (no
    SKILL.md beside its `evals/`) whose skill is unambiguous elsewhere in the tree: the one
    skill folder named by its `skill_name`, else by `<folder>` (less a `-workspace` suffix)."""
    skills: dict[str, list[str]] = {}
    for rel_dir, files in files_by_dir.items():
        if "SKILL.md" in files and rel_dir:
            skills.setdefault(rel_dir.rpartition("/")[2], []).append(rel_dir)
    out = []
    for rel_dir in sorted(files_by_dir):
        holder, _, last = rel_dir.rpartition("/")
        rel = f"{rel_dir}/evals.json"
        if last != "evals" or "evals.json" not in files_by_dir[rel_dir] or rel in claimed:
            continue
        if not holder or "SKILL.md" in files_by_dir.get(holder, ()):
            continue  # the root's `evals/` is evolve's; beside a SKILL.md it was read
        for name in (skill_name_of(rel), holder.rpartition("/")[2].removesuffix(WORKSPACE)):
            if len(skills.get(name, ())) == 1:
                out.append((rel_dir, skills[name][0]))
                break
    return out
