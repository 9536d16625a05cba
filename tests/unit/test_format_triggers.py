"""Trigger sets: evolve's triggers.* and skill-creator's trigger-eval.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evolve_action.formats.base import LoadContext
from evolve_action.formats.documents import read
from evolve_action.formats.evolve import triggers as triggers
from evolve_action.formats.evolve.params import TriggerParams
from evolve_action.model.evals import CaseKind, Format, LoadResult, Severity, Skill, Suite


def load(tmp_path: Path, text: str, name: str = "triggers.json") -> LoadResult:
    path = tmp_path / name
    path.write_text(text)
    ctx = LoadContext(root=tmp_path, skill=Skill("greeter", tmp_path / "skills" / "greeter"))
    return triggers.load(read(path, f"evals/greeter/{name}"), ctx)


def load_data(tmp_path: Path, data: Any) -> LoadResult:
    return load(tmp_path, json.dumps(data, indent=2))


def suite_of(result: LoadResult) -> Suite:
    assert result.ok, [p.render() for p in result.problems]
    assert result.suite is not None
    return result.suite


def test_evolve_envelope_becomes_trigger_cases(tmp_path: Path) -> None:
    data = {
        "skill_name": "greeter",
        "triggers": [
            {"query": "Say hello to Ana", "should_trigger": True},
            {"query": "Write a haiku", "should_trigger": False},
        ],
    }
    suite = suite_of(load_data(tmp_path, data))
    assert suite.format is Format.TRIGGERS and not suite.warnings
    first, second = suite.cases
    assert (first.id, first.prompt, first.kind, first.should_trigger) == (
        "Say hello to Ana",
        "Say hello to Ana",
        CaseKind.TRIGGER,
        True,
    )
    [check] = first.checks
    assert check.kind == "triggers.fired"
    assert check.params == TriggerParams("greeter", True)
    assert check.text == "skill greeter fires"
    assert second.checks[0].text == "skill greeter does not fire"
    assert (first.origin.line, first.origin.pointer) == (4, "triggers[0]")


def test_skill_creator_list(tmp_path: Path) -> None:
    data = [
        {"query": "tidy my desktop", "should_trigger": True},
        {"query": "hi", "should_trigger": False},
    ]
    suite = suite_of(load(tmp_path, json.dumps(data), "trigger-eval.json"))
    assert [c.should_trigger for c in suite.cases] == [True, False]
    assert suite.cases[1].origin.pointer == "[1]"


def test_yaml_yes_stays_a_string_and_gets_a_hint(tmp_path: Path) -> None:
    text = "triggers:\n  - query: hello\n    should_trigger: yes\n"
    result = load(tmp_path, text, "triggers.yaml")
    [error] = result.errors
    assert error.field == "triggers[0].should_trigger" and error.origin.line == 3
    assert "'yes' is a string, not a boolean; write true or false" in error.message


@pytest.mark.parametrize(
    ("entry", "field", "message"),
    [
        ({"query": "", "should_trigger": True}, "triggers[1].query", "empty query"),
        ({"should_trigger": True}, "triggers[1]", "empty query"),
        ({"query": 3, "should_trigger": True}, "triggers[1].query", "must be a string"),
        ({"query": "a"}, "triggers[1]", "missing should_trigger"),
        ({"query": "a", "should_trigger": 1}, "triggers[1].should_trigger", "true or false"),
        ("just a query", "triggers[1]", "must be an object"),
    ],
)
def test_bad_entries(tmp_path: Path, entry: Any, field: str, message: str) -> None:
    data = {"triggers": [{"query": "ok", "should_trigger": True}, entry]}
    result = load_data(tmp_path, data)
    assert result.suite is None
    [error] = result.errors
    assert error.field == field and message in error.message


def test_duplicate_queries_are_errors(tmp_path: Path) -> None:
    data = {
        "triggers": [
            {"query": "q", "should_trigger": True},
            {"query": "q", "should_trigger": False},
        ]
    }
    [error] = load_data(tmp_path, data).errors
    assert error.field == "triggers[1].query"
    assert "duplicate query (first at triggers[0], line 3)" in error.message


def test_every_problem_is_reported(tmp_path: Path) -> None:
    data = {"triggers": [{"query": ""}, {"query": "a", "should_trigger": "no"}]}
    assert len(load_data(tmp_path, data).errors) == 3


def test_skill_name_mismatch_warns(tmp_path: Path) -> None:
    data = {"skill_name": "other", "triggers": [{"query": "q", "should_trigger": True}]}
    [warning] = suite_of(load_data(tmp_path, data)).warnings
    assert (
        warning.severity is Severity.WARNING and "does not match skill directory" in warning.message
    )


def test_skip_providers_is_honoured(tmp_path: Path) -> None:
    data = {"triggers": [{"query": "q", "should_trigger": True, "skip_providers": ["openai"]}]}
    assert suite_of(load_data(tmp_path, data)).cases[0].skip_providers == frozenset({"openai"})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"evals": []}, "this looks like an evals file"),
        ({"triggers": {"q": True}}, "must be a list of queries"),
        ({}, 'missing the "triggers" list'),
        (42, "not a trigger set"),
    ],
)
def test_wrong_shapes(tmp_path: Path, data: Any, message: str) -> None:
    result = load_data(tmp_path, data)
    assert result.suite is None and message in result.errors[0].message


def test_an_empty_set_warns(tmp_path: Path) -> None:
    suite = suite_of(load_data(tmp_path, {"triggers": []}))
    assert suite.cases == () and "no trigger queries" in suite.warnings[0].message


def test_corpus_trigger_sets_load(tmp_path: Path, corpus_dir: Path) -> None:
    files = sorted(corpus_dir.glob("*/*trigger*.json"))
    assert len(files) >= 3
    for source in files:
        suite = suite_of(load(tmp_path, source.read_text(), source.name))
        assert len(suite.cases) >= 10
        assert {c.should_trigger for c in suite.cases} == {True, False}


def test_field_names_match_regardless_of_case_as_in_evolve(tmp_path: Path) -> None:
    data = {"Triggers": [{"Query": "q", "Should_Trigger": True}]}
    suite = suite_of(load_data(tmp_path, data))
    assert [(c.id, c.should_trigger) for c in suite.cases] == [("q", True)]
    assert len(suite.warnings) == 3
