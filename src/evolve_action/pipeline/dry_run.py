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

from evolve_action.model.evals import LoadResult, Severity
from evolve_action.pipeline.job import JobSetup
from evolve_action.pipeline.plan_and_run import plan_and_run
from evolve_action.pipeline.pricing import Prices
from evolve_action.pipeline.request import load_suites
from evolve_action.plan.planning import RunSpec
from evolve_action.plan.sides import Sides
from evolve_action.publish.actions_io import write_summary
from evolve_action.util.text import plural

MAX_ROWS = 200  # plan rows printed; the rest are counted
MAX_REASONS = 3  # errors printed per file not loaded


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
    """Plan, project, print; exit 0, or 1 when an eval file could not be loaded (as the
    real job's check would fail), each such file printed with why."""
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
    lines += not_loaded(head.invalid)
    for line in lines:
        print(line, file=out)
    if setup.files.summary:
        body = "\n".join(["## evolve-action: dry run", "", "```", *lines, "```", ""])
        write_summary(setup.files.summary, body)
    # Invalid eval files fail a real job's check; the dry run says so by its exit code too.
    return 1 if any(not r.ok for r in head.invalid) else 0


def not_loaded(invalid: Sequence[LoadResult]) -> list[str]:
    """Each eval file that was not loaded, with why: its first errors at file:line, and how
    many more (`evolve-action validate` lists them all)."""
    lines = []
    for result in invalid:
        errors = [p for p in result.problems if p.severity is Severity.ERROR]
        lines.append(f"  not loaded: {result.rel} ({plural(len(errors), 'error')}):")
        lines += [f"    {p.render()}" for p in errors[:MAX_REASONS]]
        if len(errors) > MAX_REASONS:
            more = len(errors) - MAX_REASONS
            lines.append(f"    … and {more} more; `evolve-action validate {result.rel}` lists them")
    return lines
