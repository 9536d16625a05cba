"""The skill-test-action loader: `skill: <plugin>:<skill>`, `model`, `tests: [{id, prompt,
should_trigger, expected_tools, notes}]`. Each test is a trigger case (does the skill fire for
the prompt). `expected_tools` and `model` are not applied (warned); `agent:` tests a subagent
through the Task tool, which is not a skill: such a file is not run (warned)."""

from __future__ import annotations

from typing import Any

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.formats.evolve.params import TriggerParams
from evolve_action.model.evals import (
    Case,
    CaseKind,
    Check,
    Format,
    LoadResult,
    Origin,
    Problem,
    Severity,
    Skill,
    Suite,
)
from evolve_action.util.text import json_kind

NOT_MINE = (
    "not read: a skill-tests.yaml without `skill:` (or `agent:`) and `tests:` is not"
    " skill-test-action's; nothing runs from it and no check fails for it"
)
TEST_KEYS = frozenset({"id", "prompt", "should_trigger", "expected_tools", "notes"})


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    data = doc.data
    if not isinstance(data, dict) or not ({"skill", "agent"} & set(data)) or "tests" not in data:
        notice = Problem(Origin(doc.rel, doc.line()), NOT_MINE, Severity.NOTICE)
        return LoadResult(doc.rel, None, None, (notice,))
    problems = Problems(doc)
    if "agent" in data and "skill" not in data:
        lead = Problem(Origin(doc.rel, doc.line("agent")), "not run: `agent:` tests a subagent"
                       " through the Task tool, not a skill", Severity.WARNING)  # fmt: skip
        return LoadResult(doc.rel, Format.SKILL_TESTS, None, (lead,))
    if "model" in data:
        problems.warn(("model",), "model is not applied: the action's `models` input decides")
    skill = _skill(data.get("skill"), ctx)
    tests = data.get("tests")
    if not isinstance(tests, list) or not tests:
        problems.error(("tests",), f"must be a list of tests, not {json_kind(tests)}")
        tests = []
    cases: list[Case] = []
    for i, raw in enumerate(tests):
        mark = problems.mark()
        case = _case(problems, i, raw, skill.name)
        left_out = problems.demote_since(mark, "this test is not run; the file's other tests run")
        cases += [case] if case is not None and not left_out else []
    if tests and not cases and not problems.has_errors:
        problems.not_run(("tests",), "no test reads (below, why)")
        return LoadResult(doc.rel, Format.SKILL_TESTS, None, tuple(problems.items))
    suite = Suite(
        format=Format.SKILL_TESTS, path=doc.path, rel=doc.rel, skill=skill, cases=tuple(cases),
        name=skill.name,
        warnings=problems.warnings(),
    )  # fmt: skip
    return problems.result(Format.SKILL_TESTS, suite)


def _case(problems: Problems, i: int, raw: Any, skill: str) -> Case | None:
    at = ("tests", i)
    if not isinstance(raw, dict):
        problems.error(at, f"a test is a mapping, not {json_kind(raw)}")
        return None
    prompt, should = raw.get("prompt"), _flag(raw.get("should_trigger"))
    if not isinstance(prompt, str) or not prompt.strip() or not isinstance(should, bool):
        problems.error(at, "a test needs a `prompt` and `should_trigger: true|false`")
        return None
    for key in raw:
        if key not in TEST_KEYS:
            problems.warn((*at, key), f"unknown test key {key!r} is ignored")
    if "expected_tools" in raw:
        problems.warn((*at, "expected_tools"), "expected_tools is not checked here: a trigger"
                      " case asks only whether the skill fired")  # fmt: skip
    given = raw.get("id")
    ident = given if isinstance(given, str) and given.strip() else f"test-{i + 1}"
    origin = problems.origin(*at)
    said = f"skill {skill} {'fires' if should else 'does not fire'}"
    check = Check("fired", "triggers.fired", said, origin, TriggerParams(skill, should),
                  source="trigger")  # fmt: skip
    return Case(id=ident, prompt=prompt.strip(), origin=origin, kind=CaseKind.TRIGGER,
                items=(check,), should_trigger=should)  # fmt: skip


def _skill(named: Any, ctx: LoadContext) -> Skill:
    """`<plugin>:<skill>`: the skill's name is after the colon; its folder the SKILL.md
    discovery found beside the file, when its name agrees."""
    name = named.rpartition(":")[2].strip() if isinstance(named, str) else ""
    if not name or name == ctx.skill.name:
        return ctx.skill
    return Skill(name, ctx.skill.dir, ctx.skill.plugin, ctx.skill.plugin_dir)


def _flag(value: Any) -> Any:
    """`should_trigger` as YAML or a quoted word wrote it: "true" / "false" read as the flag."""
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return value
