"""Builders for clauditor tests: a skill folder with a spec, the corpus in its real layout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evolve_action.formats.base import LoadContext
from evolve_action.formats.clauditor import load as clauditor
from evolve_action.formats.documents import read
from evolve_action.model.evals import LoadResult, Skill

SKILL_MD = "---\nname: demo\ndescription: Finds things.\n---\nYou find things.\n"

# Corpus file -> (path in its repository, fixtures it needs there).
CORPUS_LAYOUT = {
    "wjduenow__clauditor__examples__.claude__skills__find-kid-activities__SKILL.eval.json": (
        ".claude/skills/find-kid-activities/SKILL.eval.json",
        ["assets/sample-input.txt"],
    ),
    "wjduenow__clauditor__examples__.claude__skills__parallel-research__SKILL.eval.json": (
        ".claude/skills/parallel-research/SKILL.eval.json",
        ["assets/sample-input.txt"],
    ),
    "wjduenow__clauditor__.claude__skills__release-manager__SKILL.eval.json": (
        ".claude/skills/release-manager/SKILL.eval.json",
        [],
    ),
    "wjduenow__clauditor__examples__.claude__commands__example-skill.eval.json": (
        ".claude/commands/example-skill.eval.json",
        ["sample-input.txt"],
    ),
    "wjduenow__clauditor__src__clauditor__skills__clauditor__assets__clauditor.eval.json": (
        "src/clauditor/skills/clauditor/assets/clauditor.eval.json",
        [],
    ),
    "wjduenow__clauditor__.claude__skills__review-agentskills-spec__assets__review-agentskills-spec.eval.json": (  # noqa: E501
        ".claude/skills/review-agentskills-spec/assets/review-agentskills-spec.eval.json",
        [],
    ),
}
FIXTURE = (
    "wjduenow__clauditor__examples__.claude__skills__find-kid-activities__assets__sample-input.txt"
)


def load_file(root: Path, spec: Path, skill_dir: Path | None = None) -> LoadResult:
    rel = spec.relative_to(root).as_posix()
    skill = Skill(skill_dir.name if skill_dir else "demo", skill_dir)
    return clauditor.load(read(spec, rel), LoadContext(root=root, skill=skill))


def write_skill(
    root: Path,
    spec: dict[str, Any] | str,
    *,
    files: dict[str, str] | None = None,
    spec_path: str = "skills/demo/SKILL.eval.json",
    skill_md: str | None = SKILL_MD,
) -> Path:
    """Write a spec (and files relative to the spec's folder); return the spec's path."""
    path = root / spec_path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(spec if isinstance(spec, str) else json.dumps(spec, indent=2))
    if skill_md is not None:
        skill_file = path.parent / (
            "SKILL.md"
            if path.name == "SKILL.eval.json"
            else f"{path.name[: -len('.eval.json')]}.md"
        )
        skill_file.write_text(skill_md)
    for rel, content in (files or {}).items():
        target = path.parent / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    return path


def load_spec(root: Path, spec: dict[str, Any] | str, **kwargs: Any) -> LoadResult:
    path = write_skill(root, spec, **kwargs)
    return load_file(root, path, path.parent if path.name == "SKILL.eval.json" else None)


def messages(result: LoadResult) -> list[str]:
    return [p.render() for p in result.problems]


def seed_examples(seed: Path) -> list[dict[str, Any]]:
    """Every top-level JSON object written in the seed document, in order."""
    text = seed.read_text()
    decoder = json.JSONDecoder()
    out: list[dict[str, Any]] = []
    pos = 0
    while (start := text.find("\n{\n", pos)) >= 0:
        value, end = decoder.raw_decode(text, start + 1)
        out.append(value)
        pos = end
    return out
