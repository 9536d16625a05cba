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

from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.graders.fields import At, js_regex
from evolve_action.formats.graders.params import SkillInvocation
from evolve_action.formats.promptfoo.params import LimitParams, ScriptParams, TextParams
from evolve_action.formats.trajectory import matchers
from evolve_action.model.evals import Check, Item, JudgeItem, JudgeParams, Scale
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


def _one(problems: Problems, at: At, raw: Any, number: str) -> Item | None:
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
    origin = problems.origin(*at)
    value = raw.get("value")
    common: dict[str, Any] = {"weight": float(weight), "group": kind, "source": "assert"}
    if kind in ("skill-used", "not-skill-used"):
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            problems.error((*at, "value"), "must name a skill (or a list of skills)")
            return None
        bare = [n.rpartition(":")[2] for n in names]
        skills = (
            SkillInvocation(required=tuple(bare))
            if kind == "skill-used"
            else SkillInvocation(disallowed=tuple(bare))
        )
        return Check(
            item_id,
            "vally.skill-invocation",
            f"{kind} {', '.join(names)}",
            origin,
            skills,
            **common,
        )
    if kind in COMPARATIVE:
        problems.warn(
            (*at, "type"),
            f"not applied: {kind} picks among several providers' outputs;"
            " here the PR's base and head are compared instead",
        )
        return None
    if kind in ("cost", "latency"):
        if threshold is None:
            problems.error((*at, "threshold"), f"{kind} needs a threshold (dollars / milliseconds)")
            return None
        return Check(
            item_id,
            f"promptfoo.{kind}",
            f"{kind} ≤ {threshold:g}",
            origin,
            LimitParams(float(threshold)),
            **common,
        )
    if kind.removeprefix("not-") in matchers.KINDS:
        found = matchers.parse(kind, value)
        if isinstance(found, str):
            problems.error((*at, "value"), f"{kind}: {found}")
            return None
        said = matchers.describe(kind, found)
        return Check(item_id, "promptfoo.trajectory", said, origin, found, **common)
    negate = kind.startswith("not-")
    base = kind.removeprefix("not-")
    if base in TEXT:
        return _text(problems, at, item_id, base, negate, value, origin, common)
    if kind == "javascript":
        if not isinstance(value, str) or not value.strip():
            problems.error((*at, "value"), "must be the JavaScript to run")
            return None
        params = ScriptParams(value, None if threshold is None else float(threshold))
        return Check(
            item_id, "promptfoo.javascript", f"javascript {item_id}", origin, params, **common
        )
    if kind == "llm-rubric":
        if not isinstance(value, str) or not value.strip():
            problems.error((*at, "value"), "must be the rubric the judge grades by")
            return None
        scale = Scale.UNIT if threshold is not None else Scale.BINARY
        rubric_params = JudgeParams(threshold=None if threshold is None else float(threshold))
        return JudgeItem(
            item_id, value.strip(), origin, scale, kind="rubric", params=rubric_params, **common
        )
    why = UNSUPPORTED.get(base, "is not supported here yet")
    problems.error((*at, "type"), f"assertion {kind!r} {why}")
    return None


def _text(
    problems: Problems, at: At, item_id: str, base: str, negate: bool, value: Any,
    origin: Any, common: dict[str, Any],
) -> Check | None:  # fmt: skip
    if base == "is-json":
        params = TextParams(base, negate)
    elif base.endswith(("-any", "-all")):
        said = [value] if isinstance(value, str) else value
        if not isinstance(said, list) or not said or not all(isinstance(v, str) for v in said):
            problems.error((*at, "value"), "must be a list of strings")
            return None
        params = TextParams(base, negate, values=tuple(said))
    else:
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            problems.error((*at, "value"), f"must be text, not {json_kind(value)}")
            return None
        text = str(value)
        if base == "regex":
            text, why = js_regex(text)
            if why is not None:
                problems.error((*at, "value"), why)
                return None
        params = TextParams(base, negate, value=text)
    said = "not " if negate else ""
    shown: str | list[str] = list(params.values) if params.values else params.value
    return Check(
        item_id, "promptfoo.text", f"{said}{base} {shown!r}".rstrip(" '"), origin, params, **common
    )
