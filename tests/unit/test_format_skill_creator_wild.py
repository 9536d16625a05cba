"""skill-creator files as they are written in the wild: a typed assertion object with
nothing to match, a negated statement, and a trigger set wrapped in `evals`."""

from __future__ import annotations

import json
from pathlib import Path

from evolve_action.formats import load_all
from evolve_action.model.evals import CaseKind, Format, JudgeItem, LoadResult, Severity

SKILL = "---\nname: s\ndescription: d\n---\nbody\n"


def load(tmp_path: Path, name: str, doc: object) -> LoadResult:
    (tmp_path / "skills/s/evals").mkdir(parents=True, exist_ok=True)
    (tmp_path / "skills/s/SKILL.md").write_text(SKILL)
    (tmp_path / f"skills/s/evals/{name}").write_text(json.dumps(doc))
    (result,) = load_all(tmp_path)
    return result


def test_a_typed_object_with_nothing_to_match_is_its_statement(tmp_path: Path) -> None:
    doc = {"evals": [{"id": 1, "prompt": "p", "assertions": [
        {"id": "a1", "description": "Mentions the cache", "type": "contains"}
    ]}]}  # fmt: skip
    result = load(tmp_path, "evals.json", doc)
    assert result.ok and result.suite is not None
    (item,) = result.suite.cases[0].items
    assert isinstance(item, JudgeItem) and item.text == "Mentions the cache"
    assert any("graded by the judge, as skill-creator" in p.message for p in result.problems)


def test_a_typed_object_with_a_value_is_still_refused(tmp_path: Path) -> None:
    doc = {"evals": [{"id": 1, "prompt": "p", "assertions": [
        {"type": "contains", "value": "cache", "description": "Mentions the cache"}
    ]}]}  # fmt: skip
    result = load(tmp_path, "evals.json", doc)
    assert not result.ok and 'unknown assertion type "contains"' in result.errors[0].message


def test_a_negated_statement_asks_the_judge_that_it_does_not_hold(tmp_path: Path) -> None:
    doc = {"evals": [{"id": 1, "prompt": "p", "assertions": [
        {"name": "no apology", "expected": False, "description": "The answer apologizes"}
    ]}]}  # fmt: skip
    result = load(tmp_path, "evals.json", doc)
    assert result.ok and result.suite is not None
    (item,) = result.suite.cases[0].items
    assert item.text == "The following does not hold: The answer apologizes"
    ignored = [p.message for p in result.problems if "`expected`" in p.message]
    assert ignored == []  # `expected` is read, not reported as ignored


def test_a_trigger_set_wrapped_in_evals_is_read(tmp_path: Path) -> None:
    doc = {"skill_name": "s", "version": "1.0", "evals": [
        {"query": "summarize this", "should_trigger": True},
        {"query": "what time is it", "should_trigger": False},
    ]}  # fmt: skip
    result = load(tmp_path, "trigger-eval.json", doc)
    assert result.ok and result.suite is not None and result.format is Format.TRIGGERS
    assert [(c.prompt, c.kind, c.should_trigger) for c in result.suite.cases] == [
        ("summarize this", CaseKind.TRIGGER, True),
        ("what time is it", CaseKind.TRIGGER, False),
    ]
    assert not [p for p in result.problems if p.severity is Severity.ERROR]


def test_a_routing_set_is_refused_with_what_to_write_instead(tmp_path: Path) -> None:
    doc = {"skills_under_test": ["s", "t"], "queries": [{"prompt": "p", "expected_skill": "s"}]}
    result = load(tmp_path, "trigger-eval.json", doc)
    assert not result.ok and "write a trigger-eval.json per skill" in result.errors[0].message
