"""skill-creator shapes seen in the wild: a folder in `files` is staged file by file, a missing
file is a warning (skill-creator never checks its files) and the case runs without it, and a
trigger set written `{skill_name, queries: [{query, should_trigger}]}` is read."""

from __future__ import annotations

import json
from pathlib import Path

from evolve_action.formats import load_all
from evolve_action.model.evals import Format, Severity


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_folder_fixtures_missing_fixtures_and_a_queries_trigger_set(tmp_path: Path) -> None:
    cases = [
        {"id": 1, "prompt": "Tidy the docs.", "files": ["evals/fixtures/docs"],
         "expectations": ["The docs are tidy"]},
        {"id": "two", "prompt": "Sync.", "files": ["evals/fixtures/gone.md"],
         "expectations": ["Synced"]},
    ]  # fmt: skip
    queries = {"skill_name": "wrap", "queries": [{"query": "wrap up", "should_trigger": True}]}
    write(tmp_path, {
        "wrap/SKILL.md": "---\nname: wrap\ndescription: d\n---\nWrap up.\n",
        "wrap/evals/evals.json": json.dumps({"skill_name": "wrap", "evals": cases}),
        "wrap/evals/fixtures/docs/a.md": "A\n",
        "wrap/evals/fixtures/docs/sub/b.md": "B\n",
        "wrap/evals/trigger-eval.json": json.dumps(queries),
    })  # fmt: skip
    results = {r.rel: r for r in load_all(tmp_path)}
    evals = results["wrap/evals/evals.json"]
    assert evals.ok and evals.suite is not None, evals.problems
    first, second = evals.suite.cases
    assert sorted(f.dest.partition("docs/")[2] for f in first.files) == ["a.md", "sub/b.md"]
    assert second.files == ()
    warned = [p.message for p in evals.problems if p.severity is Severity.WARNING]
    assert any("fixture evals/fixtures/gone.md not found" in m for m in warned), warned
    triggers = results["wrap/evals/trigger-eval.json"]
    assert triggers.ok and triggers.format is Format.TRIGGERS, triggers.problems
    assert triggers.suite is not None and triggers.suite.cases[0].should_trigger is True
