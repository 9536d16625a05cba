"""The best-practice case loader.

The authoring guide's evaluation is `{"skills": [...], "query": "...", "files": [...],
"expected_behavior": [...]}`; people also write a JSON list of such objects, or wrap them as
`scenarios` under a `name`, `description` and `grading: {pass_threshold, ...}`. The guide
defines no runner: each case here is `query` as the prompt, every expected behaviour a binary
judge item, `files` staged from the skill's folder (a missing one is a warning: nothing in the
guide checks them, and the case runs without it). `grading.pass_threshold` is the share of
behaviours a run must meet; without it every behaviour must hold.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.formats.placement import inside
from evolve_action.model.evals import (
    Case,
    Fixture,
    Format,
    JudgeItem,
    LoadResult,
    Origin,
    Problem,
    Scale,
    Severity,
    Skill,
    Suite,
    SuitePolicy,
)
from evolve_action.util.text import json_kind

At = tuple[str | int, ...]
CASE_KEYS = frozenset({"skills", "query", "files", "expected_behavior", "id", "name"})
NOT_MINE = (
    "not read: a JSON file without `query` and `expected_behavior` is not a best-practice"
    " evaluation; nothing runs from it and no check fails for it"
)


def cases_of(data: Any) -> list[tuple[At, Any]] | None:
    """Where the case objects are, or None when the document is not of this format."""
    found: list[tuple[At, Any]]
    if isinstance(data, dict) and isinstance(data.get("scenarios"), list):
        found = [(("scenarios", i), s) for i, s in enumerate(data["scenarios"])]
    elif isinstance(data, dict):
        found = [((), data)]
    elif isinstance(data, list):
        found = [((i,), s) for i, s in enumerate(data)]
    else:
        return None
    ours = [
        c for c in found if isinstance(c[1], dict) and {"query", "expected_behavior"} <= set(c[1])
    ]
    return found if ours else None


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    found = cases_of(doc.data)
    if found is None:
        notice = Problem(Origin(doc.rel, doc.line()), NOT_MINE, Severity.NOTICE)
        return LoadResult(doc.rel, None, None, (notice,))
    problems = Problems(doc)
    skill = _skill(doc, ctx, problems)
    cases: list[Case] = []
    for at, raw in found:
        mark = problems.mark()
        case = _case(doc, at, raw, skill, ctx, problems)
        left_out = problems.demote_since(mark, "this case is not run; the file's other cases run")
        cases += [case] if case is not None and not left_out else []
    if not cases and not problems.has_errors:
        problems.not_run((), "no case reads: each needs a `query` and `expected_behavior`")
        return LoadResult(doc.rel, Format.BEST_PRACTICE, None, tuple(problems.items))
    suite = Suite(
        format=Format.BEST_PRACTICE, path=doc.path, rel=doc.rel, skill=skill, cases=tuple(cases),
        name=_name(doc), policy=SuitePolicy(threshold=_threshold(doc.data)),
        warnings=problems.warnings(),
    )  # fmt: skip
    return problems.result(Format.BEST_PRACTICE, suite)


def _case(
    doc: Document, at: At, raw: Any, skill: Skill, ctx: LoadContext, problems: Problems
) -> Case | None:
    if not isinstance(raw, dict):
        problems.error(
            at, f"a case is an object with query and expected_behavior, not {json_kind(raw)}"
        )
        return None
    query = raw.get("query")
    if not isinstance(query, str) or not query.strip():
        problems.error((*at, "query"), "must be the user's request, a non-empty string")
        return None
    for key in raw:
        if key not in CASE_KEYS:
            problems.warn((*at, key), f"unknown key {key!r} is ignored")
    behaviours = raw.get("expected_behavior")
    said = [behaviours] if isinstance(behaviours, str) else behaviours
    if not isinstance(said, list) or not said:
        problems.error((*at, "expected_behavior"), "must be a statement or a list of them")
        return None
    items = [
        JudgeItem(f"behavior-{j + 1}", text.strip(), problems.origin(*at, "expected_behavior", j),
                  Scale.BINARY, source="expected_behavior")
        for j, text in enumerate(said) if isinstance(text, str) and text.strip()
    ]  # fmt: skip
    if not items:
        problems.error((*at, "expected_behavior"), "holds no statement to judge")
        return None
    ident = raw.get("id") or raw.get("name") or (f"{doc.path.stem}" + (f"-{at[-1]}" if at else ""))
    files = _files(doc, at, raw.get("files"), skill, ctx, problems)
    origin = problems.origin(*at)
    return Case(id=str(ident), prompt=query.strip(), origin=origin, items=tuple(items), files=files)


def _files(
    doc: Document, at: At, raw: Any, skill: Skill, ctx: LoadContext, problems: Problems
) -> tuple[Fixture, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        problems.warn((*at, "files"), f"must be a list of paths, not {json_kind(raw)}; ignored")
        return ()
    root = ctx.root.resolve()
    bases = [b for b in (skill.dir, doc.path.parent, root) if b is not None]
    out: list[Fixture] = []
    for j, rel in enumerate(raw):
        where = (*at, "files", j)
        if not isinstance(rel, str):
            continue
        source = next(
            (b / rel for b in bases if (b / rel).is_file() and inside(b / rel, root)), None
        )
        if source is None:
            problems.warn(
                where,
                f"{rel!r} is not a file of the skill or the repository; the case"
                " runs without it (nothing in the guide checks it)",
            )
            continue
        out.append(Fixture(source.absolute(), Path(rel).name, problems.origin(*where)))
    return tuple(out)


def _skill(doc: Document, ctx: LoadContext, problems: Problems) -> Skill:
    data = doc.data
    named = data.get("skills") if isinstance(data, dict) else None
    if isinstance(data, list) and data and isinstance(data[0], dict):
        named = data[0].get("skills")
    names = [n for n in named if isinstance(n, str)] if isinstance(named, list) else []
    if not names or ctx.skill.name in names:
        return ctx.skill
    if len(names) > 1:
        problems.warn(("skills",), f"names {len(names)} skills; {names[0]} is the skill under test")
    for folder in (ctx.root / "skills" / names[0], ctx.root / ".claude/skills" / names[0]):
        if (folder / "SKILL.md").is_file():
            return Skill(names[0], folder)
    return ctx.skill


def _name(doc: Document) -> str:
    data = doc.data
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) else doc.path.stem


def _threshold(data: Any) -> float | None:
    grading = data.get("grading") if isinstance(data, dict) else None
    value = grading.get("pass_threshold") if isinstance(grading, dict) else None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value) / 100 if value > 1 else float(value)
    return None
