"""`runs: auto` against fixed N = 3, 5, 10: runs spent, A/A false alarms, power (issue 15).

Simulated on pass counts alone, as `bench/verdict.py` does: K cases in
max(1, K // 10) suites, M models; every run of a (case, model) passes with its side's
probability, independently. The adaptive column drives the product's own planner
(`adaptive.plan_wave`) and verdict (`sequential.decide`) wave by wave; the fixed columns
judge N runs per side with the reference rule of verdict.md (`bench.fixed_reference`).

    .venv/bin/python -m bench.adaptive                 # tables, then one JSON line
    .venv/bin/python -m bench.adaptive --prs 2000 --jobs 2

`column(design, scenario, cases, models, prs=..., seed=...)` is the unit the tables are made
of (mean runs, share of PRs flagged, share naming the moved case), so another bench can put
these columns next to its own.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass

from bench.fixed_reference import flagged as reference_flagged
from evolve_action.verdict.adaptive import Design, plan_wave
from evolve_action.verdict.sequential import CellKey, Tally, decide

ALPHA = 0.05
Rates = dict[CellKey, tuple[float, float]]  # (base, head) pass probability
Builder = Callable[[random.Random, int, int], Rates]
AUTO = "auto"


# --- scenarios --------------------------------------------------------------------------------


def _keys(cases: int, models: int) -> list[CellKey]:
    suites = max(1, cases // 10)
    return [(f"s{c % suites}", f"c{c}", f"m{m}") for c in range(cases) for m in range(models)]


def _background(kind: str) -> Callable[[random.Random], float]:
    def realistic(rng: random.Random) -> float:
        u = rng.random()  # 80% of cases stable: 60% always pass, 20% always fail
        return 1.0 if u < 0.6 else 0.0 if u < 0.8 else rng.uniform(0.1, 0.9)

    return {
        "mixed": lambda rng: rng.random(),
        "half": lambda rng: 0.5,
        "high": lambda rng: rng.uniform(0.7, 1.0),
        "realistic": realistic,
    }[kind]


def null(kind: str, improving: float = 0.0) -> Builder:
    draw = _background(kind)

    def build(rng: random.Random, cases: int, models: int) -> Rates:
        rates: Rates = {}
        rising = {f"c{c}" for c in range(cases) if rng.random() < improving}
        for key in _keys(cases, models):
            p = draw(rng)
            rates[key] = (p * 0.5, min(1.0, p * 0.5 + 0.5)) if key[1] in rising else (p, p)
        return rates

    return build


def drop(
    base: float, head: float, background: str = "mixed", *, mirror: bool = False, flip: bool = False
) -> Builder:
    """Case c0 moves base → head on every model (on model 0 only, rising elsewhere, `flip`);
    `mirror`: case c1 rises as much at the same time."""
    draw = _background(background)

    def build(rng: random.Random, cases: int, models: int) -> Rates:
        rates: Rates = {}
        for key in _keys(cases, models):
            p = draw(rng)
            rates[key] = (p, p)
        for key in rates:
            if key[1] == "c0":
                rising = flip and key[2] != "m0"
                rates[key] = (head, base) if rising else (base, head)
            elif mirror and key[1] == "c1":
                rates[key] = (head, base)
        return rates

    return build


def broad(points: float = 0.1) -> Builder:
    """Every case of the PR drops by `points` from a base rate in [0.6, 1.0]."""

    def build(rng: random.Random, cases: int, models: int) -> Rates:
        out: Rates = {}
        for key in _keys(cases, models):
            p = rng.uniform(0.6, 1.0)
            out[key] = (p, max(0.0, p - points))
        return out

    return build


NULLS: dict[str, Builder] = {
    "mixed": null("mixed"),
    "all 0.5": null("half"),
    "all 0.7-1.0": null("high"),
    "20% improving": null("mixed", improving=0.2),
    "realistic": null("realistic"),
}
DROPS: dict[str, Builder] = {
    "1.0->0.0": drop(1.0, 0.0),
    "1.0->0.0 + mirror rise": drop(1.0, 0.0, mirror=True),
    "flip across models": drop(1.0, 0.0, flip=True),
    "0.8->0.2": drop(0.8, 0.2),
    "0.9->0.5": drop(0.9, 0.5),
    "broad -10 pts": broad(),
    "0.8->0.2 realistic": drop(0.8, 0.2, "realistic"),
    "1.0->0.0 realistic": drop(1.0, 0.0, "realistic"),
}


# --- one simulated PR -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Result:
    runs: int  # both sides, every cell
    flagged: bool  # the check would fail
    named: bool  # case c0 is named regressed


def _draw(rng: random.Random, n: int, p: float) -> int:
    return sum(rng.random() < p for _ in range(n))


def run_auto(rates: Rates, rng: random.Random, design: Design) -> Result:
    cells: dict[CellKey, list[Tally]] = {}
    runs: dict[CellKey, int] = {}
    for key, (base, head) in rates.items():
        n = design.start
        cells[key] = [Tally(_draw(rng, n, base), n, _draw(rng, n, head), n)]
        runs[key] = n
    while True:
        frozen = {k: tuple(v) for k, v in cells.items()}
        verdict = decide(frozen, design.alpha, rises=False)
        wave = plan_wave(frozen, runs, design, verdict=verdict)
        if not wave.extend:
            break
        for ext in wave.extend:
            n = ext.target - ext.runs
            base, head = rates[ext.key]
            cells[ext.key].append(Tally(_draw(rng, n, base), n, _draw(rng, n, head), n))
            runs[ext.key] = ext.target
    named = ("s0", "c0") in verdict.regressed_cases
    return Result(2 * sum(runs.values()), verdict.fails, named)


def run_fixed(rates: Rates, rng: random.Random, n: int) -> Result:
    counts = {k: (_draw(rng, n, b), n, _draw(rng, n, h), n) for k, (b, h) in rates.items()}
    named, any_flag = reference_flagged(counts, ALPHA)
    return Result(2 * n * len(rates), any_flag, ("s0", "c0") in named)


# --- columns ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Column:
    design: str  # "auto" or "fixed N"
    scenario: str
    cases: int
    models: int
    prs: int
    mean_runs: float
    flagged: float  # share of PRs whose check fails (A/A: false alarms; drops: power)
    named: float  # share naming the moved case

    @property
    def upper(self) -> float:
        """One-sided 95% upper bound of `flagged` (Clopper–Pearson by bisection)."""
        return _upper(round(self.flagged * self.prs), self.prs)


def _upper(k: int, n: int, level: float = 0.05) -> float:
    if k >= n:
        return 1.0
    low, high = k / n, 1.0
    for _ in range(60):
        mid = (low + high) / 2
        tail = math.fsum(math.comb(n, i) * mid**i * (1 - mid) ** (n - i) for i in range(k + 1))
        low, high = (mid, high) if tail > level else (low, mid)
    return high


def column(
    design: str | int,
    scenario: str,
    cases: int,
    models: int,
    *,
    prs: int = 400,
    seed: int = 1,
    auto: Design | None = None,
) -> Column:
    """One cell of the tables: `design` is "auto" (with `auto`'s settings) or a fixed N."""
    build = {**NULLS, **DROPS}[scenario]
    rng = random.Random(f"{seed}|{scenario}|{cases}|{models}|{design}")
    plan = auto or Design(alpha=ALPHA)
    spent = hits = named = 0
    for _ in range(prs):
        rates = build(rng, cases, models)
        if design == AUTO:
            result = run_auto(rates, rng, plan)
        else:
            result = run_fixed(rates, rng, int(design))
        spent += result.runs
        hits += result.flagged
        named += result.named
    label = AUTO if design == AUTO else f"fixed {design}"
    return Column(label, scenario, cases, models, prs, spent / prs, hits / prs, named / prs)


def _column(args: tuple[object, ...]) -> Column:
    design, scenario, cases, models, prs, seed = args
    return column(design, scenario, cases, models, prs=prs, seed=seed)  # type: ignore[arg-type]


def fixed_runs_for(power: float, scenario: str, cases: int, models: int, *, prs: int,
                   seed: int, top: int = 30) -> int | None:  # fmt: skip
    """The fewest fixed runs per side whose reference-rule power reaches `power`."""
    for n in range(2, top + 1):
        if column(n, scenario, cases, models, prs=prs, seed=seed).flagged >= power:
            return n
    return None


# --- the report -------------------------------------------------------------------------------

DESIGNS: tuple[str | int, ...] = (AUTO, 3, 5, 10)
GRID = [(k, m) for k in (1, 5, 20, 100) for m in (1, 2, 3)]


def _table(title: str, columns: list[Column]) -> None:
    print(f"\n{title}")
    print(f"{'scenario':<26} {'K':>3} {'M':>2} " + "".join(f"{d!s:>22}" for d in DESIGNS))
    rows: dict[tuple[str, int, int], dict[str, Column]] = {}
    for c in columns:
        rows.setdefault((c.scenario, c.cases, c.models), {})[c.design] = c
    for (scenario, k, m), by in rows.items():
        parts = [
            f"{by[d].flagged:>8.1%} {by[d].mean_runs:>7.0f} runs  "
            for d in (AUTO, "fixed 3", "fixed 5", "fixed 10")
            if d in by
        ]
        print(f"{scenario:<26} {k:>3} {m:>2} " + "".join(parts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prs", type=int, default=200, help="simulated PRs per configuration")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="K = 20, M = 2 only")
    args = parser.parse_args()
    started = time.monotonic()
    grid = [(20, 2)] if args.quick else GRID
    work = [
        (d, s, k, m, args.prs, args.seed)
        for s in [*NULLS, *DROPS]
        for k, m in grid
        for d in DESIGNS
        if not (s == "flip across models" and m == 1)
    ]
    with ProcessPoolExecutor(args.jobs) as pool:
        columns = list(pool.map(_column, work, chunksize=1))
    _table("A/A: share of PRs flagged, mean runs", [c for c in columns if c.scenario in NULLS])
    _table("Power: share of PRs flagged, mean runs", [c for c in columns if c.scenario in DROPS])
    headline: dict[str, object] = {}
    for background in ("0.8->0.2", "0.8->0.2 realistic"):
        auto = next(c for c in columns if (c.design, c.scenario, c.cases, c.models)
                    == (AUTO, background, 20, 2))  # fmt: skip
        needed = fixed_runs_for(max(0.8, auto.flagged), background, 20, 2,
                                prs=args.prs, seed=args.seed)  # fmt: skip
        fixed_total = None if needed is None else 2 * needed * 20 * 2
        headline[background] = {
            "auto_power": auto.flagged,
            "auto_runs": auto.mean_runs,
            "fixed_runs_per_side_for_that_power": needed,
            "auto_share_of_fixed_runs": None if not fixed_total else auto.mean_runs / fixed_total,
        }
        print(f"\nlone {background}, K=20, M=2: auto {auto.flagged:.1%} power with "
              f"{auto.mean_runs:.0f} runs; fixed needs {needed} runs per side "
              f"({fixed_total} runs) for at least that power")  # fmt: skip
    nulls = [c for c in columns if c.scenario in NULLS]
    designs = ["auto", "fixed 3", "fixed 5", "fixed 10"]
    worst = {d: max((c for c in nulls if c.design == d), key=lambda c: c.flagged) for d in designs}
    summary = {
        "prs": args.prs,
        "worst_aa": {d: {**asdict(c), "upper": c.upper} for d, c in worst.items()},
        "power": {d: _power(columns, d) for d in designs},
        "mean_runs": {d: _runs(columns, d) for d in designs},
        "total_break_auto_vs_fixed": _breaks(columns),
        "headline": headline,
        "seconds": round(time.monotonic() - started, 1),
    }
    print(json.dumps(summary))


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


def _power(columns: list[Column], design: str) -> dict[str, float]:
    """Mean share flagged over the grid, per drop scenario."""
    return {
        s: _mean([c.flagged for c in columns if c.design == design and c.scenario == s])
        for s in DROPS
    }


def _runs(columns: list[Column], design: str) -> dict[str, float]:
    """Mean runs per PR over the grid, per scenario."""
    return {
        s: _mean([c.mean_runs for c in columns if c.design == design and c.scenario == s])
        for s in [*NULLS, *DROPS]
    }


def _breaks(columns: list[Column]) -> dict[str, object]:
    """Total breaks: configurations where auto flags less often than a fixed design."""
    behind = []
    for c in columns:
        if c.design != AUTO or not c.scenario.startswith("1.0->0.0"):
            continue
        for o in columns:
            same = (o.scenario, o.cases, o.models) == (c.scenario, c.cases, c.models)
            if same and o.design != AUTO and o.flagged > c.flagged:
                behind.append(f"{c.scenario} K={c.cases} M={c.models}: auto {c.flagged:.3f} "
                              f"< {o.design} {o.flagged:.3f}")  # fmt: skip
    return {"auto_behind": behind}


if __name__ == "__main__":
    main()
