"""A dry run names each eval file it could not load with why (its errors at file:line) and
exits 1, as the real job's check fails on invalid eval files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evolve_action.commands.cli import main
from tests.e2e.local_run import commit_sides, greeter_repo, write_tree
from tests.e2e.test_run_base_none import EVALS, SKILL

BROKEN = {
    "evals/farewell/evals.json": json.dumps(
        {"skill_name": "farewell", "evals": [{"id": i, "prompt": 3} for i in range(5)]}, indent=2
    ),
    "skills/farewell/SKILL.md": SKILL.replace("greeter", "farewell"),
}


def test_dry_run_says_why_each_file_was_not_loaded_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    repo = greeter_repo(tmp_path / "repo", SKILL, json.dumps(EVALS))
    commit_sides(write_tree(repo, BROKEN))
    code = main(["run", "--root", str(repo), "--dry-run", "--results-dir", str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert code == 1, out
    lines = out.splitlines()
    start = lines.index("  not loaded: evals/farewell/evals.json (15 errors):")
    reasons = lines[start + 1 : start + 5]
    first = "    evals/farewell/evals.json:6: evals[0].prompt: must be a string, not a number"
    assert reasons[0] == first
    assert reasons[3].startswith("    … and 12 more; `evolve-action validate evals/farewell/")
    assert "Dry run:" in out  # the valid file is still planned


def test_dry_run_of_valid_files_exits_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    repo = commit_sides(greeter_repo(tmp_path / "repo", SKILL, json.dumps(EVALS)))
    code = main(["run", "--root", str(repo), "--dry-run", "--results-dir", str(tmp_path / "o")])
    assert code == 0 and "not loaded" not in capsys.readouterr().out
