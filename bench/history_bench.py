"""The history of record at its bound: 500 jobs, each with every cell of a large repository,
written through `history.append` (the 501st line trims the oldest), then read back.

    .venv/bin/python -m bench.history_bench                       # 100 cases × 2 models
    .venv/bin/python -m bench.history_bench --cases 200 --models 3 --repeat 7

Prints the file's size, the size of one line, the time to append the 501st job (which
rewrites the file), the time `history.read` takes to read it all back (best and median of
`--repeat`; a line's cells are parsed when first asked for), the time to answer one case's
"passed x of the last y runs", and the time to read it back with every cell of every line
parsed. The last line is JSON. Goal: reading 500 jobs back in under a second.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from evolve_action.publish import history
from evolve_action.publish.history import Counts, Record, case_history


def job(n: int, cases: int, models: int, rng: random.Random) -> Record:
    cells = {}
    for c in range(cases):
        for m in range(models):
            key = (f"evals/skill-{c // 10}/evals.json", f"case-{c}", f"anthropic/model-{m}")
            passed = sum(rng.random() < 0.8 for _ in range(5))
            cells[key] = Counts(f"{c:08x}{m:08x}", passed, 5 - passed, int(rng.random() < 0.02))
    snapshots = {f"anthropic/model-{m}": f"model-{m}-2026{n % 12 + 1:02d}01" for m in range(models)}
    return Record(
        at=f"2026-{n % 12 + 1:02d}-01T06:00:00Z", sha=f"{n:040x}", event="schedule", cells=cells,
        snapshots=snapshots, cli="evolve-action 1.0.0",
        prices=dict.fromkeys(snapshots, "$3 in, $15 out"), full=n % 4 == 0,
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--models", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(11)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        lines = [history.encode(job(n, args.cases, args.models, rng)) for n in range(500)]
        (root / history.FILE).write_text("\n".join(lines) + "\n")
        started = time.perf_counter()
        history.append(root, job(500, args.cases, args.models, rng))  # past the bound: trims
        append_s = time.perf_counter() - started
        size = (root / history.FILE).stat().st_size
        reads = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            records = history.read(root)
            reads.append(time.perf_counter() - started)
        started = time.perf_counter()
        found = case_history(records, "evals/skill-0/evals.json", "case-0", last=42)
        lookup_s = time.perf_counter() - started
        whole = []  # and every cell of every line, as nothing but a full scan needs
        for _ in range(args.repeat):
            started = time.perf_counter()
            cells = sum(len(r.cells) for r in history.read(root))
            whole.append(time.perf_counter() - started)
    assert len(records) == history.MAX_RECORDS and found is not None
    out = {
        "records": len(records),
        "cells_per_record": args.cases * args.models,
        "file_bytes": size,
        "line_bytes": size // len(records),
        "bound_bytes": history.MAX_BYTES,
        "append_501st_s": round(append_s, 3),
        "read_best_s": round(min(reads), 3),
        "read_median_s": round(statistics.median(reads), 3),
        "read_all_cells_best_s": round(min(whole), 3),
        "read_all_cells_median_s": round(statistics.median(whole), 3),
        "cells_read": cells,
        "case_history_s": round(lookup_s, 5),
        "case_history": found.words(),
    }
    print(
        f"{out['records']} jobs × {out['cells_per_record']} cells: {size / 1e6:.2f} MB"
        f" ({out['line_bytes']} B a line; bound {history.MAX_BYTES / 1e6:.1f} MB)"
    )
    print(
        f"append the 501st (rewrite): {append_s:.3f} s; read back: best {min(reads):.3f} s,"
        f" median {statistics.median(reads):.3f} s; one case's record: {lookup_s * 1e3:.2f} ms"
    )
    print(
        f"read back with every cell parsed: best {min(whole):.3f} s,"
        f" median {statistics.median(whole):.3f} s ({cells} cells)"
    )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
