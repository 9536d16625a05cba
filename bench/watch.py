"""Watch's two error rates, simulated: false alarms when the models did not change (A/A), and
power when one case fell from 0.9 to 0.5, over K cases × M models × N runs (bench/verdict.py's
grid and rates).

One simulated watch draws a recorded run (the history's last line) and today's run from each
cell's pass probability, writes the recorded one as a history `Record`, and hands today's
counts to `watch_compare.compare`: the baseline look-up and the pull request's verdict, as a
watch runs them. A watch *alarms* when a skill is flagged, which is when it opens an issue.

    .venv/bin/python -m bench.watch                        # the grid, 300 watches a config
    .venv/bin/python -m bench.watch --watches 1000 --only aa

Null scenarios: `mixed` (rates uniform on [0, 1]), `half` (0.5), `high` (uniform on
[0.7, 1]). The drop: case 0 goes 0.9 → 0.5 on every model, the others mixed. The last line is
JSON: the worst A/A rate with a one-sided 95% upper bound, and the power per (K, M, N).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import zlib

from bench.verdict import KS, MS, NS, counts, rates
from evolve_action.pipeline.watch_compare import compare
from evolve_action.publish.history import Counts, Record
from evolve_action.verdict.decide import Cell, CellKey

NULLS = ("mixed", "half", "high")
DROP = "0.9->0.5"
POWER_NS = (*NS, 20)  # power also at 20 runs: how many a watch needs to see this drop
FP = "0123456789abcdef"


def one_watch(cells: dict[CellKey, Cell], alpha: float) -> bool:
    """Did this watch flag a skill? The recorded run is the base side of `cells`."""
    recorded = Record(
        "2026-01-01T06:00:00Z", "a" * 40, "schedule",
        {k: Counts(FP, c.base_passed, c.base_failed) for k, c in cells.items()},
    )  # fmt: skip
    today = {k: Counts(FP, c.head_passed, c.head_failed) for k, c in cells.items()}
    return bool(compare([recorded], today, alpha).regressed_suites)


def rate(
    scenario: str, k: int, m: int, n: int, watches: int, alpha: float, salt: str = ""
) -> float:
    rng = random.Random(zlib.crc32(f"watch/{scenario}/{k}/{m}/{n}{salt}".encode()))
    hits = sum(one_watch(counts(rates(scenario, k, m, rng), n, rng), alpha) for _ in range(watches))
    return hits / watches


def upper95(rate_: float, n: int) -> float:
    """One-sided 95% Wilson upper bound of a rate observed over n watches."""
    z = 1.645
    centre = rate_ + z * z / (2 * n)
    spread = z * math.sqrt(rate_ * (1 - rate_) / n + z * z / (4 * n * n))
    return (centre + spread) / (1 + z * z / n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watches", type=int, default=300)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--only", choices=("aa", "power"), default=None)
    parser.add_argument(
        "--confirm", type=int, default=0, metavar="WATCHES",
        help="re-estimate the three worst A/A configurations on fresh watches",
    )  # fmt: skip
    parser.add_argument(
        "--just", action="append", default=[], metavar="SCENARIO/K/M/N",
        help="only these configurations (repeatable), e.g. mixed/100/1/5",
    )  # fmt: skip
    args = parser.parse_args()
    if args.just:
        for spec in args.just:
            scenario, k, m, n = spec.split("/")
            got = rate(scenario, int(k), int(m), int(n), args.watches, args.alpha, "again")
            up = upper95(got, args.watches)
            print(json.dumps({"config": spec, "watches": args.watches, "rate": got,
                              "upper95": round(up, 4)}), flush=True)  # fmt: skip
        return
    aa: dict[str, float] = {}
    power: dict[str, float] = {}
    for k in KS:
        for m in MS:
            for n in POWER_NS:
                tag = f"K={k} M={m} N={n}"
                if args.only != "power" and n in NS:
                    for null in NULLS:
                        aa[f"{null} {tag}"] = rate(null, k, m, n, args.watches, args.alpha)
                if args.only != "aa":
                    power[tag] = rate(DROP, k, m, n, args.watches, args.alpha)
                got = [f"{v:.3f}" for key, v in aa.items() if key.endswith(tag)]
                shown = f" power {power[tag]:.3f}" if tag in power else ""
                print(f"{tag}: A/A {' '.join(got)}{shown}", flush=True)
    out: dict[str, object] = {"watches": args.watches, "alpha": args.alpha}
    if aa:
        worst = max(aa, key=lambda key: aa[key])
        out["worst_aa"] = {"config": worst, "rate": aa[worst],
                           "upper95": round(upper95(aa[worst], args.watches), 4)}  # fmt: skip
        out["mean_aa"] = round(sum(aa.values()) / len(aa), 4)
    if aa and args.confirm:
        confirmed = {}
        for key in sorted(aa, key=lambda key: -aa[key])[:3]:
            null, *dims = key.split()
            k, m, n = (int(d.split("=")[1]) for d in dims)
            got = rate(null, k, m, n, args.confirm, args.alpha, "again")
            confirmed[key] = {"rate": got, "upper95": round(upper95(got, args.confirm), 4)}
        out["confirmed"] = confirmed
    if power:
        out["power_0.9->0.5"] = power
        out["mean_power"] = round(sum(power.values()) / len(power), 4)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
