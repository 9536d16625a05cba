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
    # The command the demo runs is printed, so a reader can run it on their own repository.
    assert "demo: running evolve-action run --root " in out and " --replay " in out
    comment = out[out.index("<!-- evolve:sticky") :]
    assert "### ❌ evolve: 2 evals regressed" in comment
    # Each case has one name everywhere: its name, with its id.
    greet_one = "Greet one person by name `greet-one`"
    assert (
        "**▼ Regressed**" in comment
        and f"| greeter / {greet_one} | both models | 3/3 → 0/3 |" in comment
    )
    assert "**What to do**" in comment
    assert (
        "**▲ Improved:**" in comment
        and "Record an addition under Unreleased `add-entry`" in comment
    )
    assert "**New:**" in comment and "Greet two people `greet-two`" in comment
    assert "Failed checks: 3 (in 18 failed head runs)" in comment
    assert (
        "greetings/ana.txt matches /^Hello, Ana!$/ | no match | 6 of 6 runs, both models" in comment
    )
    assert "Suggestions from the judge" in comment and "imperative" in comment
    # the id is not repeated after the name
    assert "Record an addition under Unreleased `add-entry`: no assertion checks" in comment
    # Each case also ran without its skill: the lift, and the checks that cannot tell.
    assert "| no skill |" in comment and "50%, lift +50 pts ▲" in comment
    # 18 checks that cannot tell, one row per case and finding.
    section = comment.split("Checks that cannot tell (18)", 1)[1].split("</details>", 1)[0]
    assert len([line for line in section.splitlines() if line.startswith("| ")]) == 1 + 6
    assert "| 5 checks: " in section
    assert "passes without the skill: it tests nothing the skill adds" in comment
    assert "`changelog`: 8 of 10 checks cannot tell a good skill from a bad one" in comment
    # The trigger that fires where it must not blames the skill, not the check.
    assert "the skill fires on a prompt it must not fire on" in comment
    assert "broken or too strict" not in comment
    assert (tmp_path / "demo/results/results.json").is_file()
    assert (tmp_path / "demo/results/report.html").is_file()  # the charts and transcripts
    assert f"demo: the results: {tmp_path / 'demo/results/results.json'}" in out
