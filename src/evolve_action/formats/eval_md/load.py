"""The `*.eval.md` loader: the text of `<prompt>…</prompt>` is the case's prompt, the text of
`<expectation>…</expectation>` one binary judge item. A Markdown file without both blocks is
not an eval of this convention (a notice)."""

from __future__ import annotations

import re

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.model.evals import (
    Case,
    Format,
    JudgeItem,
    LoadResult,
    Origin,
    Problem,
    Scale,
    Severity,
    Suite,
)

_BLOCK = {
    tag: re.compile(rf"<{tag}>(.*?)</{tag}>", re.DOTALL | re.IGNORECASE)
    for tag in ("prompt", "expectation")
}
NOT_MINE = (
    "not read: a .eval.md without a <prompt> and an <expectation> block is not an eval of this"
    " convention; nothing runs from it and no check fails for it"
)


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    body = doc.data.get("body", "") if isinstance(doc.data, dict) else ""
    found = {tag: rx.search(body) for tag, rx in _BLOCK.items()}
    prompt, expectation = found["prompt"], found["expectation"]
    if prompt is None or expectation is None:
        notice = Problem(Origin(doc.rel, 1), NOT_MINE, Severity.NOTICE)
        return LoadResult(doc.rel, None, None, (notice,))
    problems = Problems(doc)
    origin = Origin(doc.rel, body[: prompt.start()].count("\n") + 1)
    item = JudgeItem("expectation", expectation.group(1).strip(), origin, Scale.BINARY,
                     source="expectation")  # fmt: skip
    name = doc.path.name.removesuffix(".eval.md")
    case = Case(id=name, prompt=prompt.group(1).strip(), origin=origin, name=name, items=(item,))
    if not case.prompt or not item.text:
        problems.error((), "the <prompt> and <expectation> blocks must not be empty")
        return LoadResult(doc.rel, Format.EVAL_MD, None, tuple(problems.items))
    suite = Suite(format=Format.EVAL_MD, path=doc.path, rel=doc.rel, skill=ctx.skill,
                  cases=(case,), name=name)  # fmt: skip
    return LoadResult(doc.rel, Format.EVAL_MD, suite, tuple(problems.items))
