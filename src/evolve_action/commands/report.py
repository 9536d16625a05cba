"""`evolve-action report`: one report from results already obtained.

Two uses: merging the results of matrix shards into one comment and check, and the second
stage of the fork-safe pattern, where a `workflow_run` job posts results that an unprivileged
`pull_request` job uploaded as an artifact. Those files are untrusted data: they are
validated against our schema, never executed, and the pull request they name is only
commented on when its current head is the commit GitHub says the artifact's run was for.

The settings come in the same layers as `run`'s (`layering`): the report job's inputs, then the
repository config in its checkout (for `workflow_run`, the default branch), then the verdict
settings the results record (what the shards decided with), then the defaults. So a sharded
job reaches the verdict an unsharded one would, with or without a checkout in its report job.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from evolve_action import __version__
from evolve_action.commands.report_shards import shard_notices, shortfall
from evolve_action.publish.actions_io import RunnerFiles
from evolve_action.publish.annotations import annotate
from evolve_action.publish.github_api import Publisher, make_client
from evolve_action.publish.post import publish
from evolve_action.publish.render.build import build_view
from evolve_action.publish.render.comment import render
from evolve_action.publish.render.report import ReportInput
from evolve_action.publish.results import (
    LoadedResults,
    ResultsData,
    ResultsLoadError,
    load_results,
    merge,
    write_results,
)
from evolve_action.settings.config import RepoConfig
from evolve_action.settings.events import Event, EventError, from_environ
from evolve_action.settings.inputs import (
    INPUTS,
    Settings,
    SettingsError,
    field_name,
    raw_inputs,
)
from evolve_action.settings.layering import layer, overridden, read_config, recorded_settings
from evolve_action.util.files import ResultsWriteError
from evolve_action.verdict import adaptive_verdict, stats
from evolve_action.verdict.gate import evaluate


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "results",
        nargs="*",
        type=Path,
        help="results directories (or results.json files) to merge; default: --results-dir",
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="the repository whose config (.evolve.yaml, ...) applies (default: the workspace"
        " inside Actions, else .)",
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
        value = loaded.settings.get(key)
        if value:
            return value
    return None


def decide_settings(
    values: Mapping[str, str], config: RepoConfig, docs: Sequence[LoadedResults]
) -> tuple[Settings, list[str]]:
    """The report's settings (`layering`), and warnings about the verdict settings the results
    record: when they disagree among themselves, or the report job's own ones replace them."""
    recorded, warnings = recorded_settings([(str(d.path), d.settings) for d in docs])
    settings = layer(values, config, recorded=recorded)
    return settings, warnings + overridden(settings, recorded)


def _models(docs: Sequence[LoadedResults]) -> list[str]:
    found: dict[str, None] = {}
    for doc in docs:
        models = doc.settings.get("models")
        if isinstance(models, list):
            found.update(dict.fromkeys(m for m in models if isinstance(m, str)))
    return list(found)


def _recorded(docs: Sequence[LoadedResults], key: str, kind: type) -> Any:
    """The first value of `key` of type `kind` the results record (they are untrusted)."""
    for doc in docs:
        value = doc.settings.get(key)
        if isinstance(value, kind) and not isinstance(value, bool):
            return value
    return None


def _confinement(docs: Sequence[LoadedResults]) -> str:
    """How the merged jobs confined commands; shards that differ are all named."""
    said = [d.settings.get("confinement") for d in docs]
    return "; ".join(dict.fromkeys(s for s in said if isinstance(s, str) and s))


def build_report(
    docs: Sequence[LoadedResults], settings: Settings, event: Event, head_sha: str
) -> tuple[ReportInput, ResultsData]:
    merged = merge(docs)
    runs = merged.runs
    bounds = adaptive_verdict.bounds_of(_first(docs, "adaptive"))
    decide_with = None  # `runs: auto` added runs because of what it saw: judged sequentially
    if bounds is not None:
        decide_with = adaptive_verdict.decider(runs, bounds)
    aggregate = stats.aggregate(runs, merged.suites, alpha=settings.alpha, decide_with=decide_with)
    confinement = _confinement(docs)
    base = _first(docs, "base_sha")
    has_base = any(d.settings.get("base_sha") is not None for d in docs)
    # The job's verdict, decided here once and carried by the report to every output.
    invalid = len(merged.invalid)
    missing = shortfall(docs)
    gate = evaluate(
        aggregate, settings, invalid_files=invalid, has_base=has_base, shortfall=missing
    )
    notices = shard_notices(docs)
    report = ReportInput(
        aggregate=aggregate,
        runs=runs,
        event=event,
        settings=settings,
        head_sha=head_sha,
        base_sha=str(base or "") if has_base else None,
        head_suites=merged.head_suites,
        base_suites=merged.base_suites,
        invalid=merged.invalid,
        skipped=merged.skipped,
        notices=notices,
        version=__version__,
        gate=gate,
        confinement=confinement,
    )
    data = ResultsData(
        runs=runs,
        aggregate=aggregate,
        suites=merged.suites,
        judge_model=next(
            (j for d in docs if isinstance(j := d.document["judge_model"], str)), None
        ),
        settings={
            "models": _models(docs),
            "runs": _recorded(docs, "runs", int),
            "head_sha": head_sha,
            "base_sha": base if has_base else None,
            "pr_number": event.pr_number,
            "event": _recorded(docs, "event", str) or event.name,
            "incomplete": bool(notices) or missing.incomplete,
            "planned_runs": missing.planned,
            "stopped_by": None,  # not this job: a stopped shard is named in incomplete_because
            "incomplete_because": list(missing.cut),
            "alpha": settings.alpha,
            "fail_on_regression": settings.fail_on_regression,
            "min_pass_rate": settings.min_pass_rate,
            "merged_from": len(docs),
            **({"adaptive": _first(docs, "adaptive")} if bounds is not None else {}),
            "confinement": confinement,
        },
        generated_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        invalid=merged.invalid,
        skipped=merged.skipped,
    )
    return report, data


def report_in_actions(
    values: Mapping[str, str],
    config: RepoConfig,
    event: Event,
    publisher: Publisher | None,
    files: RunnerFiles,
    stream: TextIO,
    paths: Sequence[Path] = (),
) -> int:
    """Merge, decide, write and publish. `values` are the raw inputs, `config` the repository
    config of the report job's own checkout (`layering` says which wins)."""
    try:
        settings = layer(values, config)
        docs = load_all_results(paths or [settings.results_dir])
    except SettingsError as exc:
        print(annotate("error", str(exc), title="evolve: bad input"), file=stream)
        return 2
    except ResultsLoadError as exc:
        print(annotate("error", str(exc), title="evolve: cannot read results"), file=stream)
        return 2
    settings, warnings = decide_settings(values, config, docs)
    for warning in warnings:
        print(annotate("warning", warning, title="evolve: settings"), file=stream)
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
    in_actions = environ.get("GITHUB_ACTIONS") == "true"
    values = raw_inputs(environ) if in_actions else {}
    values |= {
        spec.name: getattr(args, field_name(spec.name))
        for spec in INPUTS
        if getattr(args, field_name(spec.name)) is not None
    }
    default_root = environ.get("GITHUB_WORKSPACE", ".") if in_actions else "."
    loaded = read_config(values, (args.root or Path(default_root)).resolve())
    for problem in loaded.problems:
        print(problem.render(), file=sys.stderr)
    if loaded.errors:
        return 2
    try:
        settings = layer(values, loaded.config)
    except SettingsError as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 2
    if in_actions:
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
        return report_in_actions(
            values, loaded.config, event, publisher, files, sys.stdout, args.results
        )
    try:
        docs = load_all_results(args.results or [settings.results_dir])
    except ResultsLoadError as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 2
    settings, warnings = decide_settings(values, loaded.config, docs)
    for warning in warnings:
        print(f"evolve-action: warning: {warning}", file=sys.stderr)
    head = str(_first(docs, "head_sha") or "")
    report, _ = build_report(docs, settings, Event(name="local"), head)
    print(render(build_view(report)))
    return report.decided_gate().exit_code
