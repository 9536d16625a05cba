"""The projection's range and the projection after the first wave, one rule at a time: a run
never seen ranges over the prior's two behaviours (the high end held under the turn cap), a
run seen over its case's cheapest and dearest run; the rest of a plan is priced from what
its first wave measured (the prompt cache warm) and cut to what is left of the budget; and
the words name what the ceiling refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.projection_bench import generated_repo
from evolve_action.commands.cli import main
from evolve_action.model.outcomes import RunResult, Side, Status, Transcript, Usage
from evolve_action.pipeline.cost_plan import Costing
from evolve_action.pipeline.pricing import Prices
from evolve_action.plan import cost_prior
from evolve_action.plan.cost_history import Seen
from evolve_action.plan.cost_words import projection_line, refused_lines
from evolve_action.plan.projection import Projection, project
from tests.unit.test_cost_plan import SONNET, both_sides, projection, suite


def _project(runs: int = 2, **kw: object) -> Projection:
    return projection(both_sides(suite("a", "b", judged=True), runs), **kw)


def test_a_run_never_seen_ranges_from_one_short_turn_to_many_long_ones() -> None:
    p = _project()
    assert p.ranged
    assert 0 < p.low_usd < p.total_usd < p.high_usd
    assert p.high_usd / p.total_usd > 20  # nothing is known yet of how the agent behaves
    line = projection_line(p, prices_as_of="2026-11", max_runs=20, turn_cap=20)
    assert "; between $" in line and cost_prior.HIGH.words() in line


def test_the_turn_cap_lowers_the_high_end() -> None:
    free = _project()
    capped = _project(turn_cap=lambda _case: 3)
    assert capped.high_usd < free.high_usd / 4
    assert capped.low_usd == free.low_usd
    line = projection_line(capped, prices_as_of="2026-11", max_runs=20, turn_cap=3)
    assert "held to the turn cap of 3" in line


def test_a_case_seen_ranges_over_its_cheapest_and_dearest_run() -> None:
    cheap = (Usage(1_000, 100, 0, 0, None, 2), Usage())
    dear = (Usage(9_000, 900, 0, 0, None, 8), Usage())
    seen = Seen(2, Usage(5_000, 500, 0, 0, None, 5), Usage(), cheap, dear)
    history = {("evals/s/evals.json", c, SONNET): seen for c in ("a", "b")}
    p = _project(history=history)
    assert not p.ranged and p.count("seen") == len(p.runs)
    per_run = len(p.runs)
    assert p.low_usd == pytest.approx(per_run * (1_000 * 3 + 100 * 15) / 1e6)
    assert p.high_usd == pytest.approx(per_run * (9_000 * 3 + 900 * 15) / 1e6)


def _costing(runs: int) -> tuple[Costing, list[RunResult]]:
    plan = both_sides(suite("a", "b"), runs)
    p = project(plan, cached=(), history={}, price=Prices({}).cost, judge_model=SONNET,
                harness="sdk", max_runs=20)  # fmt: skip
    costing = Costing(p, None, "2026-11", 20, price=Prices({}).cost, judge_model=SONNET)
    first = [s for s in plan.runs if s.repetition == 1]
    made = []
    for spec in first:
        # The first run of the job writes the prompt cache; the others read it.
        write = 2_000 if spec is first[0] else 0
        usage = Usage(1_000, 200, 2_000 - write, write, None, 4)
        usage.cost_usd = Prices({}).cost(SONNET, usage)
        made.append(
            RunResult(
                spec.suite.rel, spec.case.id, spec.model, spec.side, spec.repetition, Status.PASS,
                transcript=Transcript(usage=usage),
            )
        )  # fmt: skip
    return costing, made


def test_the_rest_is_priced_from_the_first_wave_with_the_prompt_cache_warm() -> None:
    costing, made = _costing(runs=3)
    rest = [r.spec for r in costing.projection.runs if r.spec.repetition > 1]
    update = costing.reproject(made, rest)
    warm = Prices({}).cost(SONNET, Usage(1_000, 200, 2_000, 0, None, 4)) or 0.0
    assert update.rest_usd == pytest.approx(len(rest) * warm)
    assert update.spent_usd > len(made) * warm  # the first run paid the cache's write
    assert "After the first wave (4 runs," in update.lines()[0]


def test_the_rest_is_cut_in_whole_pairs_to_what_is_left() -> None:
    costing, made = _costing(runs=3)
    rest = [r.spec for r in costing.projection.runs if r.spec.repetition > 1]
    update = costing.reproject(made, rest)
    limit = update.spent_usd + update.rest_usd / 2
    cut = update.cut_rest(rest, limit)
    assert cut is not None and cut.any
    assert cut.kept_usd <= limit - update.spent_usd
    kept = {(s.case.id, s.repetition, s.side) for s in cut.kept}
    assert {(c, n) for c, n, side in kept if side is Side.BASE} == {
        (c, n) for c, n, side in kept if side is Side.HEAD
    }
    assert update.cut_rest(rest, None) is None


def test_what_the_ceiling_refused_is_named_with_what_the_cheapest_needed() -> None:
    plan = both_sides(suite("a"), 2)
    lines = refused_lines(plan.runs, 0.05, (0.5, 0.05))
    assert "4 runs not started, in whole pairs" in lines[0]
    assert "the cheapest needed $0.5000 with $0.0500 left" in lines[0]
    assert (
        lines[1]
        == "evals/s/evals.json · a on anthropic/claude-sonnet-4-6: 2 more runs per side not started"
    )
    assert refused_lines((), 0.05, None) == ()


@pytest.mark.parametrize("runs", ["99999999999999999999", "1000000"])
def test_a_huge_runs_flag_ends_at_once_with_a_clear_message(
    runs: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--runs", runs, "--base", "none"]) == 2
    err = capsys.readouterr().err
    assert "input runs:" in err and "over the limit of 100 runs per case and side" in err
    assert "Traceback" not in err


def test_a_plan_over_the_limit_ends_the_job_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    repo = generated_repo(tmp_path / "repo", 501)  # 501 cases × 100 runs × 2 sides
    argv = ["run", "--root", str(repo), "--base", "main", "--models", "anthropic"]
    argv += ["--runs", "100", "--cache-dir", str(tmp_path / "c"), "--results-dir", str(tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "the plan holds 100,200 runs" in err and "over the limit of 100,000" in err
