"""The seed's complete clauditor spec, loaded and graded through `grade_run` with a fake judge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evolve_action.grade.grading import JudgeSetup, grade_run
from evolve_action.model.checking import CheckContext
from evolve_action.model.evals import Case, Suite
from evolve_action.model.outcomes import Status, Transcript
from tests.fakes.commands import no_commands
from tests.unit.clauditor_helpers import load_spec, seed_examples
from tests.unit.judge_fakes import ScriptedProvider, submit

VENUES = "\n".join(
    f"**{i}. Park {i}** — {i} Main St — https://park{i}.example.com" for i in range(1, 4)
)
OUTPUT = f"# Venues\n\n{VENUES}\n\n" + "Details. " * 60


def seed_suite(tmp_path: Path, shared_dir: Path) -> tuple[Suite, Case]:
    complete = seed_examples(shared_dir / "seeds/clauditor-eval-spec-format.md")[1]
    result = load_spec(tmp_path, complete, files={"fixtures/sample-venues.csv": "a,b\n"})
    assert result.suite is not None, [p.render() for p in result.problems]
    return result.suite, result.suite.cases[0]


def context(suite: Suite, case: Case, workspace: Path) -> CheckContext:
    return CheckContext(
        suite=suite,
        case=case,
        workspace=workspace,
        transcript=Transcript(final_text="I saved the results."),
        run_command=no_commands,
        timeout_s=60,
    )


def entry(i: int, website: str | None) -> dict[str, Any]:
    return {"name": f"Park {i}", "address": f"{i} Main St", "website": website}


async def test_seed__graded_end_to_end(tmp_path: Path, shared_dir: Path) -> None:
    suite, case = seed_suite(tmp_path / "repo", shared_dir)
    workspace = tmp_path / "ws"
    (workspace / "research").mkdir(parents=True)
    (workspace / "research/results.md").write_text(OUTPUT)
    extraction = {"Venues": {"default": [entry(i, f"park{i}.example.com") for i in (1, 2, 3)]}}
    scores = {str(n): {"score": s, "evidence": "ok"} for n, s in ((2, 0.9), (3, 0.8), (4, 0.7))}
    judge = ScriptedProvider([submit({"extractions": {"1": extraction}, "rubric_scores": scores})])
    graded = await grade_run(context(suite, case, workspace), JudgeSetup(judge, "fake/judge"))
    assert [r for r in graded.items if r.passed is not True] == []
    assert (graded.status, graded.reason) == (Status.PASS, "")
    assert graded.score == pytest.approx(0.8)
    checks = {r.item_id: r.evidence for r in graded.items if r.kind.startswith("clauditor.")}
    assert checks["has_urls_3"].endswith("(in research/results.md)")
    assert "L2:Venues/default[2].venue_website" in checks
    assert "sample-venues.csv" in [f.dest for f in case.files]


async def test_seed__missing_required_field_fails_the_run(tmp_path: Path, shared_dir: Path) -> None:
    suite, case = seed_suite(tmp_path / "repo", shared_dir)
    workspace = tmp_path / "ws"
    (workspace / "research").mkdir(parents=True)
    (workspace / "research/results.md").write_text(OUTPUT)
    extraction = {"Venues": {"default": [entry(1, None), entry(2, "b.io"), entry(3, "c.io")]}}
    scores = {str(n): {"score": 1.0, "evidence": "ok"} for n in (2, 3, 4)}
    judge = ScriptedProvider([submit({"extractions": {"1": extraction}, "rubric_scores": scores})])
    graded = await grade_run(context(suite, case, workspace), JudgeSetup(judge, "fake/judge"))
    assert graded.status is Status.FAIL
    assert graded.reason == "L2: 1 of 10 field checks failed"
    failed = [r.item_id for r in graded.items if r.passed is False]
    assert failed == ["L2:Venues/default[0].venue_website"]
