"""agentv `composite` graders: children parsed like any grader list, and their aggregator.

Children sit under `assertions` (AgentV 4) or `evaluators` (AgentV 2). Aggregators: the spec's
weighted_average, minimum, maximum, safety_gate, all_or_nothing, and AgentV 4's `threshold`
(the share of children that pass); script and LLM aggregators, which see every child's
result, are rejected with a reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from evolve_action.formats.agentv.common import At, Src, mapping, number, string_list
from evolve_action.formats.agentv.rubrics import Rubric
from evolve_action.formats.agentv.types import kind_of_type
from evolve_action.model.evals import Origin

MAX_COMPOSITE_DEPTH = 16  # deeper trees are a mistake, and would exhaust Python's stack
CHILD_KEYS = ("assertions", "evaluators")  # a composite's children: AgentV 4's name, then 2's
AGGREGATORS = (
    "weighted_average",
    "threshold",
    "minimum",
    "maximum",
    "safety_gate",
    "all_or_nothing",
)


@dataclass(frozen=True)
class Evaluator:
    name: str
    type: str  # normalized: an agentv_types kind, a text kind folded to its rule, skill_used
    origin: Origin
    weight: float = 1.0
    required: float | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    rubrics: tuple[Rubric, ...] = ()
    children: tuple[Evaluator, ...] = ()
    aggregator: Mapping[str, Any] | None = None
    template: str | None = None  # llm_judge prompt, read from its file when it names one
    negate: bool = False  # AgentV 4: the score is inverted (1 - score), pass and fail swap


ParseList = Callable[[Src, At, Any], tuple[Evaluator, ...]]


def composite(
    src: Src, at: At, ev: dict[str, Any], base: Evaluator, parse_list: ParseList
) -> Evaluator | None:
    """A composite grader: its children (under `assertions`, or AgentV 2's `evaluators`) and
    how their scores combine."""
    if sum(at.count(k) for k in CHILD_KEYS) > MAX_COMPOSITE_DEPTH:
        src.error(at, f"composites nest more than {MAX_COMPOSITE_DEPTH} levels deep; flatten them")
        return None
    written = [k for k in CHILD_KEYS if k in ev]
    if len(written) > 1:
        src.error((*at, written[1]), "both `assertions` and `evaluators` list children; keep one")
        return None
    key = written[0] if written else "assertions"
    if ev.get(key) in (None, []):
        where = (*at, key) if written else at
        src.error(where, "a composite needs its child graders under `assertions:`")
        return None
    children = parse_list(src, (*at, key), ev[key])
    if not children:
        return None
    aggregator = _aggregator(src, (*at, "aggregator"), ev.get("aggregator"), children)
    if aggregator is None:
        return None
    return dataclasses.replace(base, children=children, aggregator=aggregator)


def _aggregator(
    src: Src, at: At, value: Any, children: tuple[Evaluator, ...]
) -> dict[str, Any] | None:
    if value is None:
        return {"type": "weighted_average", "weights": {}, "required": [], "threshold": None}
    agg = mapping(src, at, value)
    if agg is None:
        return None
    kind = agg.get("type")
    scripted = isinstance(kind, str) and kind_of_type(kind) in ("code_judge", "llm_judge")
    if scripted or kind in ("script", "llm"):
        src.error(
            (*at, "type"),
            f"{kind} aggregators are not supported yet; use one of {', '.join(AGGREGATORS)}",
        )
        return None
    if kind not in AGGREGATORS:
        src.error(
            (*at, "type"), f"unknown aggregator {kind!r}; use one of {', '.join(AGGREGATORS)}"
        )
        return None
    names = {c.name for c in children}
    weights: dict[str, float] = {}
    for name, weight in (mapping(src, (*at, "weights"), agg.get("weights", {})) or {}).items():
        got = number(src, (*at, "weights", name), weight, lo=0.0)
        if name not in names:
            src.error((*at, "weights", name), f"no child evaluator is named {name!r}")
        elif got is not None:
            weights[name] = got
    required = string_list(src, (*at, "required"), agg.get("required", [])) or []
    for name in required:
        if name not in names:
            src.error((*at, "required"), f"no child evaluator is named {name!r}")
    if kind == "safety_gate" and not required:
        src.error((*at, "required"), "safety_gate needs `required:`, the children that gate")
    threshold = None
    if "threshold" in agg:
        threshold = number(src, (*at, "threshold"), agg["threshold"], lo=0.0, hi=1.0)
    elif kind == "threshold":
        src.error(at, "a threshold aggregator needs `threshold:`, the share of children that pass")
    return {"type": kind, "weights": weights, "required": required, "threshold": threshold}
