"""`evolve-action report`: one report from results already obtained.

Two uses: merging the results of matrix shards into one comment and check, and the second
stage of the fork-safe pattern, where a `workflow_run` job posts results that an unprivileged
`pull_request` job uploaded as an artifact. Those files are untrusted data: they are
validated against our schema, never executed, and the pull request they name is only
commented on when its current head is the commit GitHub says the artifact's run was for.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from evolve_action import __version__, stats
from evolve_action.annotations import annotate
from evolve_action.events import Event, EventError, from_environ
from evolve_action.github_api import Publisher, make_client
from evolve_action.publish import RunnerFiles, publish
from evolve_action.render.build import ReportInput, build_view
from evolve_action.render.comment import render
from evolve_action.results import (
    LoadedResults,
    ResultsData,
    ResultsLoadError,
    ResultsWriteError,
    load_results,
    merge,
    write_results,
)
from evolve_action.settings import (
    INPUTS,
    Settings,
    SettingsError,
    field_name,
    from_values,
    raw_inputs,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "results",
        nargs="*",
        type=Path,
        help="results directories (or results.json files) to merge; default: --results-dir",
    )
    inputs = parser.add_argument_group("action inputs (the same names as in action.yml)")
    for spec in INPUTS:
        inputs.add_argument(
            f"--{spec.name}", dest=field_name(spec.name), metavar="VALUE", default=None
        )


def _sources(paths: Sequence[Path]) -> list[Path]:
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(path.rglob("results.json"))
            out.extend(found or [path / "results.json"])
        else:
            out.append(path)
    return out


def load_all_results(paths: Sequence[Path]) -> list[LoadedResults]:
    return [load_results(p) for p in _sources(paths)]


def _first(docs: Sequence[LoadedResults], key: str) -> Any:
    for loaded in docs:
        value = (loaded.document.get("settings") or {}).get(key)
        if value:
            return value
    return None


def _confinement(docs: Sequence[LoadedResults]) -> str:
    """How the merged jobs confined commands; shards that differ are all named."""
    said = [(d.document.get("settings") or {}).get("confinement") for d in docs]
    return "; ".join(dict.fromkeys(s for s in said if isinstance(s, str) and s))


def build_report(
    docs: Sequence[LoadedResults], settings: Settings, event: Event, head_sha: str
) -> tuple[ReportInput, ResultsData]:
    runs, suites = merge(docs)
    confinement = _confinement(docs)
    aggregate = stats.aggregate(runs, suites, alpha=settings.alpha)
    base = _first(docs, "base_sha")
    has_base = any((d.document.get("settings") or {}).get("base_sha") is not None for d in docs)
    report = ReportInput(
        aggregate=aggregate,
        runs=runs,
        event=event,
        settings=settings,
        head_sha=head_sha,
        base_sha=str(base or "") if has_base else None,
        head_suites=suites,
        version=__version__,
        confinement=confinement,
    )
    data = ResultsData(
        runs=runs,
        aggregate=aggregate,
        suites=suites,
        judge_model=_first(docs, "judge_model"),
        settings={
            "head_sha": head_sha,
            "base_sha": base if has_base else None,
            "merged_from": len(docs),
            "confinement": confinement,
        },
        generated_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    )
    return report, data


def report_in_actions(
    settings: Settings,
    event: Event,
    publisher: Publisher | None,
    files: RunnerFiles,
    stream: TextIO,
    paths: Sequence[Path] = (),
) -> int:
    try:
        docs = load_all_results(paths or [settings.results_dir])
    except ResultsLoadError as exc:
        print(annotate("error", str(exc), title="evolve: cannot read results"), file=stream)
        return 2
    head = event.head_sha or str(_first(docs, "head_sha") or "")
    claimed = _first(docs, "pr_number")
    if event.name == "workflow_run" and event.pr_number is None and isinstance(claimed, int):
        # The artifact says which PR; believe it only if that PR's head is the trusted sha.
        if publisher is not None and publisher.pull_head_sha(claimed) == event.head_sha:
            event = replace(event, pr_number=claimed)
        else:
            msg = f"results name PR #{claimed}, whose head is not {event.head_sha[:7]}; not posting"
            print(annotate("warning", msg, title="evolve: PR not confirmed"), file=stream)
    report, data = build_report(docs, settings, event, head)
    try:
        write_results(settings.results_dir, data)
    except ResultsWriteError as exc:
        print(annotate("error", str(exc), title="evolve: cannot write results"), file=stream)
        return 2
    published = publish(report, publisher=publisher, files=files, stream=stream)
    return published.exit_code


def execute(args: argparse.Namespace) -> int:
    environ = dict(os.environ)
    values = {
        spec.name: getattr(args, field_name(spec.name))
        for spec in INPUTS
        if getattr(args, field_name(spec.name)) is not None
    }
    if environ.get("GITHUB_ACTIONS") == "true":
        values = raw_inputs(environ) | values
    try:
        settings = from_values(values)
    except SettingsError as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 2
    paths = args.results or [settings.results_dir]
    if environ.get("GITHUB_ACTIONS") == "true":
        try:
            event = from_environ(environ)
        except EventError as exc:
            print(f"evolve-action: {exc}", file=sys.stderr)
            return 2
        publisher = None
        if settings.github_token and event.repo:
            client = make_client(settings.github_token, api_url=event.api_url)
            publisher = Publisher(client, event.repo)
        files = RunnerFiles(environ.get("GITHUB_OUTPUT"), environ.get("GITHUB_STEP_SUMMARY"))
        return report_in_actions(settings, event, publisher, files, sys.stdout, args.results)
    try:
        docs = load_all_results(paths)
    except ResultsLoadError as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 2
    report, _ = build_report(
        docs, settings, Event(name="local"), str(_first(docs, "head_sha") or "")
    )
    print(render(build_view(report)))
    return report.decided_gate().exit_code
