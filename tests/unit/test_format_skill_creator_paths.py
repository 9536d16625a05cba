"""skill-creator / agentskills.io `files` are skill-root paths: `../other/SKILL.md` names a
file beside the skill and is staged (by basename) when it stays in the repository."""

from __future__ import annotations

import json
from pathlib import Path

from evolve_action.formats import load_all

SKILL = "---\nname: {0}\ndescription: d\n---\nbody\n"


def repo(tmp_path: Path, files: list[str]) -> Path:
    evals = {
        "skill_name": "prose",
        "evals": [{"id": 1, "prompt": "p", "files": files, "expectations": ["e"]}],
    }
    for rel, text in {
        "skills/prose/SKILL.md": SKILL.format("prose"),
        "skills/prose/evals/evals.json": json.dumps(evals),
        "skills/propose/SKILL.md": SKILL.format("propose"),
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def test_a_file_beside_the_skill_is_staged(tmp_path: Path) -> None:
    (result,) = load_all(repo(tmp_path, ["../propose/SKILL.md"]))
    assert result.ok and result.suite is not None, result.problems
    (fixture,) = result.suite.cases[0].files
    assert fixture.dest == "SKILL.md"
    assert fixture.source.resolve() == (tmp_path / "skills/propose/SKILL.md").resolve()


def test_a_path_out_of_the_repository_is_still_refused(tmp_path: Path) -> None:
    (result,) = load_all(repo(tmp_path, ["../../../../etc/passwd"]))
    assert not result.ok and "escapes the evals directory" in result.errors[0].message


def test_a_missing_sibling_file_is_still_refused(tmp_path: Path) -> None:
    (result,) = load_all(repo(tmp_path, ["../nowhere/SKILL.md"]))
    assert not result.ok
