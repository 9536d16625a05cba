"""The lift family's error rates, simulated: false "the skill helps" claims when the skill
has no effect, and power when it helps, over K cases × M models × N runs per arm (issue 25).

One simulated pull request draws, for every (case, model), each with-skill (head) and
no-skill run's pass from that cell's probability in that arm, and decides "the skill helps"
as the product does (`verdict.lift`): the regression rule, `verdict.decide`, on the swapped
frame (head's counts as base, the no-skill arm's as head), so a skill that helps is a drop.
A PR *claims* a lift when any case or skill is found to help. `--check` PRs per
configuration also go through `verdict.lift.measure` on runs, the function the report calls,
and the bench stops if the two disagree.

    .venv/bin/python -m bench.lift                    # the whole grid, 2 worker processes
    .venv/bin/python -m bench.lift --prs 500 --only null

Null scenarios (the skill helps nowhere): `mixed`, `half`, `high` as in `bench.verdict` (the
same rate with and without the skill), and `hurts` (a fifth of the cases do 0.4 better
without the skill, the rest mixed). Power scenarios, on a background of mixed rates: `solves`
(case 0 goes 0 → 1 with the skill, every model), `0.2->0.8` (case 0, every model) and
`broad` (every case gains 10 points from a rate uniform on [0, 0.4]). The three null
configurations that came out worst are simulated again on fresh pull requests
(`--confirm-prs`): the largest of 144 noisy rates overstates its configuration. The last line
is JSON: the worst re-estimate with its one-sided 95% upper bound (and the first pass's
maximum), and mean power by scenario.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from bench.verdict import KS, MS, NS, Rates, _keys, counts, runs_of, table, upper_95
from evolve_action.model.outcomes import Side
from evolve_action.verdict.decide import Cell, CellKey, decide
from evolve_action.verdict.lift import measure

NULLS = ("mixed", "half", "high", "hurts")
GAINS = ("solves", "0.2->0.8", "broad")


def rates(scenario: str, k: int, m: int, rng: random.Random) -> Rates:
    """Each cell's (with skill, without) pass probability, per mille: the swapped frame's
    (base, head), so a lift is a drop."""
    keys = _keys(k, m)
    draw = rng.random

    def pick(low: int, high: int) -> int:
        return low + int(draw() * (high - low + 1))

    if scenario == "half":
        return dict.fromkeys(keys, (500, 500))
    if scenario == "high":
        return {key: (p, p) for key in keys for p in [pick(700, 1000)]}
    if scenario == "broad":
        return {key: (p + 100, p) for key in keys for p in [pick(0, 400)]}
    out = {key: (p, p) for key in keys for p in [pick(0, 1000)]}
    if scenario == "hurts":
        for case in rng.sample(range(k), k // 5):
            for key in keys[case * m : (case + 1) * m]:
                p = pick(0, 600)
                out[key] = (p, p + 400)
    gains = {"solves": (1000, 0), "0.2->0.8": (800, 200)}
    if scenario in gains:
        for key in keys[:m]:
            out[key] = gains[scenario]
    return out


def claims(cells: dict[CellKey, Cell], alpha: float) -> bool:
    """ "The skill helps" somewhere: a regression in the swapped frame."""
    return decide(cells, alpha, detail=False).regressed


@dataclass(frozen=True)
class Config:
    scenario: str
    k: int
    m: int
    n: int
    prs: int
    alpha: float
    seed: int
    check: int


def simulate(c: Config) -> dict[str, object]:
    rng = random.Random(zlib.crc32(f"lift/{c.scenario}/{c.k}/{c.m}/{c.n}/{c.seed}".encode()))
    claimed = 0
    started = time.perf_counter()
    for i in range(c.prs):
        cells = counts(rates(c.scenario, c.k, c.m, rng), c.n, rng)
        hit = claims(cells, c.alpha)
        if i < c.check:
            lift = measure(runs_of(cells, (Side.HEAD, Side.NO_SKILL)), alpha=c.alpha)
            through = lift is not None and any(s.helps for s in lift.skills)
            if through != hit:
                raise SystemExit(f"verdict.lift and decide disagree on {c} (pr {i})")
        claimed += hit
    return {
        "scenario": c.scenario,
        "k": c.k,
        "m": c.m,
        "n": c.n,
        "prs": c.prs,
        "flagged": claimed,
        "rate": claimed / c.prs,
        "seconds": round(time.perf_counter() - started, 2),
    }


def grid(scenarios: tuple[str, ...], prs: int, args: argparse.Namespace) -> list[Config]:
    out = [
        Config(s, k, m, n, prs, args.alpha, args.seed, args.check)
        for s in scenarios
        for k in KS
        for m in MS
        for n in NS
    ]
    return sorted(out, key=lambda c: -c.k * (c.m * c.n) ** 2)  # the slowest first


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prs", type=int, default=2000, help="simulated PRs per null configuration")
    ap.add_argument("--power-prs", type=int, default=300, help="per power configuration")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=25)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--check", type=int, default=2, help="PRs per configuration also measured")
    ap.add_argument("--confirm-prs", type=int, default=4000, help="fresh PRs, 3 worst nulls")
    ap.add_argument("--only", choices=("null", "power"))
    args = ap.parse_args()
    configs = []
    if args.only != "power":
        configs += grid(NULLS, args.prs, args)
    if args.only != "null":
        configs += grid(GAINS, args.power_prs, args)
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        rows = list(pool.map(simulate, configs))
        null = [r for r in rows if r["scenario"] in NULLS]
        top = sorted(null, key=lambda r: -float(r["rate"]))[:3] if args.confirm_prs else []
        again = [
            Config(str(r["scenario"]), int(r["k"]), int(r["m"]), int(r["n"]), args.confirm_prs,
                   args.alpha, args.seed + 1, 0)
            for r in top
        ]  # fmt: skip
        confirmed = list(pool.map(simulate, again))
    gain = [r for r in rows if r["scenario"] in GAINS]
    pct = lambda r: f"{100 * float(r['rate']):.1f}%"  # noqa: E731
    summary: dict[str, object] = {
        "alpha": args.alpha,
        "seconds": round(time.perf_counter() - started),
    }
    if null:
        table(null, f"No effect: share of PRs claiming a lift ({args.prs} PRs each)", pct)
        first = max(null, key=lambda r: float(r["rate"]))
        for r in confirmed:
            bound = upper_95(int(r["flagged"]), int(r["prs"]))
            print(f"- again on {r['prs']} fresh PRs: {r['scenario']} K={r['k']} M={r['m']}"
                  f" N={r['n']}: {pct(r)} (95% upper bound {100 * bound:.1f}%)")  # fmt: skip
        worst = max(confirmed or [first], key=lambda r: float(r["rate"]))
        summary["worst_null"] = {
            "rate": worst["rate"],
            "upper_95": round(upper_95(int(worst["flagged"]), int(worst["prs"])), 4),
            "config": {k: worst[k] for k in ("scenario", "k", "m", "n", "prs")},
            "first_pass": {k: first[k] for k in ("rate", "scenario", "k", "m", "n", "prs")},
        }
    if gain:
        table(gain, f"Power: share of PRs finding the lift ({args.power_prs} PRs each)", pct)
        summary["power"] = {
            s: round(math.fsum(float(r["rate"]) for r in gain if r["scenario"] == s)
                     / sum(1 for r in gain if r["scenario"] == s), 3)
            for s in GAINS
        }  # fmt: skip
    print()
    print(json.dumps(summary), flush=True)
    sys.exit(0)


if __name__ == "__main__":
    main()
