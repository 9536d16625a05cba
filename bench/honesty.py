"""Verdict honesty (issue 7 item 3): does the gate flag regressions at the rate it promises?

A seeded stochastic fake plays the agent: every run of a case passes with probability p on
base and q on head, independently. One simulated pull request is one suite on one model,
with `cases` cases and `runs` runs per case and side; its `RunResult`s go through
`stats.aggregate` exactly as the product's runs do, and the PR counts as flagged when the
suite's group label is `regressed` (what `gate.evaluate` fails on with fail-on-regression).

    .venv/bin/python -m bench.honesty                 # A/A, power, runs-needed table (JSON lines)
    .venv/bin/python -m bench.honesty --prs 1000 --seed 7 --only aa

Parts:
- `aa`: the same skill on both sides (p = q = 0.5, 0.8, 0.95) over `--prs` PRs; the share
  flagged must be at most alpha (with a one-sided 95% binomial upper bound reported).
- `power`: a true drop 0.9 -> 0.5 with 5 runs per side, for 1, 3, 5 and 10 cases per suite.
- `table`: the fewest runs per case and side that reach 80% power, per effect and suite size.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections.abc import Iterator

from evolve_action.outcomes import RunResult, Side, Status
from evolve_action.significance import DEFAULT_ALPHA, Label
from evolve_action.stats import aggregate

SUITE = "evals/sim/evals.json"
MODEL = "openai/sim"


def simulate_pr(
    rng: random.Random, p_base: float, p_head: float, *, cases: int, runs: int
) -> list[RunResult]:
    out: list[RunResult] = []
    for side, p in ((Side.BASE, p_base), (Side.HEAD, p_head)):
        for case in range(cases):
            for repetition in range(1, runs + 1):
                passed = rng.random() < p
                out.append(
                    RunResult(
                        suite=SUITE,
                        case_id=f"case-{case}",
                        model=MODEL,
                        side=side,
                        repetition=repetition,
                        status=Status.PASS if passed else Status.FAIL,
                        score=1.0 if passed else 0.0,
                    )
                )
    return out


def flagged(runs: list[RunResult], alpha: float) -> tuple[bool, int]:
    """(the suite's group label is `regressed`, how many cases are labelled `regressed`)."""
    agg = aggregate(runs, alpha=alpha)
    group = any(g.label is Label.REGRESSED for g in agg.suites)
    return group, sum(1 for c in agg.cases if c.label is Label.REGRESSED)


def rate(
    rng: random.Random, p: float, q: float, *, cases: int, runs: int, prs: int, alpha: float
) -> tuple[float, float]:
    """(share of PRs whose suite is flagged, share of cases flagged on their own)."""
    groups = case_hits = 0
    for _ in range(prs):
        group, hits = flagged(simulate_pr(rng, p, q, cases=cases, runs=runs), alpha)
        groups += group
        case_hits += hits
    return groups / prs, case_hits / (prs * cases)


def upper_95(hits: int, n: int) -> float:
    """One-sided 95% Clopper-Pearson upper bound of a binomial proportion (by bisection)."""
    if hits >= n:
        return 1.0
    lo, hi = hits / n, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        # P(X <= hits | mid)
        cdf = math.fsum(math.comb(n, k) * mid**k * (1 - mid) ** (n - k) for k in range(hits + 1))
        lo, hi = (mid, hi) if cdf > 0.05 else (lo, mid)
    return hi


def part_aa(rng: random.Random, prs: int, alpha: float) -> Iterator[dict[str, object]]:
    for p in (0.5, 0.8, 0.95):
        for cases in (1, 5, 10):
            runs = 5
            group, case_rate = rate(rng, p, p, cases=cases, runs=runs, prs=prs, alpha=alpha)
            hits = round(group * prs)
            yield {
                "part": "aa",
                "p": p,
                "cases": cases,
                "runs_per_side": runs,
                "prs": prs,
                "flagged": hits,
                "flagged_share": group,
                "upper_95": round(upper_95(hits, prs), 4),
                "case_flag_share": round(case_rate, 4),
                "alpha": alpha,
                "ok": group <= alpha,
            }


def part_power(rng: random.Random, prs: int, alpha: float) -> Iterator[dict[str, object]]:
    for cases in (1, 3, 5, 10):
        group, case_rate = rate(rng, 0.9, 0.5, cases=cases, runs=5, prs=prs, alpha=alpha)
        yield {
            "part": "power",
            "p_base": 0.9,
            "p_head": 0.5,
            "cases": cases,
            "runs_per_side": 5,
            "prs": prs,
            "power": group,
            "case_power": round(case_rate, 4),
            "goal_met": group >= 0.8,
        }


def runs_needed(
    rng: random.Random, p: float, q: float, cases: int, prs: int, alpha: float, cap: int
) -> tuple[int | None, float]:
    """The fewest runs per case and side with simulated power >= 0.8 (None above `cap`)."""
    power = 0.0
    for runs in range(1, cap + 1):
        power, _ = rate(rng, p, q, cases=cases, runs=runs, prs=prs, alpha=alpha)
        if power >= 0.8:
            return runs, power
    return None, power


def part_table(rng: random.Random, prs: int, alpha: float) -> Iterator[dict[str, object]]:
    for p, q in ((0.9, 0.7), (0.9, 0.5), (0.8, 0.6)):
        for cases in (1, 3, 5, 10):
            needed, power = runs_needed(rng, p, q, cases, prs, alpha, cap=40)
            yield {
                "part": "table",
                "p_base": p,
                "p_head": q,
                "cases": cases,
                "runs_needed": needed,
                "power_there": round(power, 3),
                "prs_per_step": prs,
            }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prs", type=int, default=1000, help="simulated PRs per A/A and power row")
    ap.add_argument("--table-prs", type=int, default=400, help="simulated PRs per table step")
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--alpha", type=float, default=DEFAULT_ALPHA)
    ap.add_argument("--only", choices=("aa", "power", "table"))
    args = ap.parse_args()
    rng = random.Random(args.seed)
    parts = {
        "aa": lambda: part_aa(rng, args.prs, args.alpha),
        "power": lambda: part_power(rng, args.prs, args.alpha),
        "table": lambda: part_table(rng, args.table_prs, args.alpha),
    }
    for name, part in parts.items():
        if args.only and name != args.only:
            continue
        started = time.perf_counter()
        for row in part():
            print(json.dumps(row), flush=True)
        print(json.dumps({"part": name, "seconds": round(time.perf_counter() - started, 1)}))


if __name__ == "__main__":
    main()
