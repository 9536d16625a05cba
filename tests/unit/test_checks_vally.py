"""Vally's static graders and gates on real workspaces and transcripts, and its verdict:
binary without `scoring.threshold`, a weighted mean with one, gates failing whatever the score."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from textwrap import dedent

import pytest

from evolve_action.formats import load_file
from evolve_action.formats.base import LoadContext
from evolve_action.grade.checks import CheckContext, run_check
from evolve_action.grade.scoring import policy_for
from evolve_action.model.evals import Case, Format, Skill, Suite
from evolve_action.model.outcomes import ItemResult, JudgeReport, Status, ToolCall, Transcript
from tests.fakes.commands import run_command

SKILL = "---\nname: dumps\ndescription: d\n---\nbody\n"


def load(tmp_path: Path, spec: str) -> Suite:
    (tmp_path / "skills/dumps").mkdir(parents=True, exist_ok=True)
    (tmp_path / "skills/dumps/SKILL.md").write_text(SKILL)
    path = tmp_path / "evals/dumps/eval.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dedent(spec))
    skill = Skill("dumps", tmp_path / "skills/dumps")
    result = load_file(path, "evals/dumps/eval.yaml", Format.AGENTV, LoadContext(tmp_path, skill))
    assert result.suite is not None, result.problems
    return result.suite


def grade(suite: Suite, case: Case, workspace: Path, t: Transcript) -> list[ItemResult]:
    ctx = CheckContext(suite, case, workspace, t, run_command, timeout_s=20)
    return [asyncio.run(run_check(c, ctx)) for c in case.checks]


def call(name: str, **args: str) -> ToolCall:
    return ToolCall(name, json.dumps(args))


GRADERS = """\
stimuli:
  - name: s
    prompt: p
    graders:
      - {type: output-contains, config: {substring: DUMP}}
      - {type: output-not-contains, config: {substring: sorry}}
      - {type: output-matches, config: {pattern: '(?i)dump\\s+path', negate: true}}
      - {type: output-not-matches, config: {pattern: '\\u00e9t\\u00e9'}}
      - {type: file-exists, config: {path: "out/*.txt"}}
      - {type: file-not-exists, config: {path: secrets.txt}}
      - {type: file-contains, config: {path: "out/*.txt", value: hello}}
      - {type: file-not-contains, config: {path: "out/*.txt", value: goodbye}}
      - {type: file-matches, config: {path: out/a.txt, pattern: '^hel+o$'}}
      - {type: file-not-matches, config: {path: "../outside.txt", pattern: x}}
      - {type: exit-success}
      - {type: completed}
      - {type: run-command, config: {command: "cat out/a.txt", stdout_contains: hello}}
      - {type: run-command, config: {command: "exit 3", expected_exit_code: 0}}
      - {type: wall-time, config: {max: 2s}}
      - {type: skill-invocation, config: {required: [dumps], disallowed: [other]}}
    constraints: {expect_tools: [bash], reject_tools: [edit], max_turns: 5, max_tokens: 10}
    expect_activation: false
"""


def test_each_grader_and_gate_on_a_real_run(tmp_path: Path) -> None:
    suite = load(tmp_path, GRADERS)
    (case,) = suite.cases
    workspace = tmp_path / "ws"
    (workspace / "out").mkdir(parents=True)
    (workspace / "out/a.txt").write_text("hello")  # JS `$` is the end of the text
    (tmp_path / "outside.txt").write_text("x")
    t = Transcript(
        final_text="Set DUMP dir. The dump path is /var/dumps.",
        tool_calls=[call("Skill", skill="dumps"), call("Bash", command="ls")],
        turns=3,
        duration_s=1.5,
        stop_reason="end_turn",
    )
    t.usage.output_tokens = 40
    got = {r.item_id: r.passed for r in grade(suite, case, workspace, t)}
    assert got == {
        "output-contains-1": True,
        "output-not-contains-2": True,
        "output-matches-3": False,  # negated, and the output has "dump path"
        "output-not-matches-4": True,  # the JS \\u escapes read as RE2's \\x{...}
        "file-exists-5": True,
        "file-not-exists-6": True,
        "file-contains-7": True,
        "file-not-contains-8": True,
        "file-matches-9": True,
        "file-not-matches-10": True,  # a path out of the workspace matches nothing
        "exit-success-11": True,
        "completed-12": True,
        "run-command-13": True,
        "run-command-14": False,
        "wall-time-15": True,
        "skill-invocation-16": True,
        "constraints.tools": True,
        "constraints.limits": False,  # 40 tokens > 10
        "expect_activation": False,  # the skill fired
    }


def verdict(suite: Suite, passed: dict[str, bool | None], raw: float | None = None) -> Status:
    (case,) = suite.cases
    results = []
    for item in case.items:
        ok = passed.get(item.id, True)
        score = None if ok is None else float(ok)
        results.append(ItemResult(item.id, item.text, ok, score=score, raw_score=raw))
    return policy_for(Format.VALLY).verdict(suite, case, results, JudgeReport()).status


BINARY = """\
stimuli:
  - name: s
    prompt: p
    graders:
      - {type: output-contains, config: {substring: a}}
      - {type: prompt}
    rubric: [r]
    constraints: {reject_tools: [edit]}
"""


def test_without_a_threshold_every_grader_must_pass(tmp_path: Path) -> None:
    suite = load(tmp_path, BINARY)
    assert verdict(suite, {}, raw=4) is Status.PASS
    assert verdict(suite, {"output-contains-1": False}, raw=4) is Status.FAIL
    assert verdict(suite, {"prompt-2": True}, raw=2) is Status.FAIL  # 2/5 is 0.25 < 0.5
    assert verdict(suite, {"output-contains-1": None}, raw=3) is Status.PASS  # skipped: out
    assert verdict(suite, {"constraints.tools": False}, raw=5) is Status.FAIL  # a gate


WEIGHTED = """\
scoring:
  weights: {prompt: 0.7, output-contains: 0.3}
  threshold: 0.7
stimuli:
  - name: s
    prompt: p
    graders:
      - {type: output-contains, config: {substring: a}}
      - {type: prompt, config: {scoring: scale_1_10}}
    expect_activation: true
"""


@pytest.mark.parametrize(
    ("contains", "raw", "activated", "status"),
    [
        (False, 10, True, Status.PASS),  # 0.7 · 1 + 0.3 · 0 = 0.7
        (True, 5.5, True, Status.FAIL),  # 0.7 · 0.5 + 0.3 · 1 = 0.65 < 0.7
        (True, 10, False, Status.FAIL),  # the skill did not fire: a gate
        (False, 9, True, Status.FAIL),  # 0.7 · 8/9 = 0.62
    ],
)
def test_with_a_threshold_the_weighted_mean_decides(
    tmp_path: Path, contains: bool, raw: float, activated: bool, status: Status
) -> None:
    suite = load(tmp_path, WEIGHTED)
    passed = {"output-contains-1": contains, "expect_activation": activated}
    assert verdict(suite, passed, raw=raw) is status
