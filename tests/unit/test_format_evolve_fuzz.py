"""Whatever an author writes, the evolve and trigger loaders answer with problems, never a crash."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from evolve_action.formats.base import LoadContext
from evolve_action.formats.documents import Document
from evolve_action.formats.evolve import load as evolve
from evolve_action.formats.evolve import triggers as triggers
from evolve_action.model.evals import LoadResult, Severity, Skill

KEYS = st.sampled_from(
    [
        "id",
        "prompt",
        "files",
        "expectations",
        "assertions",
        "type",
        "path",
        "pattern",
        "run",
        "tool",
        "text",
        "expect_exit",
        "max_turns",
        "models",
        "evals",
        "triggers",
        "query",
        "should_trigger",
        "skip_providers",
        "Prompt",
        "x",
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "x", "regex", "llm", "(", "../up", "files/a", "evals/b", "/abs"]),
)
JSONISH = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)


ROOT = Path("/nonexistent-evolve-fuzz")  # loaders only read; fixtures there are "not found"


def loaded(module: Any, data: Any) -> LoadResult:
    doc = Document(path=ROOT / "evals.json", rel="evals/s/evals.json", data=data)
    result: LoadResult = module.load(doc, LoadContext(root=ROOT, skill=Skill("s", None)))
    return result


def consistent(result: LoadResult) -> None:
    errors = [p for p in result.problems if p.severity is Severity.ERROR]
    assert (result.suite is None) == bool(errors)
    for problem in result.problems:
        assert problem.message and problem.origin.path == "evals/s/evals.json"


@settings(max_examples=150, deadline=None)
@given(data=st.one_of(JSONISH, st.fixed_dictionaries({"evals": st.lists(JSONISH, max_size=3)})))
def test_evals_loader_never_crashes(data: Any) -> None:
    consistent(loaded(evolve, data))


@settings(max_examples=100, deadline=None)
@given(data=st.one_of(JSONISH, st.fixed_dictionaries({"triggers": st.lists(JSONISH, max_size=3)})))
def test_trigger_loader_never_crashes(data: Any) -> None:
    consistent(loaded(triggers, data))
