"""The projection's range and the budget's ceiling measured on scripted agents of different
habits (`tests/fakes/behaviours.py`): the figures `bench/projection_bench.py` prints by
default. Each job is a whole `evolve-action run --base main` in this process, on a fresh
copy of the end-to-end pull request and the loopback fake; the projection object the job
made is kept (a wrapper around `pipeline.cost_plan.project`) to check each run against its
own range, not only the total."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from evolve_action.commands.cli import main
from evolve_action.pipeline import cost_plan
from evolve_action.plan.projection import Projection
from tests.e2e.test_pull_request import make_repo
from tests.fakes.behaviours import Behaviour
from tests.fakes.llm_server import FakeLLM

AGAIN = re.compile(r"After the first wave \(.*?\): .*? so \$([0-9.,]+) in all")
RUNS = "3"
PAIRED = ("greet", "bye")  # the cases both sides of the pull request hold


@contextlib.contextmanager
def _kept(into: list[Projection], costings: list[cost_plan.Costing]) -> Iterator[None]:
    """The job's projection and costing (whose `later` holds what the ceiling measured)."""
    real, again = cost_plan.project, cost_plan.Costing.reproject

    def keep(*args: Any, **kwargs: Any) -> Projection:
        into.append(real(*args, **kwargs))
        return into[-1]

    def reproject(self: cost_plan.Costing, *args: Any) -> cost_plan.Update:
        costings.append(self)
        return again(self, *args)

    cost_plan.project = keep  # type: ignore[assignment]
    cost_plan.Costing.reproject = reproject  # type: ignore[method-assign]
    try:
        yield
    finally:
        cost_plan.project, cost_plan.Costing.reproject = real, again  # type: ignore[method-assign]


def _job(
    repo: Path, work: Path, *extra: str
) -> tuple[str, list[dict[str, Any]], Projection, float]:
    """The job's log, the runs it made, its projection, and what its runs cost beyond the
    estimates the ceiling admitted them at."""
    out, kept, costings = io.StringIO(), list[Projection](), list[cost_plan.Costing]()
    with contextlib.redirect_stdout(out), _kept(kept, costings):
        main([
            "run", "--root", str(repo), "--base", "main", "--models", "anthropic,openai",
            "--judge-model", "anthropic", "--runs", RUNS, "--cache-dir", str(work / "cache"),
            "--results-dir", str(work / "out"), "--allow-unconfined", "true", *extra,
        ])  # fmt: skip
    runs = json.loads((work / "out/results.json").read_text())["runs"]
    overrun = costings[0].later.overrun_usd if costings else 0.0
    return out.getvalue(), [r for r in runs if not r["cached"]], kept[0], overrun


def _key(run: dict[str, Any]) -> str:
    return f"{run['side']}|{run['suite']}|{run['case_id']}|{run['model']}|{run['repetition']}"


def _usd(text: str) -> float:
    return float(text.replace(",", ""))


def _split(made: Sequence[dict[str, Any]]) -> int:
    sides: dict[tuple[Any, ...], set[str]] = {}
    for r in made:
        if r["case_id"] in PAIRED:
            sides.setdefault((r["suite"], r["case_id"], r["model"], r["repetition"]), set()).add(
                r["side"]
            )
    return sum(1 for s in sides.values() if len(s) != 2)


def measure(behaviour: Behaviour, llm: FakeLLM, root: Path) -> dict[str, Any]:
    llm.script = behaviour
    repo, _, _ = make_repo(root)
    # A budget far above the cost: two waves (the projection after the first), no cut.
    out, made, projection, _ = _job(repo, root / "cold", "--max-cost-usd", "1000")
    actual = sum(r["cost_usd"] or 0.0 for r in made)
    ranges = {r.spec.key: (r.low_usd or 0.0, r.high_usd or 0.0) for r in projection.runs}
    inside = sum(
        1 for r in made if ranges[_key(r)][0] <= (r["cost_usd"] or 0.0) <= ranges[_key(r)][1]
    )
    again = AGAIN.search(out)
    reprojected = _usd(again.group(1)) if again else None
    limit = actual / 3
    cut_out, cut_made, _, overrun = _job(repo, root / "cut", "--max-cost-usd", f"{limit:.6f}")
    spent = sum(r["cost_usd"] or 0.0 for r in cut_made)
    return {
        "behaviour": behaviour.name,
        "turns": behaviour.turns,
        "projected_usd": round(projection.total_usd, 4),
        "low_usd": round(projection.low_usd, 4),
        "high_usd": round(projection.high_usd, 4),
        "actual_usd": round(actual, 4),
        "inside": projection.low_usd <= actual <= projection.high_usd,
        "runs_inside": f"{inside}/{len(made)}",
        "reprojected_usd": reprojected,
        "reprojection_error": round(reprojected / actual - 1, 3) if reprojected else None,
        "budget_usd": round(limit, 4),
        "budget_spent_usd": round(spent, 4),
        "over_budget_usd": round(max(0.0, spent - limit), 4),
        "overrun_usd": round(overrun, 4),  # the bound: spend ≤ budget + this
        "within_bound": spent <= limit + overrun + 1e-9,
        "budget_runs_made": len(cut_made),
        "split_pairs": _split(cut_made),
        "cut_named": "Cut by max-cost-usd: evals/" in cut_out,
    }


def run_behaviours(behaviours: Sequence[Behaviour], beyond: Sequence[Behaviour] = ()) -> int:
    rows = []
    with tempfile.TemporaryDirectory() as tmp, FakeLLM() as llm:
        for key in ("ANTHROPIC", "OPENAI"):
            os.environ[f"{key}_API_KEY"] = "bench"
        os.environ["ANTHROPIC_BASE_URL"] = llm.anthropic_base_url
        os.environ["OPENAI_BASE_URL"] = llm.openai_base_url
        os.environ.pop("GITHUB_ACTIONS", None)
        for behaviour in behaviours:
            rows.append(measure(behaviour, llm, Path(tmp) / behaviour.name))
            print(json.dumps(rows[-1]), flush=True)
        past = [measure(b, llm, Path(tmp) / b.name) for b in beyond]
    inside = sum(r["inside"] for r in rows)
    errors = [abs(r["reprojection_error"] or 0.0) for r in rows]
    runs = [tuple(map(int, r["runs_inside"].split("/"))) for r in rows]
    print(json.dumps({
        "behaviours_inside": f"{inside}/{len(rows)}",
        "runs_inside": f"{sum(a for a, _ in runs)}/{sum(b for _, b in runs)}",
        "worst_reprojection_error": max(errors, default=None),
        "split_pairs": sum(r["split_pairs"] for r in rows),
    }))  # fmt: skip
    for row in past:
        print(json.dumps(row))
    return 0
