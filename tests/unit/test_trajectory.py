"""`trajectory:tool-used` and `trajectory:tool-sequence` (promptfoo's, adopted by AgentV 5):
read by both loaders and checked over real tool calls with promptfoo's semantics."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from evolve_action.formats import load_all
from evolve_action.formats.trajectory import matchers
from evolve_action.formats.trajectory.calls import verdict
from evolve_action.grade.checks import CheckContext, run_check
from evolve_action.model.outcomes import ToolCall, Transcript
from evolve_action.model.trajectory import trajectory_of
from tests.fakes.commands import run_command

CALLS = ["Skill", "Read", "Read", "Write"]


@pytest.mark.parametrize(
    ("kind", "value", "held"),
    [
        ("trajectory:tool-used", "Read", True),
        ("trajectory:tool-used", ["Read", "Write"], True),
        ("trajectory:tool-used", ["Read", "Bash"], False),
        ("not-trajectory:tool-used", ["Bash", "Edit"], True),
        ("not-trajectory:tool-used", ["Bash", "Write"], False),
        ("trajectory:tool-used", {"name": "Read", "min": 2, "max": 2}, True),
        ("trajectory:tool-used", {"pattern": "R*", "max": 1}, False),
        ("trajectory:tool-sequence", ["Skill", "Write"], True),
        ("trajectory:tool-sequence", ["Write", "Skill"], False),
        ("trajectory:tool-sequence", {"mode": "exact", "steps": CALLS}, True),
        ("trajectory:tool-sequence", {"mode": "exact", "steps": ["Skill", "Write"]}, False),
    ],
)
def test_promptfoo_semantics(kind: str, value: object, held: bool) -> None:
    params = matchers.parse(kind, value)
    assert isinstance(params, matchers.Trajectory)
    assert verdict(params, trajectory_of(transcript()).steps)[0] is held


@pytest.mark.parametrize("value", [None, [], {"min": 1}, {"name": "Read", "min": "x"}, [3]])
def test_values_that_do_not_read_say_why(value: object) -> None:
    assert isinstance(matchers.parse("trajectory:tool-used", value), str)


def transcript() -> Transcript:
    return Transcript(final_text="done", tool_calls=[ToolCall(n, "{}") for n in CALLS])


def test_an_agentv_5_suite_grades_them(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals/t.eval.yaml").write_text(
        "tests:\n  - id: a\n    input: Do it\n    assert:\n"
        "      - {type: 'trajectory:tool-used', value: [Read, Write]}\n"
        "      - {type: 'trajectory:tool-sequence', value: [Write, Skill]}\n"
    )
    (result,) = load_all(tmp_path)
    assert result.ok and result.suite is not None, result.problems
    (case,) = result.suite.cases
    ctx = CheckContext(result.suite, case, tmp_path, transcript(), run_command, timeout_s=5)
    got = [asyncio.run(run_check(c, ctx)) for c in case.checks]
    assert [(r.kind, r.passed) for r in got] == [
        ("agentv.trajectory", True),
        ("agentv.trajectory", False),
    ]


def test_an_agentv_value_that_does_not_read_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals/t.eval.yaml").write_text(
        "tests:\n  - id: a\n    input: x\n    assert:\n      - {type: 'trajectory:tool-used'}\n"
    )
    (result,) = load_all(tmp_path)
    assert not result.ok and "trajectory:tool-used: must be" in result.errors[0].message
