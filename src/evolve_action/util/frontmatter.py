"""A SKILL.md's front matter: the YAML block between `---` lines at the top of the file.

Discovery reads its `name` (a skill at the repository root) and a run installs the skill by
its `name` and `description`; both read it here, through `util.yaml_reader`, so a hostile
block (an alias bomb, a 5,000-digit number, deep nesting) meets the same limits as an eval
file. Front matter is optional and advisory, so a block that does not read gives no fields
rather than an error: the caller falls back to the directory name.
"""

from __future__ import annotations

from typing import Any

from evolve_action.util import yaml_reader
from evolve_action.util.limits import InputError


def split(text: str) -> tuple[str | None, str]:
    """(the front matter's YAML, the body after it); (None, text) when there is no block or
    it never closes."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return None, text
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            return "".join(lines[1:i]), "".join(lines[i + 1 :])
    return None, text


def fields(text: str) -> dict[str, Any]:
    """The front matter's mapping: {} when there is none, it is not a mapping, or it is not
    readable YAML within the limits."""
    block, _ = split(text)
    if block is None:
        return {}
    try:
        data, _ = yaml_reader.load(block)
    except InputError:
        return {}
    return data if isinstance(data, dict) else {}


def problem(text: str) -> InputError | None:
    """Why the front matter does not read, with its line in the file; None when it reads
    (or there is none)."""
    block, _ = split(text)
    if block is None:
        return None
    try:
        yaml_reader.load(block)
    except InputError as exc:
        return InputError(exc.message, exc.line + 1 if exc.line else 1)  # after the `---`
    return None
