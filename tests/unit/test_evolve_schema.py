"""Our JSON Schemas for evolve evals and trigger sets: valid draft 2020-12, at least as permissive
as evolve's own schema (the seed), and in agreement with the corpus."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from evolve_action.formats.documents import read

ROOT = Path(__file__).resolve().parents[2]
EVALS = json.loads((ROOT / "schemas" / "evolve-evals.schema.json").read_text())
TRIGGERS = json.loads((ROOT / "schemas" / "evolve-triggers.schema.json").read_text())
OURS = Draft202012Validator(EVALS)
OURS_TRIGGERS = Draft202012Validator(TRIGGERS)

NON_CONFORMING = (
    "0vulns__ad-takeover-skill__evals__evals.json",
    "paolopasca__diet-optimizer__evals__evals.json",
)


@pytest.fixture(scope="module")
def seed(shared_dir: Path) -> Draft202012Validator:
    schema = json.loads((shared_dir / "seeds" / "evolve-evals.schema.json").read_text())
    # evolve's common.schema.json is not among the seeds; its evalId is string-or-integer.
    common = {"$defs": {"evalId": {"type": ["string", "integer"]}}}
    base = schema["$id"].rsplit("/", 1)[0]
    registry: Registry[Any] = Registry().with_resource(
        f"{base}/common.schema.json", Resource.from_contents(common, default_specification=_spec())
    )
    return Draft202012Validator(schema, registry=registry)


def _spec() -> Any:
    from referencing.jsonschema import DRAFT202012

    return DRAFT202012


def test_schemas_are_valid_draft_2020_12() -> None:
    Draft202012Validator.check_schema(EVALS)
    Draft202012Validator.check_schema(TRIGGERS)


def test_corpus_evals_files_validate(corpus_dir: Path) -> None:
    files = sorted(corpus_dir.glob("evolve/*evals.*")) + sorted(
        corpus_dir.glob("skill-creator/*evals.json")
    )
    checked = 0
    for path in files:
        data = read(path, path.name).data
        errors = [e.message for e in OURS.iter_errors(data)]
        if path.name in NON_CONFORMING:
            assert errors, path.name
        else:
            assert not errors, (path.name, errors[:3])
            checked += 1
    assert checked >= 15


def test_corpus_trigger_sets_validate(corpus_dir: Path) -> None:
    for path in sorted(corpus_dir.glob("*/*trigger*.json")):
        assert OURS_TRIGGERS.is_valid(read(path, path.name).data), path.name


SEED_VALID = [
    {"evals": []},
    {"evals": [{"id": 1, "prompt": "p", "expectations": ["e"]}]},
    {"evals": [{"id": "a", "prompt": "p", "assertions": ["bare"]}], "models": "anything"},
    {
        "$schema": "x",
        "skill_name": "s",
        "extra": [1, 2],
        "evals": [
            {
                "id": "x",
                "prompt": "p",
                "files": ["files/a.txt"],
                "max_turns": 3,
                "timeout_seconds": 60,
                "allowed_tools": "Read",
                "skip_providers": ["openai"],
                "assertions": [
                    {"type": "file_exists", "path": "a"},
                    {"type": "file_absent", "path": "b"},
                    {"type": "regex", "pattern": "x", "path": "a"},
                    {"type": "not_regex", "pattern": "y"},
                    {
                        "type": "command",
                        "run": "true",
                        "cwd": "sub",
                        "requires": "sh",
                        "expect_exit": 0,
                    },
                    {"type": "tool_call", "tool": "^Bash$", "pattern": "go"},
                    {"type": "llm", "text": "t", "note": "extra keys are fine"},
                ],
            }
        ],
    },
]


@pytest.mark.parametrize("doc", SEED_VALID)
def test_seed_valid_documents_validate(seed: Draft202012Validator, doc: Any) -> None:
    assert seed.is_valid(doc)
    assert OURS.is_valid(doc)


def test_example_documents_are_rejected_where_evolve_rejects_them() -> None:
    bad = [
        {"evals": [{"id": True, "prompt": "p", "expectations": ["e"]}]},
        {"evals": [{"id": 1.5, "prompt": "p", "expectations": ["e"]}]},
        {"evals": [{"id": 1, "prompt": "p", "files": {"a": "b"}, "expectations": ["e"]}]},
        {"evals": [{"id": 1, "prompt": "p", "assertions": [{"type": "regexp", "pattern": "x"}]}]},
        {"evals": [{"id": 1, "prompt": "p", "assertions": [{"type": "command"}]}]},
        {"evals": [{"id": 1, "expectations": ["e"]}]},
        [{"id": 1}],
    ]
    for doc in bad:
        assert not OURS.is_valid(doc), doc


def test_trigger_schema_rejects_string_booleans() -> None:
    assert OURS_TRIGGERS.is_valid({"triggers": [{"query": "q", "should_trigger": True}]})
    assert OURS_TRIGGERS.is_valid([{"query": "q", "should_trigger": False}])
    assert not OURS_TRIGGERS.is_valid({"triggers": [{"query": "q", "should_trigger": "yes"}]})
    assert not OURS_TRIGGERS.is_valid([{"query": "", "should_trigger": True}])


def test_the_example_plugin_validates() -> None:
    example = ROOT / "examples" / "demo-plugin" / "evals"
    evals = sorted(example.glob("*/evals.*"))
    triggers = sorted(example.glob("*/triggers.*"))
    assert evals and triggers
    for path in evals:
        assert OURS.is_valid(read(path, path.name).data), path
    for path in triggers:
        assert OURS_TRIGGERS.is_valid(read(path, path.name).data), path


# Random documents built from the fields both schemas know, with values of every JSON type:
# whatever the seed accepts, ours must accept too.
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 3),
    st.floats(allow_nan=False, width=16),
    st.sampled_from(["", "x", "files/a.txt"]),
)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=2), max_leaves=4)
TYPES = st.sampled_from(
    ["file_exists", "file_absent", "regex", "not_regex", "command", "tool_call", "llm", "other"]
)
ASSERTION = st.one_of(
    st.sampled_from(["", "statement"]),
    st.fixed_dictionaries(
        {"type": TYPES},
        optional={k: VALUES for k in ("path", "pattern", "run", "tool", "text", "expect_exit")},
    ),
)
EVAL = st.fixed_dictionaries(
    {},
    optional={
        "id": VALUES,
        "prompt": VALUES,
        "name": VALUES,
        "files": st.one_of(VALUES, st.lists(st.sampled_from(["a", "files/b"]), max_size=2)),
        "expectations": st.one_of(VALUES, st.lists(st.sampled_from(["", "e"]), max_size=2)),
        "assertions": st.one_of(VALUES, st.lists(ASSERTION, max_size=3)),
        "max_turns": VALUES,
        "models": VALUES,
    },
)
DOC = st.fixed_dictionaries(
    {}, optional={"evals": st.lists(EVAL, max_size=3), "skill_name": VALUES, "models": VALUES}
)


@settings(max_examples=300, deadline=None)
@given(doc=DOC)
def test_ours_is_at_least_as_permissive_as_the_seed(seed: Draft202012Validator, doc: Any) -> None:
    if seed.is_valid(doc):
        assert OURS.is_valid(doc), [e.message for e in OURS.iter_errors(doc)]
