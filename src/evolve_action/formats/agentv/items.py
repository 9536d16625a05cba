"""A case's evaluator specs → its checks, judge items and group tree.

Every evaluator becomes a group named by its path (`release_gate/safety` inside a composite).
Leaves hold the items; `Case.extra.groups` lists every group in authored order with its
weight, `required` floor and (for composites) aggregator, which is all the verdict policy
needs to rebuild the tree from the flat item list.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from evolve_action.formats.agentv.common import At, Src, fmt_num
from evolve_action.formats.agentv.composite import Evaluator
from evolve_action.formats.agentv.kinds import typed
from evolve_action.formats.agentv.rubrics import Rubric
from evolve_action.formats.agentv.template import RUN_VARIABLES, render, variables_in
from evolve_action.model.evals import Check, Item, ItemGroup, JudgeItem, JudgeParams, Scale


@dataclass(frozen=True)
class CaseInfo:
    """What judge prompts and field checks of one case may refer to."""

    outcome: str
    question: str
    reference: str
    expected_data: Any  # the structured expected output, when there is one
    note: str = ""
    expected_messages: tuple[dict[str, Any], ...] = ()
    input_messages: tuple[dict[str, Any], ...] = ()
    input_text: str = ""  # AgentV 4's `{{ input }}`: the text, or a role-prefixed conversation
    metadata: Any = None


@dataclass
class Built:
    items: list[Item] = field(default_factory=list)
    groups: list[ItemGroup] = field(default_factory=list)


def build(
    src: Src, case_at: At, evaluators: tuple[Evaluator, ...], info: CaseInfo, *, default: bool
) -> Built:
    """`default`: with no evaluators, grade against the expected outcome (AgentV)."""
    built = Built()
    for ev in evaluators:
        _add(src, case_at, ev, "", info, built)
    if not evaluators and default:
        _default(src, case_at, info, built)
    return built


def _default(src: Src, case_at: At, info: CaseInfo, built: Built) -> None:
    """No evaluator and no rubric: the judge grades the answer against the expected outcome,
    else (AgentV 4, criteria optional) against the expected output."""
    if info.outcome.strip():
        words = f"The answer achieves the expected outcome: {info.outcome.strip()}"
    elif info.reference.strip():
        words = "The answer agrees with the reference answer (shown as context)"
    else:
        src.error(
            case_at,
            "nothing grades this case: add `criteria:` (or expected_outcome), expected_output,"
            " rubrics, or assertions",
        )
        return
    built.groups.append(_group("default", "llm_judge", 1.0, None, None))
    built.items.append(
        JudgeItem(
            id="default",
            text=words,
            origin=src.origin(case_at),
            scale=Scale.UNIT,
            kind="freeform",
            group="default",
            source="llm_judge",
        )
    )


def _group(
    path: str,
    kind: str,
    weight: float,
    required: float | None,
    aggregator: Any,
    *,
    negate: bool = False,  # AgentV 4: the grader's score counts as 1 - score
) -> ItemGroup:
    agg = dict(aggregator) if aggregator is not None else None
    return ItemGroup(path, kind, weight, required, agg, negate)


def _add(src: Src, case_at: At, ev: Evaluator, parent: str, info: CaseInfo, built: Built) -> None:
    path = f"{parent}/{ev.name}" if parent else ev.name
    built.groups.append(
        _group(path, ev.type, ev.weight, ev.required, ev.aggregator, negate=ev.negate)
    )
    if ev.type == "composite":
        for child in ev.children:
            _add(src, case_at, child, path, info, built)
    elif ev.type == "rubric":
        built.items.extend(_rubric_item(r, path) for r in ev.rubrics)
    elif ev.type == "llm_judge":
        built.items.append(_freeform(ev, path, info))
    else:
        check = _check(src, case_at, ev, path, info)
        if check is not None:
            built.items.append(check)


def _rubric_item(rubric: Rubric, path: str) -> JudgeItem:
    # Keyed by the band's lower bound (numeric keys sort as scales do); the text says where
    # the band ends.
    anchors = {
        str(b.lo): b.text if b.lo == b.hi else f"{b.text} (scores {b.lo}-{b.hi})"
        for b in rubric.bands
    }
    return JudgeItem(
        id=f"{path}/{rubric.id}",
        text=_rubric_text(rubric),
        origin=rubric.origin,
        scale=Scale.RANGE10 if rubric.bands else Scale.BINARY,
        kind="rubric",
        weight=rubric.weight,
        required=rubric.required,
        anchors=anchors,
        params=JudgeParams(
            rubric_id=rubric.id,
            score_ranges=tuple((b.lo, b.hi, b.text) for b in rubric.bands),
            operator=rubric.operator,
        ),
        group=path,
        source="rubric",
    )


def _rubric_text(rubric: Rubric) -> str:
    if rubric.operator == "correctness":
        return f"The answer states this correctly: {rubric.text}"
    if rubric.operator == "contradiction":
        return f"The answer does not contradict this: {rubric.text}"
    return rubric.text


def _freeform(ev: Evaluator, path: str, info: CaseInfo) -> JudgeItem:
    needs: list[str] = []
    if ev.template is None:
        words = f"The answer achieves the expected outcome: {info.outcome.strip()}"
    else:
        words = render(ev.template, _variables(info)).strip()
        needs = sorted(variables_in(ev.template) & set(RUN_VARIABLES))
    return JudgeItem(
        id=path,
        text=words,
        origin=ev.origin,
        scale=Scale.UNIT,
        kind="freeform",
        weight=ev.weight,
        required=ev.required,
        params=JudgeParams(
            template=ev.template or "",
            needs=tuple(needs),
            prompt_file=str(ev.params.get("prompt_file", "")),
        ),
        group=path,
        source="llm_judge",
    )


def _variables(info: CaseInfo) -> dict[str, str]:
    """Every case variable of every generation (agentv_template.CASE_VARIABLES)."""
    metadata = info.metadata
    return {
        "input": info.input_text or info.question,
        "expected_output": info.reference,
        "criteria": info.outcome,
        "metadata": "" if metadata is None else json.dumps(metadata, indent=2, ensure_ascii=False),
        "metadata_json": "" if metadata is None else json.dumps(metadata, ensure_ascii=False),
        "rubrics": "",  # a prompt with rubrics grades them item by item instead (agentv_evaluators)
        "rubrics_json": "",
        "question": info.question,
        "expected_outcome": info.outcome,
        "reference_answer": info.reference,
        "note": info.note,
        "expected_messages": json.dumps(list(info.expected_messages), ensure_ascii=False),
        "input_messages": json.dumps(list(info.input_messages), ensure_ascii=False),
    }


def _check(src: Src, case_at: At, ev: Evaluator, path: str, info: CaseInfo) -> Check | None:
    extra: dict[str, Any] = {}
    if ev.type == "field_accuracy":
        if not isinstance(info.expected_data, dict):
            src.error(
                case_at,
                f"evaluator {path!r} (field_accuracy) compares fields with an expected_output"
                " object; give this case one",
            )
            return None
        extra["expected"] = info.expected_data
    return Check(
        id=path,
        kind=f"agentv.{ev.type}",
        text=describe(ev),
        origin=ev.origin,
        params=ev.params["trajectory"]
        if ev.type == "trajectory"
        else typed(ev.type, {**ev.params, **extra}),
        weight=ev.weight,
        required=ev.required,
        group=path,
        source=ev.type,
    )


def describe(ev: Evaluator) -> str:
    """The stable one-line text results show for a deterministic evaluator."""
    p = ev.params
    if ev.type == "code_judge":
        command = p.get("command") or " ".join(p.get("argv", []))
        return f"{ev.name}: script `{_short(command)}` scores the answer"
    if ev.type == "tool_trajectory":
        if p["mode"] == "subset":
            allowed = ", ".join(sorted({c["tool"] for c in p["expected"]})) or "none"
            return f"{ev.name}: the agent calls only these tools: {allowed}"
        if p["mode"] == "superset":
            calls = ", ".join(c["tool"] for c in p["expected"])
            return f"{ev.name}: the agent calls each of these tools: {calls}"
        if p["expected"] and p["mode"] != "any_order":
            calls = " → ".join(c["tool"] for c in p["expected"])
            return f"{ev.name}: tool calls {p['mode'].replace('_', ' ')}: {calls}"
        wanted = p["minimums"] or {c["tool"]: 1 for c in p["expected"]}
        counts = ", ".join(f"{tool} ×{n}" for tool, n in wanted.items())
        return f"{ev.name}: tool calls at least {counts}"
    if ev.type == "field_accuracy":
        names = ", ".join(f["path"] for f in p["fields"])
        return f"{ev.name}: answer JSON fields match the expected output ({_short(names)})"
    if ev.type == "execution_metrics":
        limits = [f"{k.removeprefix('max_')} ≤ {fmt_num(v)}" for k, v in p["limits"].items()]
        if "exploration" in p:
            e = p["exploration"]
            limits.append(f"exploration ratio {e['target']} ± {e['tolerance']}")
        return f"{ev.name}: within limits ({', '.join(limits)})"
    if ev.type == "trajectory":  # its matchers' module: only for a file that has one
        from evolve_action.formats.trajectory import matchers

        return f"{ev.name}: {matchers.describe(ev.type, p['trajectory'])}"
    if ev.type == "skill_used":
        verb = "uses" if p["should_trigger"] else "does not use"
        return f"{ev.name}: the agent {verb} the skill {p['skill']!r}"
    return f"{ev.name}: answer {_text_rule(ev.type, p)}"


def _text_rule(kind: str, p: Any) -> str:
    no = bool(p.get("negate"))
    if kind == "regex":
        return f"{'does not match' if no else 'matches'} /{p['pattern']}/"
    if kind == "is_json":
        return f"is {'not ' if no else ''}valid JSON"
    values = ", ".join(repr(v) for v in p["values"])
    case = " (any case)" if p["ignore_case"] else ""
    if kind == "equals":
        return f"{'does not equal' if no else 'equals'} {values}{case}"
    if kind == "starts_with":
        return f"{'does not start' if no else 'starts'} with {values}{case}"
    if kind == "ends_with":
        return f"{'does not end' if no else 'ends'} with {values}{case}"
    quantifier = "any of " if p["mode"] == "any" and len(p["values"]) > 1 else ""
    return f"{'does not contain' if no else 'contains'} {quantifier}{values}{case}"


def _short(words: str, limit: int = 100) -> str:
    return words if len(words) <= limit else words[: limit - 1] + "…"
