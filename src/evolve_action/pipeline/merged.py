"""`report`'s pipeline: one report from results already obtained.

Two uses: merging the results of matrix shards into one comment and check, and the second
stage of the fork-safe pattern, where a `workflow_run` job posts results that an unprivileged
`pull_request` job uploaded as an artifact. Those files are untrusted data: they are
validated against our schema, never executed, and the pull request they name is only
commented on when its current head is the commit GitHub says the artifact's run was for.

The settings come in the same layers as `run`'s (`layering`): the report job's inputs, then the
repository config in its checkout (for `workflow_run`, the default branch), then the verdict
settings the results record (what the shards decided with), then the defaults. So a sharded
job reaches the verdict an unsharded one would, with or without a checkout in its report job;
and the report itself is made by the function `run` uses (`report_input.build`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from evolve_action.pipeline.report_input import Facts, Report, build
from evolve_action.pipeline.shards import shard_notices, shortfall
from evolve_action.publish import spend_history
from evolve_action.publish.actions_io import RunnerFiles
from evolve_action.publish.annotations import annotate
from evolve_action.publish.github_api import Publisher
from evolve_action.publish.post import publish
from evolve_action.publish.render.build.assemble import build_view
from evolve_action.publish.render.comment import render
from evolve_action.publish.results.load import (
    LoadedResults,
    Merged,
    ResultsLoadError,
    load_results,
    merge,
)
from evolve_action.publish.results.record import Adaptive, JobRecord
from evolve_action.publish.results.write import write_results
from evolve_action.publish.spend_history import PrSpend
from evolve_action.settings.config import RepoConfig
from evolve_action.settings.events import Event
from evolve_action.settings.inputs import CommentMode, Settings, SettingsError
from evolve_action.settings.layering import layer, overridden, recorded_settings
from evolve_action.util.files import ResultsWriteError


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


def decide_settings(
    values: Mapping[str, str], config: RepoConfig, docs: Sequence[LoadedResults]
) -> tuple[Settings, list[str]]:
    """The report's settings (`layering`), and warnings about the verdict settings the results
    record: when they disagree among themselves, or the report job's own ones replace them."""
    recorded, warnings = recorded_settings([(str(d.path), d.record.verdict_doc()) for d in docs])
    settings = layer(values, config, recorded=recorded)
    return settings, warnings + overridden(settings, recorded)


def _joined(said: Sequence[str]) -> str:
    """What the merged jobs said of themselves (confinement, harness); ones that differ are
    all named."""
    return "; ".join(dict.fromkeys(s for s in said if s))


def _adaptive(docs: Sequence[LoadedResults]) -> Adaptive | None:
    """`runs: auto` as the shards ran it: one design, the waves of the longest shard, every
    shard's cells (a shard's cells are its own cases: they do not overlap)."""
    recorded = [a for d in docs if (a := d.record.adaptive) is not None]
    if not recorded:
        return None
    first = recorded[0]
    cells = None
    if all(a.cells is not None for a in recorded):
        cells = tuple(dict.fromkeys(c for a in recorded for c in a.cells or ()))
    return Adaptive(first.start, first.max_runs, max(a.waves for a in recorded), cells)


def _projected(records: Sequence[JobRecord]) -> float | None:
    """The shards' projections added up; None unless every file records one."""
    found = [r.projected_usd for r in records]
    return None if not found or None in found else round(math.fsum(f or 0.0 for f in found), 6)


def _projected_range(records: Sequence[JobRecord]) -> tuple[float, float] | None:
    """The shards' ranges added up; None unless every file records one."""
    found = [r.projected_range for r in records]
    if not found or None in found:
        return None
    return (
        round(math.fsum(r[0] for r in found if r), 6),
        round(math.fsum(r[1] for r in found if r), 6),
    )


def facts_of(docs: Sequence[LoadedResults], merged: Merged, event: Event, head_sha: str) -> Facts:
    """What the results files record, as the facts `build` takes (untrusted: typed by the
    schema and the record, never their text beyond the known fields)."""
    records = [d.record for d in docs]
    has_base = any(r.base_sha is not None for r in records)
    base = next((r.base_sha for r in records if r.base_sha), "")
    models: dict[str, None] = {}
    for record in records:
        models.update(dict.fromkeys(record.models))
    return Facts(
        event=event,
        head_sha=head_sha,
        base_sha=base if has_base else None,
        head_suites=merged.head_suites,
        base_suites=merged.base_suites,
        invalid=merged.invalid,
        skipped=merged.skipped,
        adaptive=_adaptive(docs),
        shortfall=shortfall(docs),
        notices=shard_notices(docs),
        confinement=_joined([r.confinement for r in records]),
        harness=_joined([r.harness for r in records]),
        models=tuple(models),
        runs_setting=next((r.runs for r in records if r.runs is not None), None),
        event_name=next((r.event for r in records if r.event), ""),
        merged_from=len(docs),
        projected_usd=_projected(records),
        projected_range=_projected_range(records),
        prices_as_of=next((r.prices_as_of for r in records if r.prices_as_of), None),
        # Every shard classifies the same two trees alike: one list, repeated ones said once.
        case_diffs=tuple(dict.fromkeys(c.diff for r in records for c in r.case_changes)),
        judge_model=next(
            (j for d in docs if isinstance(j := d.document.get("judge_model"), str)), None
        ),
    )


def build_report(
    docs: Sequence[LoadedResults],
    settings: Settings,
    event: Event,
    head_sha: str,
    pr_spend_before: PrSpend | None = None,
) -> Report:
    """The merged report, by the function one job's report is made with. `pr_spend_before`:
    what earlier jobs on the PR paid, from our sticky comment (`spend_history`)."""
    merged = merge(docs)
    facts = replace(facts_of(docs, merged, event, head_sha), pr_spend_before=pr_spend_before)
    return build(settings, merged.runs, facts)


def _head(docs: Sequence[LoadedResults]) -> str:
    return next((d.record.head_sha for d in docs if d.record.head_sha), "")


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
    head = event.head_sha or _head(docs)
    claimed = next((d.record.pr_number for d in docs if d.record.pr_number), None)
    if event.name == "workflow_run" and event.pr_number is None and claimed is not None:
        # The artifact says which PR; believe it only if that PR's head is the trusted sha.
        if publisher is not None and publisher.pull_head_sha(claimed) == event.head_sha:
            event = replace(event, pr_number=claimed)
        else:
            msg = f"results name PR #{claimed}, whose head is not {event.head_sha[:7]}; not posting"
            print(annotate("warning", msg, title="evolve: PR not confirmed"), file=stream)
    before = None
    if (
        publisher is not None
        and event.pr_number is not None
        and settings.comment is CommentMode.STICKY
    ):
        before = spend_history.read(publisher, event.pr_number, settings.comment_key)
    report = build_report(docs, settings, event, head, before)
    try:
        write_results(settings.results_dir, report.data, report.input)
    except ResultsWriteError as exc:
        print(annotate("error", str(exc), title="evolve: cannot write results"), file=stream)
        return 2
    published = publish(report.input, publisher=publisher, files=files, stream=stream)
    return published.exit_code


def report_locally(
    values: Mapping[str, str], config: RepoConfig, paths: Sequence[Path], stream: TextIO
) -> int:
    """Merge and decide, and print the comment; nothing is written or posted. Problems and
    warnings go to `stream` (stderr), the comment to stdout."""
    try:
        settings = layer(values, config)
        docs = load_all_results(paths or [settings.results_dir])
    except (SettingsError, ResultsLoadError) as exc:
        print(f"evolve-action: {exc}", file=stream)
        return 2
    settings, warnings = decide_settings(values, config, docs)
    for warning in warnings:
        print(f"evolve-action: warning: {warning}", file=stream)
    report = build_report(docs, settings, Event(name="local"), _head(docs)).input
    print(render(build_view(report)))
    return report.gate.exit_code
