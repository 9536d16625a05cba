"""AgentV 5 CSV test files (`tests: file://cases/x.csv`), read with promptfoo's columns: vars,
`__expected*` assertions (`type: value`, or a bare value that must equal the answer),
`__description`, `__threshold`; other `__` columns are warned about."""

from __future__ import annotations

from pathlib import Path

import pytest

from evolve_action.formats import load_all
from evolve_action.formats.agentv.csv import assertion
from evolve_action.model.evals import Severity

CSV = (
    "country,__expected,__expected2,__description,__threshold,__prefix\n"
    'France,icontains: paris,"grade: Names the capital, and only it",france,0.5,\n'
    "Japan,Tokyo,not-contains: Kyoto,japan,,Q:\n"
)


def test_rows_are_tests_with_vars_and_assertions(tmp_path: Path) -> None:
    (tmp_path / "evals/cases").mkdir(parents=True)
    (tmp_path / "evals/suite.yaml").write_text(
        "prompts: ['Capital of {{ country }}?']\ntests: file://cases/capitals.csv\n"
    )
    (tmp_path / "evals/cases/capitals.csv").write_text(CSV)
    (result,) = load_all(tmp_path)
    assert result.ok and result.suite is not None, [p.render() for p in result.problems]
    france, japan = result.suite.cases
    assert (france.id, france.prompt, japan.prompt) == (
        "france", "Capital of France?", "Capital of Japan?"
    )  # fmt: skip
    assert [(i.kind, i.text) for i in france.items][1][1] == "Names the capital, and only it"
    assert [i.kind for i in japan.items] == ["agentv.equals", "agentv.contains"]
    warned = [p.message for p in result.problems if p.severity is Severity.WARNING]
    assert warned == ["column __prefix is not read here; it is ignored"]


@pytest.mark.parametrize(
    ("cell", "parsed"),
    [
        ("contains: Paris", {"type": "contains", "value": "Paris"}),
        ("not-icontains: x", {"type": "not-icontains", "value": "x"}),
        ("llm-rubric: Is polite", "Is polite"),
        ("Paris", {"type": "equals", "value": "Paris"}),
        ("Paris: the capital", {"type": "equals", "value": "Paris: the capital"}),
        ("paris: the capital", {"type": "equals", "value": "paris: the capital"}),
    ],
)
def test_an_expected_cell(cell: str, parsed: object) -> None:
    assert assertion(cell) == parsed


def test_input_files_without_input_says_what_agentv_does(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals/data.csv").write_text("a,b\n")
    (tmp_path / "evals/t.eval.yaml").write_text(
        "tests:\n  - id: a\n    input_files: [data.csv]\n    criteria: Summarizes it\n"
    )
    (result,) = load_all(tmp_path)
    assert not result.ok
    assert "AgentV expands input_files only alongside a string input" in result.errors[0].message
