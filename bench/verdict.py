"""The verdict's two error rates, simulated: false alarms when nothing got worse (A/A) and
power when something did, over K cases × M models × N runs per side (issue 11).

One simulated pull request draws, for every (case, model), each base and head run's pass from
that cell's probability on that side, and hands the counts to `verdict.decide`, the function
`stats.aggregate` calls on the product's own runs (`--check` sends a few pull requests through
`stats.aggregate` too and stops if the two disagree). A PR is *flagged* when the verdict says
something regressed: exactly when the check fails with `fail-on-regression`.

    .venv/bin/python -m bench.verdict                    # the whole grid, 2 worker processes
    .venv/bin/python -m bench.verdict --prs 500 --power-prs 200 --only aa
    .venv/bin/python -m bench.verdict --only aa --nulls edited     # PRs that edit their checks

Cases are grouped ten to a suite (100 cases are 10 skills); rates are drawn on a 0.001 grid.
Null scenarios: `mixed` (each cell's rate uniform on [0, 1]), `half` (every rate 0.5), `high`
(uniform on [0.7, 1]),
`improving` (a fifth of the cases rise by 0.4, the rest mixed), `edited` (mixed, and about half
the cases have their checks edited without weakening them, some renamed too: base's ruler is
tested for those, through the product's own path; `bench/ruler_edits.py`, issue 26). Drop
scenarios, on a
background of mixed rates: `break` (case 0 goes 1 → 0 on every model), `mirror` (the same
while case 1 goes 0 → 1; K ≥ 5), `flip` (case 0 goes 1 → 0 on one model and 0 → 1 on another;
M ≥ 2), `0.8->0.2` and `0.9->0.5` (case 0, every model), `broad` (every case drops 10 points
from a rate uniform on [0.6, 1]). Each drop configuration is also decided by verdict.md's
reference rule (the same tests with the cases' share of alpha fixed at 0.8) on the same pull
requests. The three null configurations that came out worst are simulated again on fresh
pull requests (`--confirm-prs`): the largest of 144 noisy rates overstates its configuration.
The last line is JSON: `worst_aa` (the worst of those re-estimates, with a one-sided 95%
upper bound, and the first pass's maximum), mean `power` by scenario, `power_reference`.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
import zlib
from bisect import bisect
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cache
from itertools import accumulate

from bench.ruler_edits import decide_cells, edit, through_product
from evolve_action.model.outcomes import RunResult, Side, Status
from evolve_action.verdict.decide import Cell, CellKey, decide
from evolve_action.verdict.stats import aggregate

KS, MS, NS = (1, 5, 20, 100), (1, 2, 3), (3, 5, 10)
SUITE_SIZE = 10
NULLS = ("mixed", "half", "high", "improving", "edited")
DROPS = ("break", "mirror", "flip", "0.8->0.2", "0.9->0.5", "broad")
Rates = dict[CellKey, tuple[int, int]]  # (base, head) pass probability per cell, per mille


@cache
def _keys(k: int, m: int) -> tuple[CellKey, ...]:
    return tuple(
        (f"evals/skill-{case // SUITE_SIZE}/evals.json", f"case-{case}", f"model-{model}")
        for case in range(k)
        for model in range(m)
    )


def rates(scenario: str, k: int, m: int, rng: random.Random) -> Rates:
    """Each cell's (base, head) pass probability for one simulated pull request, on a 0.001
    grid (so each binomial law is computed once)."""
    keys = _keys(k, m)
    draw = rng.random

    def pick(low: int, high: int) -> int:  # randint's distribution, a third of its cost
        return low + int(draw() * (high - low + 1))

    if scenario == "half":
        return dict.fromkeys(keys, (500, 500))
    if scenario == "high":
        return {key: (p, p) for key in keys for p in [pick(700, 1000)]}
    if scenario == "broad":
        return {key: (p, p - 100) for key in keys for p in [pick(600, 1000)]}
    out = {key: (p, p) for key in keys for p in [pick(0, 1000)]}
    if scenario == "improving":
        for case in rng.sample(range(k), k // 5):
            for key in keys[case * m : (case + 1) * m]:
                p = pick(0, 600)
                out[key] = (p, p + 400)
    moved = {"break": (1000, 0), "mirror": (1000, 0), "0.8->0.2": (800, 200)}
    moved["0.9->0.5"] = (900, 500)
    if scenario in moved:
        for key in keys[:m]:
            out[key] = moved[scenario]
    if scenario == "mirror":
        for key in keys[m : 2 * m]:
            out[key] = (0, 1000)
    if scenario == "flip":
        for model, key in enumerate(keys[:m]):
            out[key] = ((1000, 0), (0, 1000))[model] if model < 2 else (1000, 1000)
    return out


@cache
def _binomial_cdf(n: int, per_mille: int) -> list[float]:
    p = per_mille / 1000
    return list(accumulate(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(n + 1)))


def counts(r: Rates, n: int, rng: random.Random) -> dict[CellKey, Cell]:
    """Passes per side: one uniform draw per side through the binomial law."""
    draw = rng.random
    out = {}
    for key, (p, q) in r.items():
        base = min(n, bisect(_binomial_cdf(n, p), draw()))
        head = min(n, bisect(_binomial_cdf(n, q), draw()))
        out[key] = Cell(base, n - base, head, n - head)
    return out


def applicable(scenario: str, k: int, m: int) -> bool:
    return not (scenario == "mirror" and k < 5) and not (scenario == "flip" and m < 2)


@dataclass(frozen=True)
class Config:
    scenario: str
    k: int
    m: int
    n: int
    prs: int
    alpha: float
    seed: int
    check: int  # of these PRs, how many also go through `stats.aggregate`
    reference: bool = False  # also decide by the reference rule (the cases' share fixed at 0.8)


def simulate(c: Config) -> dict[str, object]:
    tag = f"{c.scenario}/{c.k}/{c.m}/{c.n}/{c.seed}".encode()
    rng = random.Random(zlib.crc32(tag))
    flagged = by_reference = 0
    started = time.perf_counter()
    for i in range(c.prs):
        cells = counts(rates(c.scenario, c.k, c.m, rng), c.n, rng)
        edited = edit(cells, rng) if c.scenario == "edited" else None
        if edited is not None:
            cells = decide_cells(edited)
        verdict = decide(cells, c.alpha, detail=False)
        hit = verdict.regressed
        if i < c.check:
            if edited is not None:
                through = through_product(edited, c.alpha)
            else:
                through = aggregate(runs_of(cells), alpha=c.alpha).verdict.regressed
            if through != hit:
                raise SystemExit(f"aggregate and decide disagree on {c} (pr {i})")
        flagged += hit
        if c.reference:  # the same decision whenever the cases' share was 0.8 already
            same = verdict.case_share == 0.8
            by_reference += (
                hit if same else decide(cells, c.alpha, detail=False, case_share=0.8).regressed
            )
    return {
        "scenario": c.scenario,
        "k": c.k,
        "m": c.m,
        "n": c.n,
        "prs": c.prs,
        "flagged": flagged,
        "rate": flagged / c.prs,
        "reference_rate": by_reference / c.prs if c.reference else None,
        "seconds": round(time.perf_counter() - started, 2),
    }


def runs_of(
    cells: dict[CellKey, Cell], sides: tuple[Side, Side] = (Side.BASE, Side.HEAD)
) -> list[RunResult]:
    """The runs those counts stand for, as the product records them: a cell's base counts on
    `sides[0]`, its head counts on `sides[1]` (the lift's frame: head, no skill)."""
    out = []
    for (suite, case, model), c in cells.items():
        for side, passed, failed in (
            (sides[0], c.base_passed, c.base_failed),
            (sides[1], c.head_passed, c.head_failed),
        ):
            statuses = [Status.PASS] * passed + [Status.FAIL] * failed
            out += [
                RunResult(suite, case, model, side, i + 1, s, float(s is Status.PASS))
                for i, s in enumerate(statuses)
            ]
    return out


def _log_binomial(n: int, j: int, p: float) -> float:
    """log P(Bin(n, p) = j), without the overflow of C(n, j) for thousands of trials."""
    log_comb = math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1)
    return log_comb + j * math.log(p) + (n - j) * math.log1p(-p)


def upper_95(hits: int, n: int) -> float:
    """One-sided 95% Clopper–Pearson upper bound of a binomial proportion (bisection)."""
    if hits >= n:
        return 1.0
    lo, hi = hits / n, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        cdf = math.fsum(math.exp(_log_binomial(n, j, mid)) for j in range(hits + 1))
        lo, hi = (mid, hi) if cdf > 0.05 else (lo, mid)
    return hi


def grid(
    scenarios: tuple[str, ...], prs: int, args: argparse.Namespace, *, reference: bool = False
) -> list[Config]:
    out = [
        Config(s, k, m, n, prs, args.alpha, args.seed, args.check, reference)
        for s in scenarios
        for k in KS
        for m in MS
        for n in NS
        if applicable(s, k, m)
    ]
    # The slowest first, so the two workers finish together.
    return sorted(out, key=lambda c: -c.k * (c.m * c.n) ** 2)


def table(
    rows: list[dict[str, object]], title: str, cell: Callable[[dict[str, object]], str]
) -> None:
    print(f"\n{title}")
    head = "| scenario | K | " + " | ".join(f"M={m} N={n}" for m in MS for n in NS) + " |"
    print(head)
    print("|---|--:|" + "--:|" * (len(MS) * len(NS)))
    found = {(r["scenario"], r["k"], r["m"], r["n"]): r for r in rows}
    for s in dict.fromkeys(r["scenario"] for r in rows):
        for k in KS:
            cells = [found.get((s, k, m, n)) for m in MS for n in NS]
            if any(cells):
                shown = [cell(c) if c else "—" for c in cells]
                print(f"| {s} | {k} | " + " | ".join(shown) + " |")


def confirm(
    pool: ProcessPoolExecutor, null: list[dict[str, object]], args: argparse.Namespace
) -> list[dict[str, object]]:
    """The three configurations that looked worst, again on fresh pull requests: the largest
    of 144 noisy rates overstates its own configuration, a second sample does not."""
    if not null or not args.confirm_prs:
        return []
    top = sorted(null, key=lambda r: -float(r["rate"]))[:3]
    half = args.confirm_prs // 2
    jobs = [
        Config(str(r["scenario"]), int(r["k"]), int(r["m"]), int(r["n"]), half, args.alpha,
               args.seed + part, 0)
        for r in top
        for part in (1, 2)
    ]  # fmt: skip
    done = list(pool.map(simulate, jobs))
    out = []
    for a, b in zip(done[::2], done[1::2], strict=True):
        flagged, prs = int(a["flagged"]) + int(b["flagged"]), int(a["prs"]) + int(b["prs"])
        out.append({**a, "flagged": flagged, "prs": prs, "rate": flagged / prs})
    return out


def mean_power(rows: list[dict[str, object]], field: str) -> dict[str, float]:
    """Mean over the scenario's configurations (those it applies to)."""
    out = {}
    for s in DROPS:
        rates = [float(str(r[field])) for r in rows if r["scenario"] == s]
        if rates:
            out[s] = round(math.fsum(rates) / len(rates), 3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prs", type=int, default=2000, help="simulated PRs per null configuration")
    ap.add_argument("--power-prs", type=int, default=400, help="per drop configuration")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--check", type=int, default=1, help="PRs per configuration also aggregated")
    ap.add_argument(
        "--no-reference", action="store_true", help="skip the reference rule's power (0.8 fixed)"
    )
    ap.add_argument(
        "--confirm-prs", type=int, default=6000, help="fresh PRs for the 3 worst null configs"
    )
    ap.add_argument("--only", choices=("aa", "power"))
    ap.add_argument("--nulls", nargs="+", choices=NULLS, default=NULLS, help="A/A scenarios")
    args = ap.parse_args()
    configs = []
    if args.only != "power":
        configs += grid(tuple(args.nulls), args.prs, args)
    if args.only != "aa":
        configs += grid(DROPS, args.power_prs, args, reference=not args.no_reference)
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        rows = list(pool.map(simulate, configs))
        null = [r for r in rows if r["scenario"] in NULLS]
        drop = [r for r in rows if r["scenario"] in DROPS]
        confirmed = confirm(pool, null, args)
    pct = lambda r: f"{100 * float(r['rate']):.1f}%"  # noqa: E731
    if null:
        table(null, f"A/A: share of PRs flagged ({args.prs} PRs each, alpha {args.alpha})", pct)
        if confirmed:
            print(f"\nThe 3 worst null configurations again, on {confirmed[0]['prs']} fresh PRs:")
        for r in confirmed:
            bound = upper_95(int(r["flagged"]), int(r["prs"]))
            print(f"- {r['scenario']} K={r['k']} M={r['m']} N={r['n']}: {pct(r)}"
                  f" (95% upper bound {100 * bound:.1f}%)")  # fmt: skip
    if drop:
        table(drop, f"Power: share of PRs flagged ({args.power_prs} PRs each)", pct)
        if not args.no_reference:
            mine, ref = mean_power(drop, "rate"), mean_power(drop, "reference_rate")
            print("\nMean power over the configurations: this rule / the reference rule")
            for s in mine:
                print(f"- {s}: {100 * mine[s]:.1f}% / {100 * ref[s]:.1f}%")
    summary: dict[str, object] = {
        "alpha": args.alpha,
        "seconds": round(time.perf_counter() - started),
    }
    if null:
        first = max(null, key=lambda r: float(r["rate"]))
        worst = max(confirmed or [first], key=lambda r: float(r["rate"]))
        summary["worst_aa"] = {
            "rate": worst["rate"],
            "upper_95": round(upper_95(int(worst["flagged"]), int(worst["prs"])), 4),
            "config": {k: worst[k] for k in ("scenario", "k", "m", "n", "prs")},
            "first_pass": {k: first[k] for k in ("rate", "scenario", "k", "m", "n", "prs")},
        }
    if drop:
        summary["power"] = mean_power(drop, "rate")
        if not args.no_reference:
            summary["power_reference"] = mean_power(drop, "reference_rate")
        summary["k20_m2_n5"] = {
            str(r["scenario"]): r["rate"] for r in drop if (r["k"], r["m"], r["n"]) == (20, 2, 5)
        }
    print()
    print(json.dumps(summary), flush=True)
    sys.exit(0)


if __name__ == "__main__":
    main()
