"""Our own `results.json`: every run, the aggregates, and back again (docs/design.md §Outputs).

The document is described by `schemas/results.schema.json`. It carries everything `report`
needs to render and post without the repository: the runs (item verdicts and evidence,
usage, a transcript summary), a catalog of the suites and cases they belong to (names,
kinds, file and line for links and annotations) and the aggregates. Shards of one job are
merged by loading each document, concatenating runs and catalogs, and aggregating again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from evolve_action.model import lanes
from evolve_action.model.evals import (
    Case,
    CaseKind,
    Check,
    Format,
    Item,
    JudgeItem,
    LoadResult,
    Origin,
    Problem,
    Severity,
    Skill,
    Suite,
    SuitePolicy,
)
from evolve_action.model.records import (
    FINAL_TEXT_BYTES,
)
from evolve_action.plan.planning import Skip
from evolve_action.util.text import cut_bytes
from evolve_action.verdict.decide import Verdict
from evolve_action.verdict.significance import TestResult
from evolve_action.verdict.stats import Aggregate, CaseStats, GroupStats, SideStats, Summary

SCHEMA_VERSION = 1
_SCALARS = (str, int, float, bool, type(None))


def _origin_doc(o: Origin) -> dict[str, Any]:
    return {"path": o.path, "line": o.line}


def _catalog_item(item: Item) -> dict[str, Any]:
    return {
        "id": item.id,
        "text": cut_bytes(item.text, FINAL_TEXT_BYTES),
        "judged": isinstance(item, JudgeItem),
        "origin": _origin_doc(item.origin),
    }


def _item_from_doc(d: Mapping[str, Any]) -> Item:
    """An item as catalogued: its id, text and place, for links; nothing to grade with."""
    origin = Origin(d["origin"]["path"], d["origin"]["line"])
    if d["judged"]:
        return JudgeItem(d["id"], d["text"], origin)
    return Check(d["id"], "", d["text"], origin)


def catalog_doc(suites: Sequence[Suite], repo_root: Path | None) -> list[dict[str, Any]]:
    out = []
    for s in suites:
        skill_dir = s.skill.dir
        if skill_dir is not None and not skill_dir.is_absolute():
            skill_path = skill_dir.as_posix()  # read back from a results file (`suite_from_doc`)
        elif (
            skill_dir is not None and repo_root is not None and skill_dir.is_relative_to(repo_root)
        ):
            skill_path = skill_dir.relative_to(repo_root).as_posix()
        else:
            skill_path = ""
        out.append(
            {
                "rel": s.rel,
                "format": s.format.value,
                "name": s.label,
                "skill": s.skill.name,
                "skill_path": skill_path,
                "plugin": s.skill.plugin,
                "policy": {k: v for k, v in s.policy.doc().items() if isinstance(v, _SCALARS)},
                "cases": [
                    {
                        "id": c.id,
                        "name": c.name,
                        "kind": c.kind.value,
                        "should_trigger": c.should_trigger,
                        "prompt": cut_bytes(c.prompt, FINAL_TEXT_BYTES),
                        "origin": _origin_doc(c.origin),
                        "items": [_catalog_item(i) for i in c.items],
                    }
                    for c in s.cases
                ],
            }
        )
    return out


def invalid_doc(result: LoadResult) -> dict[str, Any]:
    """An eval file that failed to load: a sharded job's report must fail on it too."""
    return {
        "rel": result.rel,
        "format": result.format.value if result.format else None,
        "problems": [
            {
                "path": p.origin.path,
                "line": p.origin.line,
                "pointer": p.origin.pointer,
                "message": p.message,
                "severity": p.severity.value,
            }
            for p in result.problems
        ],
    }


def invalid_from_doc(d: Mapping[str, Any]) -> LoadResult:
    problems = tuple(
        Problem(Origin(p["path"], p["line"], p["pointer"]), p["message"], Severity(p["severity"]))
        for p in d["problems"]
    )
    return LoadResult(d["rel"], Format(d["format"]) if d["format"] else None, None, problems)


def skip_doc(skip: Skip) -> dict[str, Any]:
    return {"suite": skip.suite, "case": skip.case, "model": skip.model, "reason": skip.reason}


def skip_from_doc(d: Mapping[str, Any]) -> Skip:
    return Skip(d["suite"], d["case"], d["model"], d["reason"])


def _flat_doc(record: Summary | TestResult) -> dict[str, Any]:
    # Their fields are numbers and strings: `asdict`'s deep copy of each (five times the
    # time, over four summaries a side of every case) would copy nothing.
    return {f.name: getattr(record, f.name) for f in fields(record)}


def _summary_doc(s: Summary) -> dict[str, Any]:
    return _flat_doc(s)


def _test_doc(t: TestResult | None) -> dict[str, Any] | None:
    return None if t is None else _flat_doc(t)


def side_doc(s: SideStats | None) -> dict[str, Any] | None:
    if s is None:
        return None
    return {
        "runs": s.runs,
        "passed": s.passed,
        "failed": s.failed,
        "errored": s.errored,
        "pass_rate": s.pass_rate,
        "scores": _summary_doc(s.scores),
        "consistency": s.consistency,
        "dimensions": {k: _summary_doc(v) for k, v in s.dimensions.items()},
        "verdict": s.verdict,
        "hit_rate": s.hit_rate,
        "stability": s.stability,
        "time_s": _summary_doc(s.time_s),
        "tokens": _summary_doc(s.tokens),
        "cost_usd": s.cost_usd,
    }


def case_doc(c: CaseStats) -> dict[str, Any]:
    return {
        "suite": c.suite,
        "case_id": c.case_id,
        "name": c.name,
        **lanes.fields(c.model),
        "base": side_doc(c.base),
        "head": side_doc(c.head),
        "delta": c.delta,
        "test": _test_doc(c.test),
        "label": c.label.value,
        "adjusted_p": c.adjusted_p,
    }


def group_doc(g: GroupStats) -> dict[str, Any]:
    return {
        "suite": g.suite,
        **lanes.fields(g.model),
        "base_rate": g.base_rate,
        "head_rate": g.head_rate,
        "delta": g.delta,
        "paired_delta": g.paired_delta,
        "test": _test_doc(g.test),
        "label": g.label.value,
        "labels": dict(g.labels),
        "runs": {side: dict(counts) for side, counts in g.runs.items()},
    }


def verdict_doc(v: Verdict) -> dict[str, Any]:
    """The decision the check made: what regressed, and where the runs were too few."""
    return {
        "regressed": v.regressed,
        "case_share": v.case_share,
        "regressed_cases": [{"suite": s, "case_id": c} for s, c in v.regressed_cases],
        "regressed_suites": [
            {"suite": s, "adjusted_p": v.suites[s].adjusted_p} for s in v.regressed_suites
        ],
        "too_few_runs": [
            {"suite": s, "case_id": c, "runs_needed": v.cases[(s, c)].runs_needed}
            for s, c in v.too_few_runs
        ],
    }


def aggregate_doc(a: Aggregate) -> dict[str, Any]:
    return {
        "alpha": a.alpha,
        "cases": [case_doc(c) for c in a.cases],
        "suites": [group_doc(g) for g in a.suites],
        "models": [group_doc(g) for g in a.models],
        "overall": group_doc(a.overall),
        "verdict": verdict_doc(a.verdict),
    }


# --- reading back ---------------------------------------------------------------------------


def suite_from_doc(d: Mapping[str, Any]) -> Suite:
    """A suite as catalogued: enough for names, kinds, policies and links, not for grading.
    Its paths are relative to the repository, which a reader of results need not have."""
    rel = d["rel"]
    cases = tuple(
        Case(
            id=c["id"],
            prompt=c["prompt"],
            origin=Origin(c["origin"]["path"], c["origin"]["line"]),
            name=c["name"],
            kind=CaseKind(c["kind"]),
            should_trigger=c["should_trigger"],
            items=tuple(_item_from_doc(i) for i in c.get("items", ())),
        )
        for c in d["cases"]
    )
    # The skill's folder stays relative to the repository: a merged report writes it back as is.
    skill = Skill(d["skill"], Path(d["skill_path"]) if d["skill_path"] else None, d["plugin"])
    return Suite(
        Format(d["format"]),
        Path(rel),
        rel,
        skill,
        cases,
        name=d["name"],
        policy=SuitePolicy.from_doc(d["policy"]),
    )
