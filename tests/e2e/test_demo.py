"""The README's first command: the offline demo replays the whole pipeline with no key."""

from __future__ import annotations

from pathlib import Path

import pytest

from evolve_action.commands.cli import main


def test_demo__offline_comment_shows_regression_improvement_failures_suggestions_lift(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    assert main(["demo", "--keep", str(tmp_path / "demo")]) == 0
    out = capsys.readouterr().out
    assert "0 errors" in out  # every exchange was found in the cassettes
    comment = out[out.index("<!-- evolve:sticky") :]
    assert "### ❌ evolve: 2 evals regressed" in comment
    assert "**▼ Regressed**" in comment and "`Greet one person by name`" in comment
    assert "**▲ Improved:**" in comment and "`Record an addition under Unreleased`" in comment
    assert "**New:**" in comment and "`Greet two people`" in comment
    assert "Failed assertions" in comment and "greetings/ana.txt matches /^Hello, Ana!$/" in comment
    assert "Suggestions from the judge" in comment and "imperative" in comment
    assert "`add-entry`: no assertion checks" in comment  # the id is not repeated
    # Each case also ran without its skill: the lift, and the checks that cannot tell.
    assert "| no skill | lift |" in comment and "▲ p = 0.005" in comment
    assert "Evals that cannot tell" in comment
    assert "passes without the skill: it tests nothing the skill adds" in comment
    assert "`changelog`: 8 of 10 checks cannot tell a good skill from a bad one" in comment
    assert (tmp_path / "demo/results/results.json").is_file()
