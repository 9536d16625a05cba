"""promptfoo assertions as checks and judge items.

`skill-used` / `not-skill-used` (a name or a list) become skill-invocation checks; the text
assertions (`contains`, `icontains`, `contains-any`, `contains-all`, `icontains-any`,
`icontains-all`, `equals`, `starts-with`, `regex`, `is-json`, and their `not-` forms) are
`promptfoo.text` checks; `javascript` runs confined in `node` with promptfoo's `output` and
`context` (`vars`, `prompt`, `providerResponse.metadata.toolCalls`); `cost` and `latency`
hold the run's cost (dollars) and duration (milliseconds) to their `threshold`; `llm-rubric`
is a judge item (pass/fail, or a 0-1 score against its `threshold`); `select-best` and
`max-score` choose among providers and are not applied (warned). A test passes when every assertion
passes, or, with a test `threshold`, when the weighted score reaches it. Other types are
rejected, each with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.graders.fields import At, js_regex
from evolve_action.formats.graders.params import SkillInvocation
from evolve_action.formats.promptfoo.params import LimitParams, ScriptParams, TextParams
from evolve_action.formats.trajectory import matchers
from evolve_action.model.evals import Check, Item, JudgeItem, JudgeParams, Origin, Scale
from evolve_action.util.text import json_kind

TEXT = frozenset(
    {"contains", "icontains", "contains-any", "contains-all", "icontains-any", "icontains-all"}
    | {"equals", "starts-with", "regex", "is-json"}
)
UNSUPPORTED = {
    "python": "runs Python in promptfoo's process; write it as a javascript assertion",
    "webhook": "calls a web hook; checks here have no network",
    "similar": "needs an embedding model; use llm-rubric",
    "model-graded-closedqa": "is not supported yet; use llm-rubric",
    "factuality": "is not supported yet; use llm-rubric",
    "g-eval": "is not supported yet; use llm-rubric",
}
# Assertions that pick among several providers' outputs: here base and head are compared.
COMPARATIVE = ("select-best", "max-score")


def skill_names(config: dict[str, Any], default: dict[str, Any], tests: list[Any]) -> list[str]:
    """Skills the provider's `skills:` and any `skill-used` assertion name, in order."""
    names = [s for s in config.get("skills") or [] if isinstance(s, str)]
    lists = [default.get("assert")] + [t.get("assert") for t in tests if isinstance(t, dict)]
    for asserts in lists:
        for a in asserts if isinstance(asserts, list) else []:
            if isinstance(a, dict) and a.get("type") == "skill-used":
                value = a.get("value")
                names += (
                    [value]
                    if isinstance(value, str)
                    else [v for v in value or [] if isinstance(v, str)]
                )
    return list(dict.fromkeys(names))


def items(problems: Problems, at: At, value: Any, prefix: str = "") -> list[Item]:
    if value is None:
        return []
    if not isinstance(value, list):
        problems.error(at, f"must be a list of assertions, not {json_kind(value)}")
        return []
    out: list[Item] = []
    for j, raw in enumerate(value):
        item = _one(problems, (*at, j), raw, f"{prefix}{j + 1}")
        if item is not None:
            out.append(item)
    return out


@dataclass(frozen=True, slots=True)
class _Assert:
    """One assertion whose `type`, `weight` and `threshold` read; what every kind's reader
    needs to build its item or say why it cannot."""

    problems: Problems
    at: At
    kind: str
    item_id: str
    origin: Origin
    value: Any
    threshold: float | None
    common: dict[str, Any]

    def bad(self, field: str, message: str) -> None:
        self.problems.error((*self.at, field), message)


def _one(problems: Problems, at: At, raw: Any, number: str) -> Item | None:
    found = _read(problems, at, raw, number)
    if found is None:
        return None
    if found.kind in _BY_KIND:
        return _BY_KIND[found.kind](found)
    base = found.kind.removeprefix("not-")
    if base in matchers.KINDS:
        return _trajectory(found)
    if base in TEXT:
        return _text(found, base)
    why = UNSUPPORTED.get(base, "is not supported here yet")
    found.bad("type", f"assertion {found.kind!r} {why}")
    return None


def _read(problems: Problems, at: At, raw: Any, number: str) -> _Assert | None:
    """The fields every assertion shares, or None after saying which is wrong."""
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        problems.error(at, "an assertion is a mapping with a `type`")
        return None
    kind: str = raw["type"]
    weight = raw.get("weight", 1)
    if isinstance(weight, bool) or not isinstance(weight, int | float) or weight < 0:
        problems.error((*at, "weight"), f"must be a number ≥ 0, not {weight!r}")
        return None
    threshold = raw.get("threshold")
    if threshold is not None and (
        isinstance(threshold, bool) or not isinstance(threshold, int | float)
    ):
        problems.error((*at, "threshold"), f"must be a number, not {threshold!r}")
        return None
    item_id = raw["metric"] if isinstance(raw.get("metric"), str) else f"{kind}-{number}"
    common: dict[str, Any] = {"weight": float(weight), "group": kind, "source": "assert"}
    limit = None if threshold is None else float(threshold)
    origin = problems.origin(*at)
    return _Assert(problems, at, kind, item_id, origin, raw.get("value"), limit, common)


def _skill_used(a: _Assert) -> Item | None:
    names = [a.value] if isinstance(a.value, str) else a.value
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        a.bad("value", "must name a skill (or a list of skills)")
        return None
    bare = tuple(n.rpartition(":")[2] for n in names)
    skills = (
        SkillInvocation(required=bare)
        if a.kind == "skill-used"
        else SkillInvocation(disallowed=bare)
    )
    said = f"{a.kind} {', '.join(names)}"
    return Check(a.item_id, "vally.skill-invocation", said, a.origin, skills, **a.common)


def _comparative(a: _Assert) -> Item | None:
    a.problems.warn(
        (*a.at, "type"),
        f"not applied: {a.kind} picks among several providers' outputs;"
        " here the PR's base and head are compared instead",
    )
    return None


def _limit(a: _Assert) -> Item | None:
    if a.threshold is None:
        a.bad("threshold", f"{a.kind} needs a threshold (dollars / milliseconds)")
        return None
    said = f"{a.kind} ≤ {a.threshold:g}"
    params = LimitParams(a.threshold)
    return Check(a.item_id, f"promptfoo.{a.kind}", said, a.origin, params, **a.common)


def _trajectory(a: _Assert) -> Item | None:
    found = matchers.parse(a.kind, a.value)
    if isinstance(found, str):
        a.bad("value", f"{a.kind}: {found}")
        return None
    said = matchers.describe(a.kind, found)
    return Check(a.item_id, "promptfoo.trajectory", said, a.origin, found, **a.common)


def _javascript(a: _Assert) -> Item | None:
    if not isinstance(a.value, str) or not a.value.strip():
        a.bad("value", "must be the JavaScript to run")
        return None
    params = ScriptParams(a.value, a.threshold)
    said = f"javascript {a.item_id}"
    return Check(a.item_id, "promptfoo.javascript", said, a.origin, params, **a.common)


def _rubric(a: _Assert) -> Item | None:
    if not isinstance(a.value, str) or not a.value.strip():
        a.bad("value", "must be the rubric the judge grades by")
        return None
    scale = Scale.UNIT if a.threshold is not None else Scale.BINARY
    params = JudgeParams(threshold=a.threshold)
    rubric = a.value.strip()
    return JudgeItem(a.item_id, rubric, a.origin, scale, kind="rubric", params=params, **a.common)


_BY_KIND: dict[str, Callable[[_Assert], Item | None]] = {
    "skill-used": _skill_used,
    "not-skill-used": _skill_used,
    **dict.fromkeys(COMPARATIVE, _comparative),
    "cost": _limit,
    "latency": _limit,
    "javascript": _javascript,
    "llm-rubric": _rubric,
}


def _text(a: _Assert, base: str) -> Check | None:
    negate = a.kind.startswith("not-")
    if base == "is-json":
        params = TextParams(base, negate)
    elif base.endswith(("-any", "-all")):
        said = [a.value] if isinstance(a.value, str) else a.value
        if not isinstance(said, list) or not said or not all(isinstance(v, str) for v in said):
            a.bad("value", "must be a list of strings")
            return None
        params = TextParams(base, negate, values=tuple(said))
    else:
        text = _text_value(a, base)
        if text is None:
            return None
        params = TextParams(base, negate, value=text)
    said = "not " if negate else ""
    shown: str | list[str] = list(params.values) if params.values else params.value
    described = f"{said}{base} {shown!r}".rstrip(" '")
    return Check(a.item_id, "promptfoo.text", described, a.origin, params, **a.common)


def _text_value(a: _Assert, base: str) -> str | None:
    """The one string a text assertion compares with (a `regex` as RE2)."""
    if not isinstance(a.value, str | int | float) or isinstance(a.value, bool):
        a.bad("value", f"must be text, not {json_kind(a.value)}")
        return None
    text = str(a.value)
    if base == "regex":
        text, why = js_regex(text)
        if why is not None:
            a.bad("value", why)
            return None
    return text
