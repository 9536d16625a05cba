"""`dry-run`: the plan and its projected cost, printed, and no model called.

The job loads the eval files of both sides, plans the runs, fingerprints them, reads the
cache and projects the cost exactly as a real job does before its first call (`plan_and_run`
with `dry_run` set returns there), then prints the plan (runs per case, model and side) and
the projection to the log, and to the job summary inside Actions. Nothing is posted and no
results are written: a dry run decides nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TextIO

from evolve_action.pipeline.job import JobSetup
from evolve_action.pipeline.plan_and_run import plan_and_run
from evolve_action.pipeline.pricing import Prices
from evolve_action.pipeline.request import load_suites
from evolve_action.plan.planning import RunSpec
from evolve_action.plan.sides import Sides
from evolve_action.publish.actions_io import write_summary

MAX_ROWS = 200  # plan rows printed; the rest are counted


def plan_rows(runs: Sequence[RunSpec]) -> list[str]:
    """One row per case and model: its runs per side, in plan order."""
    cells: dict[tuple[str, str, str], dict[str, int]] = {}
    for spec in runs:
        sides = cells.setdefault((spec.suite.rel, spec.case.id, spec.model), {})
        sides[spec.side.value] = sides.get(spec.side.value, 0) + 1
    rows = [
        f"{rel} · {case} on {model}: " + ", ".join(f"{side} {n}" for side, n in sides.items())
        for (rel, case, model), sides in cells.items()
    ]
    if len(rows) > MAX_ROWS:
        rows = [*rows[:MAX_ROWS], f"… and {len(rows) - MAX_ROWS} more cases"]
    return rows


def dry_run(setup: JobSetup, sides: Sides, out: TextIO) -> int:
    """Plan, project, print; exit 0 (2 when no eval file could be loaded at all)."""
    settings = setup.settings
    head = load_suites(sides.head_root, settings, setup.config)
    base = load_suites(sides.base_root, settings, setup.config) if sides.base_root else None
    execution = asyncio.run(
        plan_and_run(setup.request, settings, sides, head, base, prices=Prices(setup.config.prices))
    )
    lines = [f"Dry run: {len(execution.plan.runs)} runs planned; nothing is called."]
    lines += [f"  {row}" for row in plan_rows(execution.plan.runs)]
    for skip in execution.plan.skipped:
        lines.append(f"  skipped: {skip.suite} {skip.case} on {skip.model}: {skip.reason}")
    if execution.costing is not None:
        lines += list(execution.costing.lines())
    for invalid in head.invalid:
        lines.append(f"  not loaded: {invalid.rel}")
    for line in lines:
        print(line, file=out)
    if setup.files.summary:
        body = "\n".join(["## evolve-action: dry run", "", "```", *lines, "```", ""])
        write_summary(setup.files.summary, body)
    return 0
