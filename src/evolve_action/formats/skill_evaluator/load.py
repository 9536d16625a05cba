"""Load skill-evaluator's extended `evals/evals.json` (seed `skill-evaluator-schemas.md`).

The file sits inside the skill directory and extends skill-creator's evals.json with
`eval_config`, per-eval `structural_expectations` (deterministic checks, some `critical`) and
`quality_rubric` dimensions scored 1-5 by the judge. The verdict policy
(`scoring/skill_evaluator.py`) reads `Suite.policy`: `structural_gate`, `rubric_threshold`,
`baseline_comparison`.

Fixture staging and guided conversations: `skill_evaluator_input.py`; structural
expectations and rubric dimensions: `skill_evaluator_items.py`. `baseline_comparison: true`
turns on the no-skill arm for the file under `baseline: auto` (`plan.no_skill`).
"""

from __future__ import annotations

from typing import Any

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.formats.skill_evaluator.input import Staging, task_prompt
from evolve_action.formats.skill_evaluator.items import (
    At,
    Fields,
    rubric_items,
    structural_check,
)
from evolve_action.model.evals import (
    Case,
    Format,
    Item,
    JudgeItem,
    LoadResult,
    Problem,
    Suite,
    SuitePolicy,
)
from evolve_action.util.text import json_kind

RUBRIC_THRESHOLD = 0.6  # a run's normalized rubric must reach this (docs/design.md §Pass rate)
_MARKERS = ("structural_expectations", "quality_rubric", "rubric")


def matches(data: Any) -> bool:
    """True when a parsed evals.json uses skill-evaluator's extensions (for the dispatcher)."""
    if not isinstance(data, dict):
        return False
    if "eval_config" in data:
        return True
    evals = data.get("evals")
    return isinstance(evals, list) and any(
        isinstance(e, dict) and any(k in e for k in _MARKERS) for e in evals
    )


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    p = Problems(doc)
    data = doc.data
    if not isinstance(data, dict):
        p.error((), f"expected an object with an evals list, not {json_kind(data)}")
        return LoadResult(doc.rel, Format.SKILL_EVALUATOR, None, tuple(p.items))
    top = Fields(p, data, ())
    skill_name = top.text("skill_name")
    if skill_name and skill_name != ctx.skill.name:
        p.warn(
            ("skill_name",),
            f"skill_name {skill_name!r} differs from the skill {ctx.skill.name!r};"
            " the skill directory decides",
        )
    runs, judge_model, policy = _config(p, data)
    cases = _cases(p, data, Staging(doc, ctx))
    problems = tuple(p.items)
    if p.has_errors:
        return LoadResult(doc.rel, Format.SKILL_EVALUATOR, None, problems)
    suite = Suite(
        format=Format.SKILL_EVALUATOR,
        path=doc.path,
        rel=doc.rel,
        skill=ctx.skill,
        cases=tuple(cases),
        name=skill_name or "",
        runs=runs,
        judge_model=judge_model,
        policy=SuitePolicy.from_doc(policy),
        warnings=problems,
    )
    return LoadResult(doc.rel, Format.SKILL_EVALUATOR, suite, problems)


def _config(p: Problems, data: dict[str, Any]) -> tuple[int | None, str | None, dict[str, Any]]:
    """`eval_config` → (runs, judge model, verdict policy)."""
    policy: dict[str, Any] = {
        "structural_gate": True,
        "rubric_threshold": RUBRIC_THRESHOLD,
        "baseline_comparison": False,
    }
    raw = data.get("eval_config")
    if raw is None:
        return None, None, policy
    at: At = ("eval_config",)
    if not isinstance(raw, dict):
        p.error(at, f"must be an object, not {json_kind(raw)}")
        return None, None, policy
    f = Fields(p, raw, at)
    runs = raw.get("runs_per_eval")
    if runs is not None and (isinstance(runs, bool) or not isinstance(runs, int) or runs < 1):
        p.error((*at, "runs_per_eval"), f"must be a whole number >= 1, not {runs!r}")
        runs = None
    policy["structural_gate"] = f.flag("structural_gate", True)
    policy["baseline_comparison"] = f.flag("baseline_comparison", False)
    judge_model = f.text("judge_model")
    return runs, judge_model or None, policy


def _cases(p: Problems, data: dict[str, Any], staging: Staging) -> list[Case]:
    evals = data.get("evals")
    if not isinstance(evals, list) or not evals:
        what = "missing" if evals is None else f"{json_kind(evals)}, not a list of evals"
        if isinstance(evals, list):
            what = "empty"
        p.error(("evals",), f"evals is {what}: list the evals, each with an id and a prompt")
        return []
    cases: list[Case] = []
    seen: dict[str, int | None] = {}
    for i, raw in enumerate(evals):
        at: At = ("evals", i)
        if not isinstance(raw, dict):
            p.error(at, f"an eval must be an object, not {json_kind(raw)}")
            continue
        case_id = _case_id(p, raw, at)
        if case_id is not None and case_id in seen:
            first = seen[case_id]
            where = f" (first at line {first})" if first else ""
            p.error((*at, "id"), f"duplicate eval id {case_id!r}{where}: ids must be unique")
        elif case_id is not None:
            seen[case_id] = p.doc.line(*at)
        case = _case(p, raw, at, staging, case_id)
        if case is not None:
            cases.append(case)
    return cases


def _case(
    p: Problems, raw: dict[str, Any], at: At, staging: Staging, case_id: str | None
) -> Case | None:
    f = Fields(p, raw, at)
    prompt, extra = task_prompt(p, f)
    items = _items(p, raw, at)
    files = staging.stage(p, raw.get("files"), (*at, "files"))
    skip = f.strings("skip_providers") or ()
    if case_id is None or prompt is None or items is None or files is None:
        return None
    if not items:
        p.warn(at, "nothing is graded: add structural_expectations or a quality_rubric")
    return Case(
        id=case_id,
        prompt=prompt,
        origin=p.origin(*at),
        name=f.text("name") or "",
        expected_output=f.text("expected_output") or "",
        files=files,
        items=items,
        skip_providers=frozenset(skip),
        max_turns=_positive(p, raw, at, "max_turns", int),
        timeout_seconds=_positive(p, raw, at, "timeout_seconds", float),
        extra=extra,
    )


def _case_id(p: Problems, raw: dict[str, Any], at: At) -> str | None:
    value = raw.get("id")
    if value is None:
        p.error(at, "id is required: give each eval a unique integer or string id")
        return None
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).strip():
        p.error((*at, "id"), f"must be a non-empty string or an integer, not {value!r}")
        return None
    return str(value)


def _positive(p: Problems, raw: dict[str, Any], at: At, key: str, cast: type) -> Any:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        p.error((*at, key), f"must be a positive number, not {value!r}")
        return None
    if cast is int and not float(value).is_integer():
        p.error((*at, key), f"must be a whole number, not {value!r}")
        return None
    return cast(value)


def _items(p: Problems, raw: dict[str, Any], at: At) -> tuple[Item, ...] | None:
    """Structural checks, then skill-creator expectations, then rubric dimensions."""
    reported = p.errors
    items: list[Item] = []
    structural = raw.get("structural_expectations")
    if structural is not None:
        key = (*at, "structural_expectations")
        if not isinstance(structural, list):
            p.error(key, f"must be a list of structural expectations, not {json_kind(structural)}")
        else:
            for i, entry in enumerate(structural):
                check = structural_check(p, entry, (*key, i), i)
                if check is not None:
                    items.append(check)
    items.extend(_expectations(p, raw, at))
    if "quality_rubric" in raw and "rubric" in raw:
        p.error((*at, "rubric"), "give the rubric once: quality_rubric or its alias rubric")
    else:
        name = "rubric" if "rubric" in raw else "quality_rubric"
        if raw.get(name) is not None:
            items.extend(rubric_items(p, raw[name], (*at, name)))
    _unique_ids(p, items)
    return None if p.errors > reported else tuple(items)


def _expectations(p: Problems, raw: dict[str, Any], at: At) -> list[JudgeItem]:
    """skill-creator `expectations` (or `assertions`): statements the judge passes or fails."""
    out: list[JudgeItem] = []
    for name in ("expectations", "assertions"):
        value = raw.get(name)
        if value is None:
            continue
        if not isinstance(value, list):
            p.error((*at, name), f"must be a list of statements, not {json_kind(value)}")
            continue
        for i, entry in enumerate(value):
            here = (*at, name, i)
            text = entry if isinstance(entry, str) else _statement(entry)
            if text is None or not text.strip():
                p.error(here, "must be a statement string (or an object with text)")
                continue
            out.append(
                JudgeItem(
                    id=f"E{len(out) + 1}",
                    text=text,
                    origin=p.origin(*here),
                    source="expectation",
                )
            )
    return out


def _statement(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return None
    for key in ("text", "description", "name"):
        if isinstance(entry.get(key), str):
            return str(entry[key])
    return None


def _unique_ids(p: Problems, items: list[Item]) -> None:
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            message = (
                f"duplicate id {item.id!r}: structural ids, expectation ids and rubric"
                " dimension names must be unique within an eval"
            )
            p.add(Problem(item.origin, message))
        seen.add(item.id)
