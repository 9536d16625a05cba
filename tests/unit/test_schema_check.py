"""The compiled schema check must say "valid" exactly when jsonschema does.

A check that accepted what jsonschema rejects would let a tampered results file through, so
besides the keyword-by-keyword cases, a real results.json is mutated at every node (another
type, a value out of range, a member missing or added) and both are asked about each copy.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from evolve_action.publish.results.load import schema_path, validate
from evolve_action.publish.results.write import write_results
from evolve_action.publish.schema_check import UnsupportedSchema, compile_schema, json_equal
from tests.unit.test_results import _data

Path_ = tuple[str | int, ...]


def agree(schema: dict[str, Any], *instances: Any) -> None:
    check = compile_schema(schema)
    reference = jsonschema.Draft202012Validator(schema)
    for instance in instances:
        assert check(instance) == reference.is_valid(instance), instance


ENUM = {"enum": [1, "a", None, True, [1, 2], {"k": 0}]}
ENUM_TRIES = [1, 1.0, True, False, "a", None, [1, 2], [1.0, 2], [2, 1], {"k": 0}, {"k": False}]
REQUIRED = {"required": ["a"], "properties": {"a": {"type": "string"}}}
NESTED = {"anyOf": [{"type": "null"}, {"items": {"$ref": "#/$defs/n"}}]}
RECURSIVE = {"$defs": {"n": NESTED}, "$ref": "#/$defs/n"}


@pytest.mark.parametrize(
    ("schema", "instances"),
    [
        ({"type": "integer"}, [1, 1.0, 1.5, True, "1", None, 10**30, 1e300]),
        ({"type": "number"}, [1, 1.5, True, False, "1", None]),
        ({"type": ["string", "null"]}, ["", None, 0, [], {}]),
        ({"type": "boolean"}, [True, False, 0, 1, None]),
        (ENUM, ENUM_TRIES),
        ({"enum": [False]}, [False, 0, 0.0, None]),
        ({"const": 0}, [0, 0.0, False, None, "0"]),
        ({"minimum": 0, "maximum": 1}, [0, 1, -1, 2, 0.5, True, "x", None]),
        ({"exclusiveMinimum": 0, "exclusiveMaximum": 1}, [0, 1, 0.5, -0.0, True]),
        (REQUIRED, [{"a": "x"}, {"a": 1}, {}, [], "a"]),
        ({"properties": {"a": {}}, "additionalProperties": False}, [{"a": 1}, {"b": 1}, {}]),
        ({"additionalProperties": {"type": "integer"}}, [{"a": 1}, {"a": "x"}, {}]),
        ({"propertyNames": {"enum": ["a", "b"]}}, [{"a": 1}, {"c": 1}, {}, [1]]),
        ({"items": {"type": "string"}}, [["a"], ["a", 1], [], {"0": 1}]),
        ({"anyOf": [{"type": "string"}, {"minimum": 3}]}, ["x", 4, 2, None]),
        (RECURSIVE, [None, [None], [[None]], [[1]], 1]),
        ({"anyOf": [True, False]}, [1, None]),
        ({"title": "annotations only", "description": "none of them constrains"}, [1, None]),
    ],
)
def test_each_keyword_agrees_with_jsonschema(schema: dict[str, Any], instances: list[Any]) -> None:
    agree(schema, *instances)


@pytest.mark.parametrize(
    "schema",
    [
        {"patternProperties": {"^a": {}}},
        {"not": {"type": "null"}},
        {"$ref": "other.json#/x"},
        {"$ref": "#/$defs/missing"},
        {"type": "decimal"},
        {"properties": {"a": {"format": "date"}}},
    ],
)
def test_a_keyword_it_does_not_implement_is_refused_not_ignored(schema: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedSchema):
        compile_schema(schema)


def test_json_equal_keeps_booleans_apart_from_numbers() -> None:
    assert json_equal(1, 1.0) and json_equal([1, {"a": 2}], [1.0, {"a": 2.0}])
    assert not json_equal(True, 1) and not json_equal(0, False) and not json_equal("1", 1)


# --- a real results.json, mutated node by node -----------------------------------------------


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("schema")
    write_results(tmp / "out", _data(tmp))
    return trim(json.loads((tmp / "out/results.json").read_text()))


def trim(value: Any) -> Any:
    """At most two members of every list: the others have the same shape, and cost time."""
    if isinstance(value, dict):
        return {key: trim(member) for key, member in value.items()}
    if isinstance(value, list):
        return [trim(member) for member in value[:2]]
    return value


def nodes(value: Any, path: Path_ = ()) -> Iterator[Path_]:
    yield path
    if isinstance(value, dict):
        for key, member in value.items():
            yield from nodes(member, (*path, key))
    elif isinstance(value, list):
        for index, member in enumerate(value):
            yield from nodes(member, (*path, index))


REPLACEMENTS = [None, True, 0, -1, 2, 1.5, "x", "fail", [], {}, [None], {"zz": 1}]


def mutants(doc: dict[str, Any]) -> Iterator[Any]:
    for path in nodes(doc):
        parent: Any = None
        target: Any = doc
        for step in path:
            parent, target = target, target[step]
        for replacement in REPLACEMENTS:
            if parent is not None:
                yield path, replacement
        if isinstance(parent, dict):
            yield path, "<delete>"
        if isinstance(target, dict):
            yield path, "<add>"
        if isinstance(target, list):
            yield path, "<append>"


def mutated(doc: dict[str, Any], path: Path_, change: Any) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    *head, last = path or (None,)
    parent: Any = out
    for step in head:
        parent = parent[step]
    if change == "<delete>":
        del parent[last]
    elif change == "<add>":
        (parent[last] if path else out)["unexpected"] = 1
    elif change == "<append>":
        parent[last].append({"unexpected": 1})
    else:
        parent[last] = change
    return out


def test_the_results_schema_compiles() -> None:
    compile_schema(json.loads(schema_path().read_text()))


def test_mutated_results_files_get_the_same_answer_as_from_jsonschema(
    document: dict[str, Any],
) -> None:
    schema = json.loads(schema_path().read_text())
    check = compile_schema(schema)
    reference = jsonschema.Draft202012Validator(schema)
    assert check(document) and reference.is_valid(document)
    changes = list(mutants(document))  # about 6,000; a fixed sample keeps this to seconds
    rejected = 0
    for path, change in random.Random(17).sample(changes, 1000):
        doc = mutated(document, path, change)
        expected = reference.is_valid(doc)
        assert check(doc) == expected, (path, change)
        rejected += not expected
    assert rejected > 400  # the mutations do reach the schema's rules


def test_validate_names_the_first_problem_as_before(document: dict[str, Any]) -> None:
    doc = copy.deepcopy(document)
    doc["runs"][0]["status"] = "$(curl evil)"
    with pytest.raises(Exception, match=r"at /runs/0/status: '\$\(curl evil\)' is not one of"):
        validate(doc)
    validate(document)
