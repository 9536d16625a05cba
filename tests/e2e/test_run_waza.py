"""`evolve-action run` on a waza eval against the loopback LLM fake: task files expanded,
`inputs.files` staged from fixtures/, task and global graders (a Python `code` grader run
confined, `text`, `file`, `behavior`, a `prompt` grader in the one judge call), the task's
`expected` block, `trials_per_task` as the runs, and trigger_tests.yaml as trigger cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.local_run import run_locally, write_tree
from tests.fakes.llm_server import FakeLLM
from tests.fakes.scripts import tool_names
from tests.sample_evals import GREETER_SKILL_MD

SKILL = GREETER_SKILL_MD
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
    return write_tree(tmp_path / "repo", {
        "skills/greeter/SKILL.md": SKILL,
        "skills/greeter/eval.yaml": EVAL,
        "skills/greeter/tasks/greet.yaml": TASK,
        "skills/greeter/fixtures/guests.txt": "Ada\nBob\n",
    })  # fmt: skip


def test_run__a_waza_eval_is_loaded_run_and_graded(
    repo: Path, greeter_llm: FakeLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    done = run_locally(repo, capsys)
    assert done.code == 0, done.out
    assert "PASS  skills/greeter/eval.yaml greet-ada" in done.out, done.out
    runs = done.runs
    assert len(runs) == 2  # trials_per_task: 2
    for run in runs:
        assert {i.item_id: i.passed for i in run.items} == {
            "greeting-file": True,
            "no-shell": True,
            "friendly": True,
            "expected.output": True,
            "has_output": True,
        }, [(i.item_id, i.evidence) for i in run.items]
    judged = [r for r in greeter_llm.requests if "submit_grading" in tool_names(r)]
    assert judged and all("greets Ada warmly" in str(r.body) for r in judged)
