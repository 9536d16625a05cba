"""Vally's `tool-calls` grader over the run's trajectory: every `required` match called (at
least `min_count` times; the last call when `final`), no `disallowed` match called, and the
`sequence` called in that relative order, others allowed between (`formats/trajectory/`).
Binary, as Vally's static graders are here, with each broken condition in the evidence; a
broken sequence shows the expected and observed calls and where they part."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evolve_action.formats.graders.params import ToolCalls, ToolMatch
from evolve_action.formats.trajectory.calls import run_trajectory
from evolve_action.formats.trajectory.order import in_order, sequence
from evolve_action.formats.trajectory.wants import Naming, Want, name_test
from evolve_action.model.checking import CheckContext, params_of, register
from evolve_action.model.evals import Check
from evolve_action.model.outcomes import ItemResult
from evolve_action.model.trajectory import OBSERVED, ToolStep
from evolve_action.util.regex import RegexError, compile_re2


def _result(check: Check, passed: bool | None, evidence: str) -> ItemResult:
    score = None if passed is None else float(passed)
    return ItemResult(
        check.id, check.text, passed, evidence, score=score, kind=check.kind, source=check.source
    )


@register("vally.tool-calls", ToolCalls)
async def tool_calls(check: Check, ctx: CheckContext) -> ItemResult:
    if not ctx.reports_tool_calls:
        return _result(check, None, "this transcript does not record tool calls")
    p = params_of(check, ToolCalls)
    steps = run_trajectory(ctx).steps
    try:
        required = [(m, want(m)) for m in p.required]
        disallowed = [want(m) for m in p.disallowed]
        ordered = [want(m) for m in p.sequence]
    except RegexError as exc:
        return _result(check, False, f"invalid regex: {exc}")
    failures = [f for m, w in required if (f := _required(m, w, steps))]
    for w in disallowed:
        hits = [s.index for s in steps if w(s)]
        if hits:
            failures.append(f"disallowed {w.label} called (call {', '.join(map(str, hits[:5]))})")
    if ordered:
        order = in_order(ordered, steps)
        if not order.passed:
            failures.append(order.evidence)  # last: its parting point ends the evidence
    if failures:
        return _result(check, False, "; ".join(failures))
    return _result(check, True, f"all tool-calls conditions hold{OBSERVED}{_seen(steps)}")


def _required(m: ToolMatch, w: Want, steps: tuple[ToolStep, ...]) -> str:
    hits = [s for s in steps if w(s)]
    if len(hits) < m.min_count:
        return f"required {w.label}: {len(hits)} matching call(s), wanted at least {m.min_count}"
    if m.final and not w(steps[-1]):
        return f"required {w.label} is not the last call (the last is {steps[-1].label})"
    return ""


def want(m: ToolMatch) -> Want:
    """The match as a test of one step; its regexes compile here (RegexError if one is bad)."""
    names = name_test(m.name, Naming.REGEX)
    fields = [(("command",), m.command), (("path", "file_path"), m.path)]
    fields += [((k,), v) for k, v in m.args]
    tests = [(keys, compile_re2(v)) for keys, v in fields if v]
    result = compile_re2(m.result) if m.result else None

    def test(step: ToolStep) -> bool:
        if not any(names(form) for form in step.forms):
            return False
        args = step.arguments if isinstance(step.arguments, Mapping) else {}
        if not all(any(_found(rx, args.get(k)) for k in keys) for keys, rx in tests):
            return False
        return result is None or result.search(step.result) is not None

    return Want(label(m), test)


def _found(rx: Any, value: Any) -> bool:
    if value is None:
        return False
    return rx.search(value if isinstance(value, str) else repr(value)) is not None


def label(m: ToolMatch) -> str:
    bare = m.name.removeprefix("^").removesuffix("$")
    extra = [f"{k}~{v}" for k, v in (("command", m.command), ("path", m.path), *m.args) if v]
    return f"{bare}({', '.join(extra)})" if extra else bare


def _seen(steps: tuple[ToolStep, ...]) -> str:
    return sequence([s.label for s in steps])
