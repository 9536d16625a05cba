"""What merged results lack: shards that never reported, and runs a shard did not make.

`report` merges the results of matrix shards; a shard that was cancelled, ran out of budget
or never uploaded leaves runs unmade, which the merged report names (`shard_notices`) and
decides nothing over (`shortfall`, read by the gate). The files may come from a fork's
artifact: only numbers and known names are taken from them, never their text.
"""

from __future__ import annotations

from collections.abc import Sequence

from evolve_action.publish.results.load import LoadedResults
from evolve_action.settings.inputs import SettingsError, from_values
from evolve_action.util.text import plural
from evolve_action.verdict.gate import Shortfall

SIGNAL_NAMES = ("SIGTERM", "SIGINT")  # what a results file may say stopped its job


def _shard(value: str | None) -> tuple[int, int] | None:
    if value is None:
        return None
    try:
        shard = from_values({"shard": value}).shard
    except SettingsError:
        return None
    return shard.index, shard.count


def shard_notices(docs: Sequence[LoadedResults]) -> tuple[str, ...]:
    """What the merged results lack: a shard that never reported, runs a shard did not finish."""
    notices = []
    shards = [_shard(d.record.shard) for d in docs]
    if missing := _missing_shards(docs):
        notices.append(f"Incomplete: no results from shard {', '.join(missing)}.")
    if len({s[1] for s in shards if s is not None}) > 1:
        notices.append("Incomplete: the results come from jobs split in different ways.")
    for doc, shard in zip(docs, shards, strict=True):
        if doc.record.incomplete:
            which = f"shard {shard[0]}/{shard[1]}" if shard else f"the job of {doc.path}"
            notices.append(
                f"Incomplete: {which} did not finish every run (stopped, or its cost budget"
                " ran out)."
            )
    return tuple(notices)


def _missing_shards(docs: Sequence[LoadedResults]) -> list[str]:
    shards = [s for d in docs if (s := _shard(d.record.shard)) is not None]
    counts = {count for _, count in shards}
    if len(counts) != 1:
        return []
    (count,) = counts
    return [f"{i}/{count}" for i in sorted(set(range(1, count + 1)) - {i for i, _ in shards})]


def shortfall(docs: Sequence[LoadedResults]) -> Shortfall:
    """The runs the merged jobs planned and did not make: the report decides nothing over
    them either. The files are untrusted, so only numbers and known names are read."""
    planned = done = unknown = 0
    stopped: dict[str, None] = {}
    for doc in docs:
        runs = len(doc.runs)
        recorded = doc.record.planned_runs
        incomplete = doc.record.incomplete
        if recorded is not None and recorded >= runs:
            planned += recorded
        else:
            planned += runs
            unknown += incomplete
        done += runs
        if incomplete and (name := doc.record.stopped_by) in SIGNAL_NAMES:
            stopped[str(name)] = None
    cut = []
    if missing := _missing_shards(docs):
        cut.append(f"no results from shard {', '.join(missing)}")
    if unknown:
        cut.append(f"{plural(unknown, 'job')} did not finish every run")
    cut += [f"a job was stopped by {name}" for name in stopped]
    return Shortfall(planned, done, cut=tuple(cut))
