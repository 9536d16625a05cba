"""One run's record as JSON, and back: what the cache and `results.json` both store.

The record keeps the item verdicts, evidence, usage and a summary of the transcript: the final
text and tool-call arguments are cut to a few kilobytes (never mid-character), so a runaway
agent cannot blow up a results file or a cache entry. Reading a record back gives a
`RunResult` whose transcript is that summary.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from evolve_action.model import lanes
from evolve_action.model.outcomes import (
    ErrorKind,
    Feedback,
    ItemResult,
    JudgeReport,
    RulerGrade,
    RunResult,
    Side,
    Status,
    ToolCall,
    Transcript,
    Usage,
)
from evolve_action.util.text import cut_bytes

FINAL_TEXT_BYTES = 4000
ARGUMENT_BYTES = 300
MAX_TOOL_CALLS = 200  # a runaway agent loop must not blow up the results file


def usage_doc(u: Usage) -> dict[str, Any]:
    return {
        "input_tokens": u.input_tokens,
        "output_tokens": u.output_tokens,
        "cache_read_tokens": u.cache_read_tokens,
        "cache_write_tokens": u.cache_write_tokens,
        "cost_usd": u.cost_usd,
        "calls": u.calls,
    }


def item_doc(r: ItemResult) -> dict[str, Any]:
    return {
        "id": r.item_id,
        "text": r.text,
        "passed": r.passed,
        "evidence": r.evidence,
        "score": r.score,
        "raw_score": r.raw_score,
        "kind": r.kind,
        "source": r.source,
    }


def feedback_doc(f: Feedback) -> dict[str, Any]:
    return {"suggestions": [dict(s) for s in f.suggestions], "overall": f.overall}


def transcript_doc(t: Transcript) -> dict[str, Any]:
    calls = [
        {
            "name": c.name,
            "arguments": cut_bytes(c.arguments, ARGUMENT_BYTES),
            "is_error": c.is_error,
        }
        for c in t.tool_calls[:MAX_TOOL_CALLS]
    ]
    return {
        "turns": t.turns,
        "stop_reason": t.stop_reason,
        "duration_s": t.duration_s,
        "final_text": cut_bytes(t.final_text, FINAL_TEXT_BYTES),
        "final_text_truncated": len(t.final_text.encode("utf-8")) > FINAL_TEXT_BYTES,
        "tool_calls": calls,
        "tool_calls_total": len(t.tool_calls),
        "changed_files": list(t.changed_files),
        "notes": list(t.notes),
        "usage": usage_doc(t.usage),
        "served_by": t.served_by,
    }


def run_cost(run: RunResult) -> float | None:
    """What one run cost: its agent's calls and its judge's. The one cost rule: results files,
    the comment, the budget, the statistics and the job summary all read it. None when
    neither model is priced."""
    known = [c for c in (run.transcript.usage.cost_usd, run.judge.usage.cost_usd) if c is not None]
    return math.fsum(known) if known else None


def ruler_doc(grade: RulerGrade | None) -> dict[str, Any] | None:
    if grade is None:
        return None
    return {
        "key": grade.key,
        "case_id": grade.case_id,
        "status": grade.status.value,
        "score": grade.score,
        "items": [item_doc(i) for i in grade.items],
    }


def _ruler(d: Mapping[str, Any] | None) -> RulerGrade | None:
    if d is None:
        return None
    items = tuple(_item(i) for i in d["items"])
    return RulerGrade(d["key"], d["case_id"], Status(d["status"]), d["score"], items)


def run_doc(run: RunResult) -> dict[str, Any]:
    judge = run.judge
    return {
        "suite": run.suite,
        "case_id": run.case_id,
        "model": lanes.model_of(run.model, run.agent),
        **({"agent": run.agent} if run.agent else {}),
        "side": run.side.value,
        "repetition": run.repetition,
        "status": run.status.value,
        "score": run.score,
        "error": run.error,
        "error_kind": run.error_kind.value if run.error_kind else None,
        "fingerprint": run.fingerprint,
        "cached": run.cached,
        "cost_usd": run_cost(run),
        "items": [item_doc(i) for i in run.items],
        "transcript": transcript_doc(run.transcript),
        "judge": {
            "model": judge.model,
            "called": judge.called,
            "error": judge.error,
            "duration_s": judge.duration_s,
            "usage": usage_doc(judge.usage),
            "claims": [dict(c) for c in judge.claims],
            "eval_feedback": feedback_doc(judge.feedback),
            "extractions": dict(judge.extractions),
        },
        # Only when set, so every other record keeps its shape.
        **({"ruler": ruler_doc(run.ruler)} if run.ruler is not None else {}),
    }


def _usage(d: Mapping[str, Any]) -> Usage:
    return Usage(
        d["input_tokens"],
        d["output_tokens"],
        d["cache_read_tokens"],
        d["cache_write_tokens"],
        d["cost_usd"],
        d["calls"],
    )


def _item(d: Mapping[str, Any]) -> ItemResult:
    return ItemResult(
        d["id"],
        d["text"],
        d["passed"],
        d["evidence"],
        d["score"],
        d["kind"],
        d["source"],
        d["raw_score"],
    )


def run_from_doc(d: Mapping[str, Any]) -> RunResult:
    """A run as stored: the transcript comes back summarized (cut text, cut arguments)."""
    t, j = d["transcript"], d["judge"]
    transcript = Transcript(
        final_text=t["final_text"],
        tool_calls=[
            ToolCall(c["name"], c["arguments"], is_error=c["is_error"]) for c in t["tool_calls"]
        ],
        turns=t["turns"],
        usage=_usage(t["usage"]),
        duration_s=t["duration_s"],
        stop_reason=t["stop_reason"],
        changed_files=list(t["changed_files"]),
        notes=list(t["notes"]),
        served_by=str(t.get("served_by", "")),  # absent from results written before it
    )
    fb = j["eval_feedback"]
    judge = JudgeReport(
        model=j["model"],
        called=j["called"],
        error=j["error"],
        claims=[dict(c) for c in j["claims"]],
        feedback=Feedback([dict(s) for s in fb["suggestions"]], fb["overall"]),
        extractions=dict(j["extractions"]),
        usage=_usage(j["usage"]),
        duration_s=j["duration_s"],
    )
    return RunResult(
        suite=d["suite"],
        case_id=d["case_id"],
        model=d["model"],
        side=Side(d["side"]),
        repetition=d["repetition"],
        status=Status(d["status"]),
        score=d["score"],
        items=[_item(i) for i in d["items"]],
        transcript=transcript,
        judge=judge,
        error=d["error"],
        error_kind=ErrorKind(d["error_kind"]) if d["error_kind"] else None,
        fingerprint=d["fingerprint"],
        cached=d["cached"],
        ruler=_ruler(d.get("ruler")),
        agent=str(d.get("agent", "")),
    )
