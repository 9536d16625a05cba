"""Load trigger sets: evolve's `triggers.{json,jsonc,yaml,yml}` and skill-creator's
`trigger-eval.json`.

evolve writes `{skill_name?, triggers: [{query, should_trigger}]}`; skill-creator writes the
bare list. Each query becomes one TRIGGER case whose id is the query itself (evolve keys its
results by query, so duplicates would collide) and whose one check, `triggers.fired`, asks
whether the skill fired. Across runs a query passes on a hit rate ≥ 0.5 when it should
trigger and < 0.5 when it should not; that rule lives with the statistics, not here.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document, pointer
from evolve_action.formats.evolve.assertions import fold
from evolve_action.formats.evolve.params import TriggerParams
from evolve_action.model.evals import Case, CaseKind, Check, Format, LoadResult, Suite

SHAPE = (
    'a trigger set is {"triggers": [{"query": "...", "should_trigger": true}]} (evolve) or a'
    ' list of {"query", "should_trigger"} objects (skill-creator trigger-eval.json)'
)
BOOL_WORDS = ("yes", "no", "on", "off", "y", "n", "true", "false", "1", "0")


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    problems = Problems(doc)
    suite = _suite(doc, ctx, problems)
    return problems.result(Format.TRIGGERS, suite)


def fired_text(skill: str, should_trigger: bool) -> str:
    return f"skill {skill} {'fires' if should_trigger else 'does not fire'}"


def _suite(doc: Document, ctx: LoadContext, problems: Problems) -> Suite | None:
    data = doc.data
    if isinstance(data, dict):
        data = fold(problems, (), data, ("skill_name", "triggers"))
    located = _queries(data, problems)
    if located is None:
        return None
    at, queries = located
    skill = ctx.skill.name
    name = ""
    if isinstance(data, dict):
        name = _skill_name(data.get("skill_name"), skill, problems)
    seen: dict[str, int] = {}
    cases = []
    for i, raw in enumerate(queries):
        case = _case((*at, i), raw, skill, seen, problems)
        if case is not None:
            cases.append(case)
    if not queries:
        problems.warn(at, "no trigger queries: add some, or remove the file")
    warnings = problems.warnings()
    return Suite(
        format=Format.TRIGGERS,
        path=doc.path.absolute(),
        rel=doc.rel,
        skill=ctx.skill,
        cases=tuple(cases),
        name=name,
        warnings=warnings,
    )


def _query_list(value: Any) -> TypeGuard[list[Any]]:
    """A non-empty list of `{query, should_trigger}` objects: a skill-creator set's queries."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(x, dict) and "query" in x and "should_trigger" in x for x in value)
    )


def _queries(data: Any, problems: Problems) -> tuple[tuple[str | int, ...], list[Any]] | None:
    if isinstance(data, list):
        return (), data
    if not isinstance(data, dict):
        problems.error((), f"the document is not a trigger set; {SHAPE}")
        return None
    triggers = data.get("triggers")
    wrapped = data.get("evals")
    # skill-creator sets in the wild: {skill_name, version, evals: [{query, ...}]}
    if triggers is None and _query_list(wrapped):
        return ("evals",), wrapped
    if triggers is None and isinstance(data.get("queries"), list) and "skills_under_test" in data:
        problems.error(
            ("queries",),
            "this set routes queries between skills (`expected_skill`); skill-creator reads one"
            " skill's set, and so does evolve-action: write a trigger-eval.json per skill, with"
            " should_trigger true for its own queries and false for the others'",
        )
        return None
    queries = data.get("queries")
    # skill-creator sets in the wild: {skill_name, queries: [{query, should_trigger}]}
    if triggers is None and _query_list(queries):
        return ("queries",), queries
    if triggers is None:
        hint = " (this looks like an evals file: name it evals.json)" if "evals" in data else ""
        problems.error((), f'missing the "triggers" list{hint}; {SHAPE}')
        return None
    if not isinstance(triggers, list):
        problems.error(("triggers",), f"must be a list of queries; {SHAPE}")
        return None
    return ("triggers",), triggers


def _skill_name(value: Any, directory: str, problems: Problems) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        problems.error(("skill_name",), "must be a string naming the skill")
        return ""
    if directory and value != directory:
        problems.warn(
            ("skill_name",),
            f"skill_name {value} does not match skill directory {directory};"
            " the directory name is used",
        )
    return value


def _case(
    at: tuple[str | int, ...], raw: Any, skill: str, seen: dict[str, int], problems: Problems
) -> Case | None:
    if not isinstance(raw, dict):
        problems.error(at, 'must be an object {"query": "...", "should_trigger": true}')
        return None
    raw = fold(problems, at, raw, ("query", "should_trigger", "skip_providers"))
    query = raw.get("query")
    ok = True
    if not isinstance(query, str) or not query.strip():
        where = (*at, "query") if "query" in raw else at
        message = "empty query" if query is None or isinstance(query, str) else "must be a string"
        problems.error(where, message)
        ok = False
    elif query in seen:
        problems.error(
            (*at, "query"),
            f"duplicate query (first at {pointer(*at[:-1], seen[query]) or 'the top'},"
            f" line {problems.doc.line(*at[:-1], seen[query])}); queries key the results,"
            " so each must be unique",
        )
        ok = False
    else:
        seen[query] = int(at[-1])
    should = _should_trigger(at, raw, problems)
    if not ok or should is None:
        return None
    assert isinstance(query, str)
    check = Check(
        id="fired",
        kind="triggers.fired",
        text=fired_text(skill, should),
        origin=problems.origin(*at),
        params=TriggerParams(skill, should),
        source="trigger",
    )
    return Case(
        id=query,
        prompt=query,
        origin=problems.origin(*at),
        kind=CaseKind.TRIGGER,
        items=(check,),
        should_trigger=should,
        skip_providers=_providers(at, raw.get("skip_providers"), problems),
    )


def _should_trigger(
    at: tuple[str | int, ...], raw: dict[str, Any], problems: Problems
) -> bool | None:
    value = raw.get("should_trigger")
    if isinstance(value, bool):
        return value
    if value is None:
        problems.error(at, "missing should_trigger: write true or false")
    elif isinstance(value, str) and value.strip().lower() in BOOL_WORDS:
        problems.error(
            (*at, "should_trigger"),
            f"{value!r} is a string, not a boolean; write true or false (unquoted)",
        )
    else:
        problems.error((*at, "should_trigger"), "must be true or false")
    return None


def _providers(at: tuple[str | int, ...], value: Any, problems: Problems) -> frozenset[str]:
    if value is None:
        return frozenset()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.error((*at, "skip_providers"), 'must be a list of provider ids, e.g. ["openai"]')
        return frozenset()
    return frozenset(v.strip() for v in value if v.strip())
