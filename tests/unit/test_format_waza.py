"""The waza loader and graders: eval.yaml with task files, global and task graders, the
`expected` block, trigger_tests.yaml, both schema versions; the checks on real runs; and the
waza snapshots in ../shared load with no error but left-out fixtures and what waza's schema
itself refuses."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from textwrap import dedent

import pytest

from evolve_action.formats import load_all
from evolve_action.grade.checks import CheckContext, run_check
from evolve_action.model.evals import CaseKind, Format, Severity, Suite
from evolve_action.model.outcomes import ToolCall, Transcript
from tests.fakes.commands import run_command

SKILL = "---\nname: explainer\ndescription: d\n---\nbody\n"
EVAL = """\
schemaVersion: "2.0"
name: explainer-eval
skill: explainer
config: {trials_per_task: 3, timeout_seconds: 120, executor: mock, parallel: false}
metrics: [{name: task_completion, weight: 1, threshold: 0.8}]
graders:
  - {type: code, name: has_output, config: {assertions: ["len(output) > 0"]}}
tasks: ["tasks/*.yaml"]
"""
TASK = """\
id: explain-001
name: Explain recursion
inputs:
  prompt: What does this code do?
  files: [{path: factorial.py}]
expected:
  output_contains: [recursion]
  output_contains_any: [base case, stops]
  should_trigger: true
  behavior: {max_tool_calls: 5}
  outcomes: [{type: task_completed}]
graders:
  - name: patterns
    type: text
    weight: 2
    config: {regex_match: ["(?i)factorial"], not_contains: [error]}
  - name: files
    type: file
    config:
      must_exist: [notes.md]
      content_patterns: [{path: notes.md, must_match: ["^# Notes"]}]
  - name: calm
    type: behavior
    config: {max_tokens: 100, required_tools: [view], forbidden_tools: [bash]}
  - name: order
    type: action_sequence
    config: {matching_mode: in_order_match, expected_actions: [view, create]}
  - {name: flow, type: skill_invocation, config: {mode: in_order, required_skills: [explainer]}}
  - {name: judged, type: prompt, rubric: "The explanation names the base case."}
"""
TRIGGERS = """\
skill: explainer
should_trigger_prompts:
  - {prompt: Explain this code, reason: direct}
should_not_trigger_prompts:
  - {prompt: Write a poem, reason: unrelated}
"""


def repo(tmp_path: Path) -> Path:
    files = {
        "explainer/SKILL.md": SKILL,
        "explainer/eval.yaml": EVAL,
        "explainer/tasks/explain.yaml": TASK,
        "explainer/fixtures/factorial.py": "def f(n): return 1 if n < 2 else n * f(n - 1)\n",
        "explainer/trigger_tests.yaml": TRIGGERS,
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(dedent(text))
    return tmp_path


def suites(tmp_path: Path) -> dict[str, Suite]:
    results = load_all(repo(tmp_path))
    assert all(r.ok for r in results), [p.render() for r in results for p in r.problems]
    return {r.rel: r.suite for r in results if r.suite is not None}


def test_an_eval_with_task_files_loads_every_part(tmp_path: Path) -> None:
    suite = suites(tmp_path)["explainer/eval.yaml"]
    assert suite.format is Format.WAZA and suite.runs == 3
    assert suite.skill.dir == (tmp_path / "explainer").resolve()
    (case,) = suite.cases
    assert (case.id, case.name, case.timeout_seconds) == ("explain-001", "Explain recursion", 120)
    assert [f.dest for f in case.files] == ["factorial.py"]
    assert [(i.id, i.kind) for i in case.items] == [
        ("patterns", "waza.text"),
        ("files", "waza.file"),
        ("calm", "waza.behavior"),
        ("order", "waza.action_sequence"),
        ("flow", "waza.skill_invocation"),
        ("judged", "rubric"),
        ("expected.output", "waza.text"),
        ("expected.should_trigger", "vally.activation"),
        ("expected.behavior", "waza.behavior"),
        ("expected.task_completed", "vally.completed"),
        ("has_output", "waza.code"),
    ]
    assert case.items[0].weight == 2.0


def test_trigger_tests_are_trigger_cases(tmp_path: Path) -> None:
    suite = suites(tmp_path)["explainer/trigger_tests.yaml"]
    assert suite.format is Format.TRIGGERS
    assert [(c.prompt, c.kind, c.should_trigger) for c in suite.cases] == [
        ("Explain this code", CaseKind.TRIGGER, True),
        ("Write a poem", CaseKind.TRIGGER, False),
    ]


def test_the_graders_on_a_real_run(tmp_path: Path) -> None:
    suite = suites(tmp_path)["explainer/eval.yaml"]
    (case,) = suite.cases
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.md").write_text("# Notes\n")
    calls = [
        ToolCall("Skill", json.dumps({"skill": "explainer"})),
        ToolCall("Read", json.dumps({"file_path": "factorial.py"})),
        ToolCall("Write", json.dumps({"file_path": "notes.md", "content": "# Notes"})),
    ]
    t = Transcript(
        final_text="Factorial by recursion; the base case stops it.",
        tool_calls=calls,
        turns=4,
        stop_reason="end_turn",
    )
    t.usage.output_tokens = 500
    ctx = CheckContext(suite, case, workspace, t, run_command, timeout_s=30)
    got = {c.id: asyncio.run(run_check(c, ctx)) for c in case.checks}
    assert {k: r.passed for k, r in got.items()} == {
        "patterns": True,
        "files": True,
        "calm": False,  # 500 tokens > 100
        "order": True,
        "flow": True,
        "expected.output": True,
        "expected.should_trigger": True,
        "expected.behavior": True,
        "expected.task_completed": True,
        "has_output": True,  # the Python assertion, run in a real python3
    }
    assert got["calm"].score == pytest.approx(2 / 3)
    assert "tokens 500 > 100" in got["calm"].evidence


def test_keyword_and_regex_graders_are_graded_as_text(tmp_path: Path) -> None:
    """The older `keyword` and `regex` graders are text conditions: graded by `waza.text`."""
    root = repo(tmp_path)
    graders = (
        "graders:\n"
        "  - {name: kw, type: keyword, config: {must_contain: [RECURSION]}}\n"
        "  - {name: rx, type: regex, config: {must_not_match: [error]}}\n"
    )
    (root / "explainer/eval.yaml").write_text(dedent(EVAL).replace("graders:\n", graders))
    (suite,) = [r.suite for r in load_all(root) if r.rel == "explainer/eval.yaml" and r.suite]
    (case,) = suite.cases
    checks = {c.id: c for c in case.checks}
    assert (checks["kw"].kind, checks["rx"].kind) == ("waza.text", "waza.text")
    ctx = CheckContext(
        suite, case, tmp_path, Transcript(final_text="By recursion."), run_command, 30
    )
    assert [asyncio.run(run_check(checks[k], ctx)).passed for k in ("kw", "rx")] == [True, True]


def test_what_waza_refuses_or_cannot_run_here(tmp_path: Path) -> None:
    root = repo(tmp_path)
    (root / "explainer/eval.yaml").write_text(
        dedent("""\
        skill: explainer
        tasks_from: more.yaml
        tasks:
          - {id: inline, prompt: p}
          - tasks/*.yaml
        graders: [{type: human, name: reviewer}]
        """)
    )
    (result,) = [r for r in load_all(root) if r.rel == "explainer/eval.yaml"]
    errors = "\n".join(p.message for p in result.problems if p.severity is Severity.ERROR)
    assert "tasks_from (tasks kept in another file) is not supported" in errors
    assert "an inline task, which waza's schema does not take" in errors
    warned = "\n".join(p.message for p in result.problems if p.severity is Severity.WARNING)
    assert "grader 'human' is not run here: it needs a human reviewer" in warned


def test_corpus__waza_snapshots_load_with_no_error_but_left_out_files(corpus_dir: Path) -> None:
    root = corpus_dir / "repos/waza"
    if not root.is_dir():
        pytest.skip(f"{root} is absent")
    results = [r for snap in sorted(root.iterdir()) for r in load_all(snap)]
    assert {r.format for r in results} == {Format.WAZA, Format.TRIGGERS}
    for result in results:
        for problem in result.errors:
            message = problem.message
            left_out = "is not in the context folder" in message or "names no task file" in message
            refused = "an inline task, which waza's schema does not take" in message
            assert left_out or refused, problem.render()


def test_waza_035_keys_expected_aliases_and_follow_ups(tmp_path: Path) -> None:
    root = repo(tmp_path)
    (root / "explainer/tasks/followed.yaml").write_text(
        dedent("""\
        id: followed
        inputs:
          prompt: Explain the loop.
          follow_ups: [Now explain the recursion.]
        continue_session: true
        expected:
          skill_activated: true
          output_excludes: [I cannot]
        graders: [{type: tool_calls, config: {required_tools: [view], max_calls: 9}}]
        """)
    )
    (result,) = [r for r in load_all(root) if r.rel == "explainer/eval.yaml"]
    assert result.ok and result.suite is not None, result.problems
    case = next(c for c in result.suite.cases if c.id == "followed")
    assert case.follow_ups == ("Now explain the recursion.",)
    ids = {i.id for i in case.items}
    assert {"expected.should_trigger", "expected.output"} <= ids
    (calls,) = [c for c in case.checks if c.kind == "waza.tool_calls"]
    assert (calls.params.required_tools, calls.params.max_calls) == (("Read",), 9)  # type: ignore[attr-defined]
