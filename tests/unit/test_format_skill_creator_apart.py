"""skill-creator's `evals/evals.json` kept apart from its skill (no SKILL.md beside its
`evals/`) is read for the one skill folder its `skill_name`, else the folder holding it
(less skill-creator's `-workspace` suffix), names; with no such skill, or two, it is not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evolve_action.formats import load_all

SKILL = "---\nname: {0}\ndescription: does {0} things\n---\nDo it.\n"


def _evals(name: str) -> str:
    case = {"id": 1, "prompt": "p", "expected_output": "e", "expectations": ["x"]}
    return json.dumps({"skill_name": name, "evals": [case]})


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.mark.parametrize(
    "evals_at",
    ["docs/tidy/evals/evals.json", "tidy-workspace/evals/evals.json", "tests/x/evals/evals.json"],
)
def test_evals_apart_from_their_skill_are_read_for_it(tmp_path: Path, evals_at: str) -> None:
    root = _write(
        tmp_path,
        {
            "skills/tidy/SKILL.md": SKILL.format("tidy"),
            "skills/other/SKILL.md": SKILL.format("other"),
            evals_at: _evals("tidy"),
            evals_at.replace("evals.json", "trigger-eval.json"): '[{"query": "q",'
            ' "should_trigger": true}]',
        },
    )
    results = load_all(root)
    assert [r.suite.skill.name for r in results if r.suite] == ["tidy", "tidy"], results
    assert all(not r.errors for r in results)


def test_evals_whose_skill_is_ambiguous_or_absent_are_not_guessed(tmp_path: Path) -> None:
    root = _write(
        tmp_path,
        {
            "a/tidy/SKILL.md": SKILL.format("tidy"),
            "b/tidy/SKILL.md": SKILL.format("tidy"),
            "docs/tidy/evals/evals.json": _evals("tidy"),
            "docs/gone/evals/evals.json": _evals("gone"),
        },
    )
    assert load_all(root) == []
