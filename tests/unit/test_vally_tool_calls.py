"""Vally's `tool-calls` grader read from a real eval file and graded over the trajectory:
required (counts, `final`, argument regexes), disallowed, `sequence` in relative order, Copilot's
tool names read as the agent's, MCP tools by any name form, and what cannot run said; and
waza's `tool_calls` over the same trajectory."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from evolve_action.formats import load_file
from evolve_action.formats.base import LoadContext
from evolve_action.formats.waza.params import CallsParams
from evolve_action.grade.checks import CheckContext, run_check
from evolve_action.model.evals import Case, Check, Format, LoadResult, Origin, Skill, Suite
from evolve_action.model.outcomes import ItemResult, ToolCall, Transcript
from tests.fakes.commands import run_command

SKILL = "---\nname: dumps\ndescription: d\n---\nbody\n"


def load(tmp_path: Path, config: str) -> LoadResult:
    (tmp_path / "skills/dumps").mkdir(parents=True, exist_ok=True)
    (tmp_path / "skills/dumps/SKILL.md").write_text(SKILL)
    path = tmp_path / "evals/dumps/eval.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    spec = "stimuli:\n  - name: s\n    prompt: p\n    graders:\n      - type: tool-calls\n"
    path.write_text(f"{spec}        config:\n          {config.strip()}\n")
    skill = Skill("dumps", tmp_path / "skills/dumps")
    return load_file(path, "evals/dumps/eval.yaml", Format.AGENTV, LoadContext(tmp_path, skill))


def grade(tmp_path: Path, config: str, calls: list[ToolCall]) -> ItemResult:
    result = load(tmp_path, config)
    assert result.suite is not None, result.problems
    (case,) = result.suite.cases
    (check,) = case.checks
    ctx = CheckContext(result.suite, case, tmp_path, Transcript(tool_calls=calls), run_command, 5)
    return asyncio.run(run_check(check, ctx))


def call(name: str, result: str = "", **args: object) -> ToolCall:
    return ToolCall(name, json.dumps(args), result)


RUN = [
    call("Read", file_path="src/app.py"),
    call("mcp__gh__validate_release", "ok", id="7"),
    call("Bash", command="npm test"),
    call("mcp__gh__create_release", id="7"),
]


@pytest.mark.parametrize(
    ("config", "passed"),
    [
        ("required: [view, create_release]\n", True),  # Copilot's `view` is our Read
        ("required: [{name: bash, command: 'npm test'}]\n", True),
        ("required: [{name: bash, command: 'npm run build'}]\n", False),
        ("required: [{name: view, path: '\\.py$'}]\n", True),  # `path` reads `file_path`
        ("required: [{name: validate, args: {id: '^7$'}, result: ok}]\n", True),
        ("required: [{name: '^Read$', min_count: 2}]\n", False),
        ("required: [{name: create_release, final: true}]\n", True),
        ("required: [{name: bash, final: true}]\n", False),
        ("disallowed: [{name: bash, command: 'rm -rf'}]\n", True),
        ("disallowed: [gh/create_release]\n", False),
        ("sequence: [validate, create_release]\n", True),
        ("sequence: [create_release, validate]\n", False),
    ],
)
def test_conditions_over_the_trajectory(tmp_path: Path, config: str, passed: bool) -> None:
    got = grade(tmp_path, config, RUN)
    assert got.passed is passed, got.evidence
    assert got.kind == "vally.tool-calls"


def test_a_broken_sequence_shows_expected_observed_and_the_parting_point(tmp_path: Path) -> None:
    got = grade(tmp_path, "sequence: [bash, validate]\n", RUN)
    assert got.evidence == (
        "expected in order: Bash → validate; observed: Read → gh/validate_release → Bash →"
        " gh/create_release; parted at expected step 2: expected validate after call 3 (Bash),"
        " saw gh/create_release"
    )


def test_what_cannot_run_here_is_said_and_skipped(tmp_path: Path) -> None:
    steps = load(tmp_path, "required: [{name: bash, at_step: 2}]\n")
    assert steps.ok and any("at_step / before_step" in p.message for p in steps.problems)
    got = grade(tmp_path, "required: [{name: bash, at_step: 2}]\n", RUN)
    assert got.passed is None and got.kind == "vally.skipped"
    empty = load(tmp_path, "{}\n")
    # A grader that does not read is left out, warned; not an error (the file is not surely
    # wrong, and its other stimuli would run).
    assert not empty.errors
    assert any("needs at least one of required" in p.message for p in empty.problems)


# --- waza's tool_calls, over the same trajectory ----------------------------------------------


@pytest.mark.parametrize(
    ("params", "passed", "score"),
    [
        (CallsParams(("Read", "gh/create_release")), True, 1.0),
        (CallsParams(("Read", "Write"), ("*",)), False, 1 / 3),
        (
            CallsParams(forbidden_tools=("validate_release",), min_calls=2, max_calls=3),
            False,
            1 / 3,
        ),
        (CallsParams(min_calls=4, max_calls=4), True, 1.0),
    ],
)
def test_waza_tool_calls_scores_the_share_of_conditions_that_hold(
    params: CallsParams, passed: bool, score: float
) -> None:
    origin = Origin("eval.yaml", 1)
    check = Check("calls", "waza.tool_calls", "tool_calls calls", origin, params)
    case = Case("1", "p", origin, items=(check,))
    suite = Suite(Format.WAZA, Path("eval.yaml"), "eval.yaml", Skill("dumps", None), (case,))
    ctx = CheckContext(suite, case, Path("."), Transcript(tool_calls=RUN), run_command, 5)
    got = asyncio.run(run_check(check, ctx))
    assert (got.passed, got.score) == (passed, pytest.approx(score)), got.evidence
