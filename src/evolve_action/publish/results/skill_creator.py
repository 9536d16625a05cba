"""skill-creator-compatible files: `grading.json` per run, `benchmark.json` per suite and
model, and skill-evaluator's `eval_feedback_aggregate.json` per suite.

The arithmetic follows skill-creator's `aggregate_benchmark.py`: statistics over runs are the
mean, the *sample* standard deviation (0 when n ≤ 1), min and max, each rounded to 4 decimals;
`run_summary.delta` holds signed strings (`"+0.50"`, `"+13.0"`, `"+1700"`), with-skill minus
without-skill.

Mapping: the PR's **head** is `with_skill`. Where the case also ran without its skill (the
no-skill arm, `baseline`), that arm is `without_skill`, as in skill-creator's own benchmark,
and the delta is the skill's lift; base then goes to `benchmark-base.json` (and its runs to
`base/`). Elsewhere the **base** is `without_skill`: the viewer only knows those two names,
and the delta then reads as "what the PR changed", which is what skill-creator's improve mode
means by new skill minus old skill. Errored runs are listed
(with `error`) but left out of `run_summary`, as errors are left out of every pass rate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evolve_action.model.evals import Suite
from evolve_action.model.outcomes import ItemResult, RunResult, Side, Status
from evolve_action.model.records import run_cost
from evolve_action.verdict.stats import summarize

CONFIGURATION = {Side.HEAD: "with_skill", Side.BASE: "without_skill"}
# With a no-skill arm: skill-creator's own meaning of the two names, and base kept apart.
ARMED = {Side.HEAD: "with_skill", Side.NO_SKILL: "without_skill", Side.BASE: "base"}


def configuration(side: Side, armed: bool) -> str:
    """The folder (and benchmark configuration) of a run of `side`."""
    return (ARMED if armed else CONFIGURATION)[side]


def item_counts(items: Sequence[ItemResult]) -> dict[str, Any]:
    passed = sum(i.passed is True for i in items)
    failed = sum(i.passed is False for i in items)
    graded = passed + failed
    return {
        "passed": passed,
        "failed": failed,
        "skipped": len(items) - graded,
        "total": len(items),
        "pass_rate": round(passed / graded, 4) if graded else 0.0,
    }


def _expectation(i: ItemResult) -> dict[str, Any]:
    out: dict[str, Any] = {"text": i.text, "passed": i.passed, "evidence": i.evidence}
    out.update(id=i.item_id, source=i.source, kind=i.kind)
    if i.score is not None:
        out["score"] = i.score
    return out


def grading_doc(run: RunResult) -> dict[str, Any]:
    """One run as skill-creator's grading.json (evolve's superset: skips are `passed: null`)."""
    t = run.transcript
    tool_counts: dict[str, int] = {}
    for call in t.tool_calls:
        tool_counts[call.name] = tool_counts.get(call.name, 0) + 1
    transcript_chars = len(t.final_text) + sum(
        len(c.arguments) + len(c.result) for c in t.tool_calls
    )
    doc: dict[str, Any] = {
        "expectations": [_expectation(i) for i in run.items],
        "summary": item_counts(run.items),
        "execution_metrics": {
            "tool_calls": tool_counts,
            "total_tool_calls": len(t.tool_calls),
            "total_steps": t.turns,
            "files_created": list(t.changed_files),
            "errors_encountered": sum(c.is_error for c in t.tool_calls),
            "output_chars": len(t.final_text),
            "transcript_chars": transcript_chars,
        },
        "timing": {
            "executor_duration_seconds": round(t.duration_s, 3),
            "grader_duration_seconds": round(run.judge.duration_s, 3),
            "total_duration_seconds": round(t.duration_s + run.judge.duration_s, 3),
            "total_tokens": t.usage.total_tokens + run.judge.usage.total_tokens,
        },
        "claims": [dict(c) for c in run.judge.claims],
        "status": run.status.value,
        "score": run.score,
        "model": run.model,
        "judge_model": run.judge.model,
        "cost_usd": run_cost(run),
    }
    rubric = {
        i.item_id: {"score": i.raw_score, "evidence": i.evidence}
        for i in run.items
        if i.raw_score is not None
    }
    if rubric:
        doc["rubric_scores"] = rubric
    feedback = run.judge.feedback
    if feedback.suggestions or feedback.overall:
        doc["eval_feedback"] = {
            "suggestions": [dict(s) for s in feedback.suggestions],
            "overall": feedback.overall,
        }
    if run.judge.extractions:
        doc["extractions"] = dict(run.judge.extractions)
    if run.status is Status.ERROR:
        doc["runtime_error"] = run.error or "error"
    return doc


def _stats(values: Sequence[float]) -> dict[str, float]:
    s = summarize(values)
    return {
        k: round(v, 4)
        for k, v in (("mean", s.mean), ("stddev", s.stddev), ("min", s.min), ("max", s.max))
    }


def _signed(value: float, places: int) -> str:
    return f"{value + 0.0:+.{places}f}"


def _bench_result(run: RunResult) -> dict[str, Any]:
    counts = item_counts(run.items)
    t = run.transcript
    return {
        "pass_rate": counts["pass_rate"],
        "passed": counts["passed"],
        "failed": counts["failed"],
        "total": counts["total"],
        "time_seconds": round(t.duration_s, 3),
        "tokens": t.usage.total_tokens,
        "tool_calls": len(t.tool_calls),
        "errors": sum(c.is_error for c in t.tool_calls) + (run.status is Status.ERROR),
    }


def _configuration_summary(runs: Sequence[RunResult]) -> dict[str, Any]:
    graded = [r for r in runs if r.status is not Status.ERROR]
    results = [_bench_result(r) for r in graded]
    summary: dict[str, Any] = {
        "pass_rate": _stats([r["pass_rate"] for r in results]),
        "time_seconds": _stats([r["time_seconds"] for r in results]),
        "tokens": _stats([float(r["tokens"]) for r in results]),
        # skill-evaluator's extension: the run score, its consistency and rubric dimensions.
        "score": _stats([r.score for r in graded]),
        "runs": len(runs),
        "errored": len(runs) - len(graded),
    }
    scores = summarize([r.score for r in graded])
    if scores.n:
        summary["consistency"] = (
            round(max(0.0, 1 - scores.stddev / scores.mean), 4) if scores.mean > 0 else 0.0
        )
    dims: dict[str, list[float]] = {}
    for run in graded:
        for item in run.items:
            if item.raw_score is not None:
                dims.setdefault(item.item_id, []).append(item.raw_score)
    if dims:
        summary["rubric_dimensions"] = {k: _stats(v) for k, v in sorted(dims.items())}
    return summary


def benchmark_doc(
    suite: Suite | None,
    suite_rel: str,
    model: str,
    runs: Sequence[RunResult],
    *,
    judge_model: str | None,
    timestamp: str,
    skill_path: str,
    without: Side = Side.BASE,
) -> dict[str, Any]:
    """skill-creator's benchmark.json for one suite on one model: head as `with_skill`,
    `without` (base, or the no-skill arm) as `without_skill`; other runs are left out."""
    runs = [r for r in runs if r.side in (Side.HEAD, without)]
    label = {Side.HEAD: "with_skill", without: "without_skill"}
    names = {c.id: c.label for c in suite.cases} if suite else {}
    ordered = _in_case_order(suite, runs, without)
    return {
        "metadata": {
            "skill_name": suite.skill.name if suite else suite_rel,
            "skill_path": skill_path,
            "executor_model": model,
            "analyzer_model": judge_model or "",
            "timestamp": timestamp,
            "evals_run": list(dict.fromkeys(r.case_id for r in ordered)),
            "runs_per_configuration": max((r.repetition for r in runs), default=0),
            "suite": suite_rel,
        },
        "runs": [_bench_run(run, names.get(run.case_id, run.case_id), label) for run in ordered],
        "run_summary": _run_summary(runs, label, without),
        "notes": [],
    }


def _in_case_order(suite: Suite | None, runs: list[RunResult], without: Side) -> list[RunResult]:
    """The suite's case order (cases it does not list after, by id), head's runs before the
    other configuration's, then by repetition."""
    order = {c.id: i for i, c in enumerate(suite.cases)} if suite else {}
    return sorted(
        runs,
        key=lambda r: (
            order.get(r.case_id, len(order)),
            r.case_id,
            r.side is without,
            r.repetition,
        ),
    )


def _bench_run(run: RunResult, name: str, label: dict[Side, str]) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "eval_id": run.case_id,
        "eval_name": name,
        "configuration": label[run.side],
        "run_number": run.repetition,
        "result": _bench_result(run),
        "expectations": [_expectation(i) for i in run.items],
        "notes": [f"error: {run.error}"] if run.status is Status.ERROR else [],
        "status": run.status.value,
        "score": run.score,
    }
    if run.status is Status.ERROR:
        entry["error"] = run.error or "error"
    return entry


def _run_summary(runs: list[RunResult], label: dict[Side, str], without: Side) -> dict[str, Any]:
    """Each configuration's statistics, and the delta: with-skill minus without-skill."""
    per_config = {
        label[side]: _configuration_summary([r for r in runs if r.side is side])
        for side in (Side.HEAD, without)
    }
    with_s, other = per_config["with_skill"], per_config["without_skill"]
    delta = {
        "pass_rate": _signed(with_s["pass_rate"]["mean"] - other["pass_rate"]["mean"], 2),
        "time_seconds": _signed(with_s["time_seconds"]["mean"] - other["time_seconds"]["mean"], 1),
        "tokens": _signed(with_s["tokens"]["mean"] - other["tokens"]["mean"], 0),
    }
    return {**per_config, "delta": delta}


# --- eval feedback --------------------------------------------------------------------------

_SPACE = re.compile(r"\s+")


def _normalize(text: str) -> str:
    return _SPACE.sub(" ", text).strip().rstrip(".!").lower()


@dataclass
class FeedbackEntry:
    """One suggestion about the eval, deduplicated by normalized text across runs."""

    reason: str
    assertion: str | None
    frequency: int = 0
    case_ids: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)


def aggregate_feedback(runs: Sequence[RunResult]) -> list[FeedbackEntry]:
    """Suggestions by frequency (most raised first), then by first appearance.

    Only head runs count when there are any: the suggestions are about the eval as the PR
    leaves it.
    """
    head = [r for r in runs if r.side is Side.HEAD]
    entries: dict[tuple[str, str], FeedbackEntry] = {}
    for run in head or runs:
        seen: set[tuple[str, str]] = set()
        for s in run.judge.feedback.suggestions:
            reason = s.get("reason", "")
            assertion = s.get("assertion") or None
            key = (_normalize(assertion or ""), _normalize(reason))
            if not key[1] or key in seen:
                continue
            seen.add(key)
            entry = entries.setdefault(key, FeedbackEntry(reason, assertion))
            entry.frequency += 1
            if run.case_id not in entry.case_ids:
                entry.case_ids.append(run.case_id)
            if run.model not in entry.models:
                entry.models.append(run.model)
    ranked = sorted(enumerate(entries.values()), key=lambda p: (-p[1].frequency, p[0]))
    return [entry for _, entry in ranked]


def feedback_aggregate_doc(
    suite: Suite | None, suite_rel: str, runs: Sequence[RunResult]
) -> dict[str, Any]:
    counted = [r for r in runs if r.side is Side.HEAD] or list(runs)
    return {
        "skill_name": suite.skill.name if suite else suite_rel,
        "suite": suite_rel,
        "iteration": "head" if any(r.side is Side.HEAD for r in runs) else "base",
        "total_runs": len(counted),
        "suggestions": [
            {
                "frequency": e.frequency,
                "assertion": e.assertion,
                "reason": e.reason,
                "case_ids": e.case_ids,
                "models": e.models,
            }
            for e in aggregate_feedback(runs)
        ],
    }
