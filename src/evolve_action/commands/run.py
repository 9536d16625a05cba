"""`evolve-action run`: the whole job. Every action input is also a flag of the same name.

Outside Actions, `--base none` runs every eval of the working tree once per model and run,
prints each run's outcome, and writes the results; nothing is posted anywhere.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from evolve_action import stats
from evolve_action.model import Severity
from evolve_action.outcomes import RunResult, Status
from evolve_action.results import ResultsData, ResultsWriteError, write_results
from evolve_action.settings import INPUTS, SettingsError, field_name

if TYPE_CHECKING:
    from evolve_action.model import Suite
    from evolve_action.pipeline import Execution
    from evolve_action.planning import RunSpec

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    inputs = parser.add_argument_group("action inputs (the same names as in action.yml)")
    for spec in INPUTS:
        if spec.secret and spec.name != "github-token":
            help_text = spec.description + " Prefer the environment variable."
        else:
            help_text = spec.description
        inputs.add_argument(
            f"--{spec.name}",
            dest=field_name(spec.name),
            metavar="VALUE",
            default=None,
            help=help_text,
        )
    local = parser.add_argument_group("local runs")
    local.add_argument(
        "--base",
        default="none",
        help="compare the working tree with the merge-base of REF and HEAD; `none` (the"
        " default) runs the working tree alone",
    )
    local.add_argument("--root", type=Path, default=Path(), help="repository root")
    local.add_argument("--record", type=Path, metavar="DIR", help="record provider exchanges")
    local.add_argument("--replay", type=Path, metavar="DIR", help="answer from recordings")
    local.add_argument("--keep-workspaces", action="store_true", help="keep run workspaces")


def execute(args: argparse.Namespace) -> int:
    # The SDKs take a second or more to import: only a run that needs them pays for it.
    from evolve_action.changes import GitError
    from evolve_action.pipeline import Request, effective_settings, load_suites, run_job
    from evolve_action.providers.setup import ModelChoiceError
    from evolve_action.sides import local_sides

    values = {
        spec.name: getattr(args, field_name(spec.name))
        for spec in INPUTS
        if getattr(args, field_name(spec.name)) is not None
    }
    root = args.root.resolve()
    if not root.is_dir():
        print(f"evolve-action: --root {args.root} is not a directory", file=sys.stderr)
        return 2
    request = Request(
        values=values,
        environ=dict(os.environ),
        root=root,
        record_dir=args.record,
        replay_dir=args.replay,
        keep_workspaces=args.keep_workspaces,
    )
    try:
        settings, config, config_problems = effective_settings(request)
    except SettingsError as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 2
    for problem in config_problems:
        print(problem.render(), file=sys.stderr)
    if any(p.severity is Severity.ERROR for p in config_problems):
        return 2
    try:
        sides = local_sides(root, args.base)
    except GitError as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 2
    out = sys.stdout
    try:
        loaded = load_suites(sides.head_root, settings, config)
        base = load_suites(sides.base_root, settings, config) if sides.base_root else None
        for invalid in loaded.invalid:
            for problem in invalid.problems:
                print(problem.render(), file=sys.stderr)
        execution = asyncio.run(
            run_job(request, settings, sides, loaded, base, on_done=lambda s, r: _line(out, s, r))
        )
    except ModelChoiceError as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 2
    finally:
        sides.close()
    code = _summary(out, execution.results, invalid=len(loaded.invalid))
    try:
        written = _write(execution, [*execution.head_suites, *execution.base_suites], root)
    except ResultsWriteError as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 2
    print(f"results: {written}", file=out)
    return code


def _write(execution: Execution, suites: list[Suite], root: Path) -> Path:
    settings = execution.settings
    aggregate = stats.aggregate(execution.results, suites, alpha=settings.alpha)
    data = ResultsData(
        runs=execution.results,
        aggregate=aggregate,
        suites=suites,
        judge_model=execution.judge_model,
        settings={"models": execution.models, "runs": settings.runs},
        generated_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        repo_root=root,
    )
    paths = write_results(settings.results_dir, data)
    return paths[-1]


def _line(out: TextIO, spec: RunSpec, result: RunResult) -> None:
    mark = {Status.PASS: "PASS ", Status.FAIL: "FAIL ", Status.ERROR: "ERROR"}[result.status]
    where = f"{spec.suite.rel} {spec.case.id} {spec.model} #{spec.repetition}"
    detail = f"score {result.score:.2f}" if result.status is not Status.ERROR else result.error
    print(f"{mark} {where}  {detail}", file=out)
    for item in result.items:
        if item.passed is False:
            print(f"        ✗ {item.text}: {item.evidence}", file=out)
    out.flush()


def _summary(out: TextIO, results: list[RunResult], *, invalid: int) -> int:
    counts = {status: sum(r.status is status for r in results) for status in Status}
    cost = sum(r.transcript.usage.cost_usd or 0 for r in results) + sum(
        r.judge.usage.cost_usd or 0 for r in results
    )
    print(
        f"{len(results)} runs: {counts[Status.PASS]} passed, {counts[Status.FAIL]} failed,"
        f" {counts[Status.ERROR]} errors; {invalid} invalid eval files; ${cost:.4f}",
        file=out,
    )
    return 1 if invalid or counts[Status.FAIL] or counts[Status.ERROR] else 0
