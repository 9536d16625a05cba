"""Helpers the agentv checks share: scored results, the pass mark, the answer as JSON, and
the trace summary AgentV hands to judge scripts."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from evolve_action.model.checking import CheckContext
from evolve_action.model.evals import AGENTV_THRESHOLD as DEFAULT_THRESHOLD
from evolve_action.model.evals import Check
from evolve_action.model.outcomes import ItemResult, Transcript

_FENCE = re.compile(r"^```[A-Za-z0-9_-]*\s*\n(.*?)\n?```\s*$", re.DOTALL)


def pass_mark(check: Check, ctx: CheckContext) -> float:
    """An item passes at its `required` floor, else at the case's (or suite's) threshold."""
    if check.required is not None:
        return check.required
    threshold = ctx.case.extra.threshold
    if isinstance(threshold, int | float):
        return float(threshold)
    value = ctx.suite.policy.threshold
    return DEFAULT_THRESHOLD if value is None else value


def scored(check: Check, ctx: CheckContext, score: float, evidence: str) -> ItemResult:
    score = min(max(score, 0.0), 1.0)
    return ItemResult(
        check.id,
        check.text,
        score + 1e-9 >= pass_mark(check, ctx),
        evidence,
        score=score,
        kind=check.kind,
        source=check.source,
    )


def failed(check: Check, evidence: str) -> ItemResult:
    return ItemResult(
        check.id, check.text, False, evidence, score=0.0, kind=check.kind, source=check.source
    )


def skipped(check: Check, evidence: str) -> ItemResult:
    return ItemResult(check.id, check.text, None, evidence, kind=check.kind, source=check.source)


def answer_json(answer: str, *, whole: bool = False) -> Any:
    """The answer parsed as JSON (```json fences stripped); unless `whole`, the first `{...}`
    blob of a chatty answer will do, as AgentV reads it. None when nothing parses."""
    text = answer.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        return json.loads(text)
    except ValueError:
        pass
    if whole:
        return None
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        return json.loads(text[start : end + 1])
    except ValueError:
        return None


def trace_summary(t: Transcript) -> dict[str, Any]:
    by_name = Counter(c.name for c in t.tool_calls)
    return {
        "event_count": len(t.tool_calls),
        "tool_names": sorted(by_name),
        "tool_calls_by_name": dict(by_name),
        "error_count": sum(1 for c in t.tool_calls if c.is_error),
        "token_usage": {
            "input": input_tokens(t),
            "output": t.usage.output_tokens,
        },
        "cost_usd": t.usage.cost_usd,
        "duration_ms": round(t.duration_s * 1000),
        "llm_call_count": llm_calls(t),
    }


def input_tokens(t: Transcript) -> int:
    u = t.usage
    return u.input_tokens + u.cache_read_tokens + u.cache_write_tokens


def llm_calls(t: Transcript) -> int:
    return t.usage.calls or t.turns
