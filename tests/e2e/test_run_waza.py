"""`evolve-action run` on a waza eval against the loopback LLM fake: task files expanded,
`inputs.files` staged from fixtures/, task and global graders (a Python `code` grader run
confined, `text`, `file`, `behavior`, a `prompt` grader in the one judge call), the task's
`expected` block, `trials_per_task` as the runs, and trigger_tests.yaml as trigger cases."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.commands.cli import main
from evolve_action.publish.results import load_results
from tests.fakes.llm_server import FakeLLM, call, text
from tests.fakes.scripts import agent_and_judge, tool_names

SKILL = """---
name: greeter
description: Writes a greeting file when asked to greet someone.
---
Write `hello.txt` containing `Hello, <name>!`.
"""
EVAL = """\
name: greeter-waza
skill: greeter
config: {trials_per_task: 2, timeout_seconds: 120, executor: copilot-sdk}
graders:
  - type: code
    name: has_output
    config: {assertions: ["len(output) > 0", "len(tool_calls) >= 2"]}
tasks: ["tasks/*.yaml"]
"""
TASK = """\
id: greet-ada
inputs:
  prompt: Greet the first guest in guests.txt.
  files: [{path: guests.txt}]
expected:
  output_contains: [ada]
graders:
  - name: greeting-file
    type: file
    config:
      must_exist: [hello.txt]
      content_patterns: [{path: hello.txt, must_match: ["^Hello, Ada!"]}]
  - {name: no-shell, type: behavior, config: {forbidden_tools: [bash], max_tool_calls: 5}}
  - {name: friendly, type: prompt, rubric: "The reply greets Ada warmly."}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    files = {
        "skills/greeter/SKILL.md": SKILL,
        "skills/greeter/eval.yaml": EVAL,
        "skills/greeter/tasks/greet.yaml": TASK,
        "skills/greeter/fixtures/guests.txt": "Ada\nBob\n",
    }
    for rel, body in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body)
    return root


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    turns = (
        call("Skill", skill="greeter"),
        call("Write", file_path="hello.txt", content="Hello, Ada!\n"),
        text("I greeted Ada in hello.txt."),
    )
    with FakeLLM(agent_and_judge(turns)) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
        yield server
        assert not server.script_errors, server.script_errors


def test_run__a_waza_eval_is_loaded_run_and_graded(
    repo: Path, llm: FakeLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = repo.parent / "out"
    code = main([
        "run", "--base", "none", "--root", str(repo), "--models", "anthropic",
        "--judge-model", "anthropic", "--results-dir", str(out_dir),
    ])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "PASS  skills/greeter/eval.yaml greet-ada" in out, out
    runs = load_results(out_dir / "results.json").runs
    assert len(runs) == 2  # trials_per_task: 2
    for run in runs:
        assert {i.item_id: i.passed for i in run.items} == {
            "greeting-file": True,
            "no-shell": True,
            "friendly": True,
            "expected.output": True,
            "has_output": True,
        }, [(i.item_id, i.evidence) for i in run.items]
    judged = [r for r in llm.requests if "submit_grading" in tool_names(r)]
    assert judged and all("greets Ada warmly" in str(r.body) for r in judged)
