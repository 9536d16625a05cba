"""Layouts that say a file is an eval file where its name alone does not.

`claude plugin eval` keeps a case in `evals/<case>/`: its `case.yaml`, else a `prompt.md`
beside a `graders/` folder. Anthropic's best-practice guide keeps single-case JSON files in a
skill's `evals/` or `evaluations/` folder (its loader says "not mine" to any other JSON).
"""

from __future__ import annotations

from collections.abc import Set

CASE_FILES = ("case.yaml", "case.yml")
CASE_FOLDERS = ("evals", "evaluations")


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
