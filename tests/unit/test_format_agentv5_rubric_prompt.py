"""AgentV 5 suites write `llm-rubric` with a judge `prompt:` file and name graders `metric:`
(AgentV's own `weighted-graders` and `multi-turn-conversation` examples): read as a judge with
that prompt, named by the metric, weighted as written."""

from __future__ import annotations

from pathlib import Path

from evolve_action.formats import load_all
from evolve_action.model.evals import JudgeItem, Severity

SUITE = """\
name: weighted
prompts: ["{{ input }}"]
tests:
  - id: explain
    expected_output: Neural networks learn weights from data.
    assert:
      - metric: safety-check
        type: llm-rubric
        prompt: file://../prompts/safety.md
        weight: 3
        required: true
      - metric: style-check
        type: llm-rubric
        prompt: file://../prompts/style.md
      - The response is accurate.
    vars:
      input:
        - {role: user, content: Explain neural networks.}
"""


def test_llm_rubric_with_a_prompt_is_a_judge_named_by_its_metric(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "prompts").mkdir()
    (tmp_path / "evals/suite.yaml").write_text(SUITE)
    (tmp_path / "prompts/safety.md").write_text(
        "Is {{ output }} safe? Expected: {{ expected_output }}"
    )
    (tmp_path / "prompts/style.md").write_text("Is the answer well written?")
    (result,) = load_all(tmp_path)
    assert result.ok and result.suite is not None, [p.render() for p in result.problems]
    assert not [p for p in result.problems if p.severity is Severity.WARNING]
    items = result.suite.cases[0].items
    assert [(i.id, type(i).__name__, i.weight) for i in items] == [
        ("safety-check", "JudgeItem", 3.0),
        ("style-check", "JudgeItem", 1.0),
        ("criteria/rubric-1", "JudgeItem", 1.0),
    ]
    safety = items[0]
    assert isinstance(safety, JudgeItem) and safety.required is not None
    assert "safe?" in safety.text


def test_llm_rubric_without_criteria_or_prompt_is_still_an_error(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals/suite.yaml").write_text(
        "prompts: ['{{ input }}']\ntests:\n  - id: a\n    vars: {input: hi}\n"
        "    assert:\n      - {type: llm-rubric, metric: m}\n"
    )
    (result,) = load_all(tmp_path)
    assert not result.ok and "non-empty list of criteria" in result.errors[0].message
