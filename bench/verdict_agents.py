"""False alarms over the agent dimension: A/A pull requests over K cases × M models × A agents
× N runs per side, decided as the product decides a job of several agents (`agents`).

With several agents each (model, agent) is a lane (`model.lanes`): its own cell in the one
family `verdict.decide` holds at alpha. This draws, for every (case, model), a rate; each
agent then moves it by its own effect (an agent helps or hinders a case: lanes of one case are
correlated, as they are in practice), the same on base and head (nothing changed: an A/A).
A PR is flagged when the verdict says something regressed. A few PRs per configuration also go
through `stats.aggregate` on runs that carry their agent (`lanes.relabel`, what the report path
does), and the run stops if the two disagree.

    .venv/bin/python -m bench.verdict_agents                   # the grid, 2 worker processes
    .venv/bin/python -m bench.verdict_agents --prs 200 --agents 1 3

The last line is JSON: the worst false-alarm rate per agent count, with its one-sided 95%
upper bound.
"""

from __future__ import annotations

import argparse
import json
import random
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from bench.verdict import KS, MS, NS, SUITE_SIZE, counts, upper_95
from evolve_action.model import lanes
from evolve_action.model.outcomes import RunResult, Side, Status
from evolve_action.verdict.decide import CellKey, decide
from evolve_action.verdict.stats import aggregate

AGENTS = ("claude", "copilot", "codex")
NULLS = ("mixed", "high", "agent-effect")


def rates(
    scenario: str, k: int, m: int, a: int, rng: random.Random
) -> dict[CellKey, tuple[int, int]]:
    """(base, head) pass probability per lane, per mille; base = head (A/A)."""
    out: dict[CellKey, tuple[int, int]] = {}
    for case in range(k):
        suite = f"evals/skill-{case // SUITE_SIZE}/evals.json"
        for model in range(m):
            low = 700 if scenario == "high" else 0
            p = low + int(rng.random() * (1001 - low))
            for agent in AGENTS[:a]:
                shift = int((rng.random() - 0.5) * 600) if scenario == "agent-effect" else 0
                q = min(1000, max(0, p + shift))
                out[(suite, f"case-{case}", lanes.lane(f"p/model-{model}", agent))] = (q, q)
    return out


def runs_of(cells: dict[CellKey, object]) -> list[RunResult]:
    """The runs the counts stand for, each with its plain model and its agent."""
    out = []
    for (suite, case, label), c in cells.items():
        agent = {lanes.display(a): a for a in AGENTS}.get(lanes.agent_label(label), "")
        model = lanes.model_of(label, agent)
        for side, passed, failed in (
            (Side.BASE, c.base_passed, c.base_failed),  # type: ignore[attr-defined]
            (Side.HEAD, c.head_passed, c.head_failed),  # type: ignore[attr-defined]
        ):
            statuses = [Status.PASS] * passed + [Status.FAIL] * failed
            out += [
                RunResult(suite, case, model, side, i + 1, s, float(s is Status.PASS), agent=agent)
                for i, s in enumerate(statuses)
            ]
    return out


@dataclass(frozen=True)
class Config:
    scenario: str
    k: int
    m: int
    a: int
    n: int
    prs: int
    alpha: float
    check: int
    seed: int = 0  # a fresh draw of pull requests for the same configuration


def simulate(c: Config) -> dict[str, object]:
    tag = f"{c.scenario}/{c.k}/{c.m}/{c.a}/{c.n}" + (f"/{c.seed}" if c.seed else "")
    rng = random.Random(zlib.crc32(tag.encode()))
    flagged = 0
    started = time.perf_counter()
    for i in range(c.prs):
        cells = counts(rates(c.scenario, c.k, c.m, c.a, rng), c.n, rng)
        hit = decide(cells, c.alpha, detail=False).regressed
        if i < c.check:
            through = aggregate(lanes.relabel(runs_of(cells)), alpha=c.alpha).verdict.regressed
            if through != hit:
                raise SystemExit(f"aggregate and decide disagree on {c} (pr {i})")
        flagged += hit
    return {
        "scenario": c.scenario, "k": c.k, "m": c.m, "a": c.a, "n": c.n, "prs": c.prs,
        "flagged": flagged, "rate": flagged / c.prs,
        "seconds": round(time.perf_counter() - started, 2),
    }  # fmt: skip


def confirm(
    pool: ProcessPoolExecutor, rows: list[dict[str, object]], args: argparse.Namespace
) -> dict[str, object]:
    """Per agent count: the three worst configurations again on fresh pull requests."""
    out: dict[str, object] = {}
    for a in sorted({int(str(r["a"])) for r in rows}):
        mine = sorted((r for r in rows if r["a"] == a), key=lambda r: -float(str(r["rate"])))[:3]
        again = [
            Config(str(r["scenario"]), int(str(r["k"])), int(str(r["m"])), a, int(str(r["n"])),
                   args.confirm_prs, args.alpha, 0, seed=1)
            for r in mine
        ]  # fmt: skip
        fresh = list(pool.map(simulate, again))
        worst = max(fresh, key=lambda r: float(str(r["rate"])))
        out[str(a)] = {
            "first_pass_max": mine[0]["rate"],
            "worst_rate": worst["rate"],
            "upper_95": round(upper_95(int(str(worst["flagged"])), args.confirm_prs), 4),
            "where": f"{worst['scenario']} K={worst['k']} M={worst['m']} N={worst['n']}",
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prs", type=int, default=400, help="simulated PRs per configuration")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--check", type=int, default=1, help="PRs per configuration also aggregated")
    ap.add_argument("--agents", type=int, nargs="+", default=[1, 2, 3], choices=[1, 2, 3])
    ap.add_argument("--ks", type=int, nargs="+", default=list(KS))
    ap.add_argument("--nulls", nargs="+", choices=NULLS, default=list(NULLS))
    ap.add_argument(
        "--confirm-prs",
        type=int,
        default=3000,
        help="fresh PRs for the worst configurations of each agent count (the largest of many"
        " noisy rates overstates its configuration)",
    )
    args = ap.parse_args()
    configs = [
        Config(s, k, m, a, n, args.prs, args.alpha, args.check)
        for s in args.nulls for k in args.ks for m in MS for a in args.agents for n in NS
    ]  # fmt: skip
    started = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        rows = list(pool.map(simulate, configs))
    print("scenario      K  M  A   N   false alarms")
    for r in rows:
        line = f"{r['scenario']:<12} {r['k']:>3} {r['m']:>2} {r['a']:>2} {r['n']:>3}"
        print(f"{line}   {r['rate']:.4f} ({r['flagged']}/{r['prs']})")
    with ProcessPoolExecutor(args.workers) as pool:
        summary = confirm(pool, rows, args)
    seconds = round(time.perf_counter() - started)
    print(
        json.dumps({"alpha": args.alpha, "prs": args.prs, "worst_aa": summary, "seconds": seconds})
    )


if __name__ == "__main__":
    main()
