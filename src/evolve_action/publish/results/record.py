"""What results.json records about the job itself (its `settings` object), and back again.

`JobRecord` is the one description of that object: `run` builds it for one job and `report`
for a merge (`pipeline.report_input.build`), both write it with `record_doc`, and `report`
reads it back with `record_from_doc`. A new field is added here once, with its type in
`schemas/results.schema.json` (the round-trip test checks the two agree), and both paths
write it. A results file may come from a fork's artifact: the schema has checked each
known field's type before `record_from_doc` runs, and unknown fields are ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evolve_action.model import lanes
from evolve_action.model.evals import EMPTY
from evolve_action.plan.ruler import CaseChange, CaseDiff
from evolve_action.verdict.adaptive import CellEffort, Design, Effort, Stop
from evolve_action.verdict.ruler import RulerReport

# The settings that decide the verdict from the aggregate (input names), as recorded so
# `report` over these files decides as the job did (`settings.layering.recorded_settings`).
VERDICT_KEYS = ("alpha", "fail_on_regression", "min_pass_rate", "fail_without_lift")


@dataclass(frozen=True, slots=True)
class Adaptive:
    """`runs: auto`'s design as the job ran it, and where its runs went (None: not recorded,
    as in files written before the cells were)."""

    start: int
    max_runs: int
    waves: int = 0
    cells: tuple[CellEffort, ...] | None = None

    @property
    def bounds(self) -> tuple[int, ...]:
        return Design(self.start, self.max_runs).bounds

    def effort(self) -> Effort | None:
        if self.cells is None:
            return None
        return Effort(Design(self.start, self.max_runs), self.cells, self.waves)


@dataclass(frozen=True, slots=True)
class CaseChangeRecord:
    """A case the PR changed in its own evals; a removed one with its last base
    pass rate, so it is never dropped silently."""

    diff: CaseDiff
    base_pass_rate: float | None = None  # removed cases: pooled over models; else None


def changes_of(rulers: RulerReport) -> tuple[CaseChangeRecord, ...]:
    rates = {(r.suite, r.case_id): r.rate for r in rulers.removed}
    removed = CaseChange.REMOVED
    return tuple(
        CaseChangeRecord(d, rates.get((d.suite, d.base_case)) if d.change is removed else None)
        for d in rulers.diffs
    )


def _change_doc(c: CaseChangeRecord) -> dict[str, Any]:
    d = c.diff
    return {
        "suite": d.suite,
        "change": d.change.value,
        "base_case": d.base_case,
        "head_case": d.head_case,
        "diffs": list(d.diffs),
        "gating": d.gating,
        "what": d.what,
        "base_pass_rate": c.base_pass_rate,
    }


def _changes_from_doc(listed: Any) -> tuple[CaseChangeRecord, ...]:
    if not isinstance(listed, list):
        return ()
    kinds = {k.value: k for k in CaseChange}
    out = []
    for c in listed:
        if not isinstance(c, Mapping) or c.get("change") not in kinds:
            continue
        diff = CaseDiff(
            _of(c, "suite", str, ""),
            kinds[c["change"]],
            _of(c, "base_case", str, ""),
            _of(c, "head_case", str, ""),
            tuple(x for x in _of(c, "diffs", list, []) if isinstance(x, str)),
            c.get("gating") is True,
            _of(c, "what", str, ""),
        )
        out.append(CaseChangeRecord(diff, _of(c, "base_pass_rate", (int, float), None)))
    return tuple(out)


@dataclass(frozen=True, slots=True, kw_only=True)
class JobRecord:
    """One job's (or one merge's) facts beyond its runs: what ran, on what, how it ended."""

    models: tuple[str, ...] = ()
    runs: int | str | None = None  # the runs setting: a count, "auto", or None (the file's)
    adaptive: Adaptive | None = None
    head_sha: str = ""
    base_sha: str | None = None  # None: no base side
    pr_number: int | None = None
    event: str = ""
    incomplete: bool = False
    planned_runs: int | None = None  # None: not recorded (then the runs it has are all)
    stopped_by: str | None = None  # the signal that stopped this job (never a merge's)
    incomplete_because: tuple[str, ...] = ()
    # What decided the verdict; `verdict_keys` says which of them the file records.
    alpha: float | None = None
    fail_on_regression: bool | None = None
    min_pass_rate: float | None = None
    fail_without_lift: bool | None = None
    verdict_keys: tuple[str, ...] = VERDICT_KEYS
    confinement: str = ""
    harness: str = ""  # sdk | cli; "" in files written before it was recorded
    shard: str | None = None  # "i/n" when the job ran one part of a sharded plan
    merged_from: int | None = None  # a merge: how many files it read
    projected_usd: float | None = None  # the cost projected before the first call (priced)
    projected_range: tuple[float, float] | None = None  # its low and high (a run never seen)
    prices_as_of: str | None = None  # the price table's source and date
    case_changes: tuple[CaseChangeRecord, ...] = ()  # cases the PR changed in its own evals

    def verdict_doc(self) -> dict[str, Any]:
        """The verdict settings as recorded, for `layering.recorded_settings`."""
        return {k: getattr(self, k) for k in self.verdict_keys}


def _adaptive_doc(a: Adaptive) -> dict[str, Any]:
    doc: dict[str, Any] = {"start": a.start, "max_runs": a.max_runs, "waves": a.waves}
    if a.cells is not None:
        doc["cells"] = [
            {
                "suite": c.key[0],
                "case": c.key[1],
                **lanes.fields(c.key[2]),
                "base_runs": c.base_runs,
                "head_runs": c.head_runs,
                "stop": c.stop.value,
            }
            for c in a.cells
        ]
    return doc


def adaptive_of(effort: Effort | None) -> Adaptive | None:
    if effort is None:
        return None
    d = effort.design
    return Adaptive(d.start, d.max_runs, effort.waves, effort.cells)


def record_doc(record: JobRecord) -> dict[str, Any]:
    """The `settings` object of results.json."""
    doc: dict[str, Any] = {"models": list(record.models), "runs": record.runs}
    if record.adaptive is not None:
        doc["adaptive"] = _adaptive_doc(record.adaptive)
    doc |= {
        "head_sha": record.head_sha,
        "base_sha": record.base_sha,
        "pr_number": record.pr_number,
        "event": record.event,
        "incomplete": record.incomplete,
        "planned_runs": record.planned_runs,
        "stopped_by": record.stopped_by,
        "incomplete_because": list(record.incomplete_because),
        **record.verdict_doc(),
        "confinement": record.confinement,
        "harness": record.harness,
    }
    if record.shard is not None:
        doc["shard"] = record.shard
    if record.merged_from is not None:
        doc["merged_from"] = record.merged_from
    if record.projected_usd is not None:
        doc["projected_usd"] = record.projected_usd
    if record.projected_range is not None:
        doc["projected_range"] = list(record.projected_range)
    if record.prices_as_of is not None:
        doc["prices_as_of"] = record.prices_as_of
    if record.case_changes:
        doc["case_changes"] = [_change_doc(c) for c in record.case_changes]
    return doc


def _of(doc: Mapping[str, Any], key: str, kind: type | tuple[type, ...], default: Any) -> Any:
    """`doc[key]` when it has the type the schema gives it, else `default` (an old file)."""
    value = doc.get(key)
    if isinstance(value, bool) and kind is not bool:
        return default
    return value if isinstance(value, kind) else default


def _range_from_doc(doc: Any) -> tuple[float, float] | None:
    if not isinstance(doc, list) or len(doc) != 2:
        return None
    low, high = doc
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in doc)
    return (float(low), float(high)) if numbers else None


def _adaptive_from_doc(doc: Any) -> Adaptive | None:
    if not isinstance(doc, Mapping):
        return None
    start, max_runs = _of(doc, "start", int, 0), _of(doc, "max_runs", int, 0)
    if not 1 <= start <= max_runs:
        return None
    cells = None
    if isinstance(listed := doc.get("cells"), list):
        stops = {s.value: s for s in Stop}
        cells = tuple(
            CellEffort(
                (c["suite"], c["case"], lanes.lane(c["model"], c.get("agent", ""))),
                c["base_runs"],
                c["head_runs"],
                stops.get(c["stop"], Stop.SETTLED),
            )
            for c in listed
        )
    return Adaptive(start, max_runs, _of(doc, "waves", int, 0), cells)


def record_from_doc(doc: Mapping[str, Any] | None) -> JobRecord:
    """The record of a results.json `settings` object the schema accepted; a field a file of
    an earlier version lacks takes its default."""
    doc = doc or EMPTY
    models = _of(doc, "models", list, [])
    return JobRecord(
        models=tuple(m for m in models if isinstance(m, str)),
        runs=_of(doc, "runs", (int, str), None),
        adaptive=_adaptive_from_doc(doc.get("adaptive")),
        head_sha=_of(doc, "head_sha", str, ""),
        base_sha=_of(doc, "base_sha", str, None),
        pr_number=_of(doc, "pr_number", int, None),
        event=_of(doc, "event", str, ""),
        incomplete=doc.get("incomplete") is True,
        planned_runs=_of(doc, "planned_runs", int, None),
        stopped_by=_of(doc, "stopped_by", str, None),
        incomplete_because=tuple(_of(doc, "incomplete_because", list, [])),
        alpha=_of(doc, "alpha", (int, float), None),
        fail_on_regression=_of(doc, "fail_on_regression", bool, None),
        min_pass_rate=_of(doc, "min_pass_rate", (int, float), None),
        fail_without_lift=_of(doc, "fail_without_lift", bool, None),
        verdict_keys=tuple(k for k in VERDICT_KEYS if k in doc),
        confinement=_of(doc, "confinement", str, ""),
        harness=_of(doc, "harness", str, ""),
        shard=_of(doc, "shard", str, None),
        merged_from=_of(doc, "merged_from", int, None),
        projected_usd=_of(doc, "projected_usd", (int, float), None),
        projected_range=_range_from_doc(doc.get("projected_range")),
        prices_as_of=_of(doc, "prices_as_of", str, None),
        case_changes=_changes_from_doc(doc.get("case_changes")),
    )
