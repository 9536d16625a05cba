"""What a watch says: the job summary in words, the evidence of each drop, and the issues.

The summary always says what ran and why (full or a sample), what changed besides time, what
was compared, and what happened to issues. A watch that was cut says so and opens nothing; a
watch whose every run errored says that nothing could be compared, and opens nothing: an
outage is not a regression.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evolve_action.pipeline.watch import Watched
from evolve_action.pipeline.watch_compare import Comparison
from evolve_action.publish.actions_io import RunnerFiles, fit_summary, set_outputs
from evolve_action.publish.github_api import Publisher
from evolve_action.publish.watch_issues import CaseDrop, Drop, Synced, sync
from evolve_action.settings.events import Event
from evolve_action.settings.inputs import Settings
from evolve_action.util.text import plural
from evolve_action.verdict.decide import Finding


def drops(watched: Watched, settings: Settings, event: Event) -> list[Drop]:
    """One `Drop` per suite the verdict flagged, its fallen cases worst first."""
    comparison = watched.comparison
    out = []
    for suite in comparison.regressed_suites:
        cases = tuple(_case(comparison, key) for key in comparison.dropped_cells(suite))
        models = sorted({c.model for c in cases})
        runs = f" --runs {settings.runs}" if isinstance(settings.runs, int) else ""
        reproduce = (
            f"evolve-action run --base none --mode all --paths {suite}"
            f" --models {','.join(models)}{runs}"
        )
        snapshots = {m: s for m, s in watched.seen.snapshots.items() if m in models}
        out.append(Drop(suite, cases, watched.seen.changes, snapshots, reproduce, event.run_url))
    return out


def _case(comparison: Comparison, key: tuple[str, str, str]) -> CaseDrop:
    base, now = comparison.then[key], comparison.now[key]
    row = comparison.verdict.row(key) if comparison.verdict else None
    when = f"{base.record.at[:10]} at {base.record.sha[:7] or 'an unknown commit'}"
    return CaseDrop(
        case_id=key[1],
        model=key[2],
        then=(base.counts.passed, base.counts.graded),
        then_when=when,
        now=(now.passed, now.graded),
        adjusted_p=row.adjusted_p if row else None,
        regressed=row is not None and row.finding is Finding.REGRESSED,
    )


def recovered(watched: Watched) -> list[str]:
    """Suites compared this run, graded, and not flagged: an open issue of theirs closes."""
    flagged = set(watched.comparison.regressed_suites)
    return sorted(watched.comparison.compared_suites() - flagged)


@dataclass(frozen=True)
class Told:
    summary: str
    synced: Synced


def publish(
    watched: Watched,
    settings: Settings,
    event: Event,
    *,
    publisher: Publisher | None,
    files: RunnerFiles,
) -> Told:
    """Issues (only for a complete watch), then the summary and the outputs."""
    found = drops(watched, settings, event) if watched.complete else []
    synced = Synced()
    if publisher is not None and watched.complete:
        synced = sync(publisher, found, recovered(watched), run_url=event.run_url)
    text = summary(watched, found, synced)
    if files.summary:
        with open(files.summary, "a", encoding="utf-8") as handle:
            handle.write(fit_summary(text) + "\n")
    set_outputs(files.output, {"results-dir": str(settings.results_dir)})
    return Told(text, synced)


def summary(watched: Watched, found: Sequence[Drop], synced: Synced) -> str:
    c, sel = watched.comparison, watched.selection
    made = len(watched.results)
    planned = len(watched.finished.execution.plan.runs)
    lines = ["## evolve watch", ""]
    lines.append(f"**Ran:** {sel.why}." + (" Resumed a watch that was cut." if sel.resumed else ""))
    if watched.part:
        lines.append(
            f"**Shard {watched.part}:** this job ran and decided its own eval files, each"
            " at alpha divided by the number of shards."
        )
    lines.append(f"**Runs:** {made} of {planned} made; {c.graded} graded, {c.errored} errored.")
    if watched.seen.changes:
        lines += ["", "**What changed besides time:**", *[f"- {x}" for x in watched.seen.changes]]
    else:
        lines.append("**What changed besides time:** nothing reported (snapshots, CLI, prices).")
    lines.append("")
    if not watched.complete:
        lines.append(
            f"**Cut before the end:** {made} of {planned} runs done. Nothing is recorded and no"
            " issue is opened from runs that were not made; the next watch of this commit"
            " resumes from its cache and makes only the rest."
        )
    elif planned == 0:
        lines.append("**Nothing to run:** no eval file in this watch (or in this shard's part).")
    elif c.graded == 0:
        lines.append(
            f"**Every run errored** ({plural(c.errored, 'error')}): nothing could be compared,"
            " no issue was opened or closed, and no baseline moved. Errors are not failures."
        )
    elif not watched.recorded_to:
        lines.append(
            "**No history:** without the `history-dir` input nothing is recorded, so nothing"
            " can be compared (docs/watch.md)."
        )
    elif c.verdict is None:
        lines.append("**No baseline yet** for these evals and models: this run becomes one.")
    elif not found:
        n = len(c.compared_suites())
        lines.append(f"**No significant drop** in {plural(n, 'skill')} compared.")
    for drop in found:
        detail = ""
        if drop.cases:
            w = drop.cases[0]
            detail = f" (`{w.case_id}`: {w.then[0]}/{w.then[1]} → {w.now[0]}/{w.now[1]})"
        lines.append(f"- **dropped:** `{drop.suite}`{detail}")
    issues = (("opened", synced.opened), ("updated", synced.updated), ("closed", synced.closed))
    for what, urls in issues:
        if urls:
            lines.append(f"- issue {what}: {', '.join(urls)}")
    lines += [f"- could not write an issue: {f}" for f in synced.failed]
    return "\n".join(lines) + "\n"
