"""`evolve-action run` on a promptfoo skill config against the loopback LLM fake: the Claude
Agent SDK provider's working_dir staged, the skill in it installed, the prompt rendered from
vars, `skill-used`, text and `javascript` assertions as checks, `llm-rubric` in the one judge
call, and promptfoo's verdict (every assertion passes)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.local_run import run_locally, write_tree
from tests.fakes.llm_server import FakeLLM
from tests.fakes.scripts import tool_names
from tests.sample_evals import GREETER_SKILL_MD

SKILL = GREETER_SKILL_MD
CONFIG = """\
description: Greeter skill
providers:
  - id: anthropic:claude-agent-sdk
    config:
      working_dir: ./project
      setting_sources: ['project']
prompts:
  - 'Greet {{guest}} as the skill says.'
tests:
  - description: greets Ada
    vars: {guest: Ada}
    assert:
      - {type: skill-used, value: greeter}
      - {type: icontains, value: ada}
      - type: javascript
        value: |
          const calls = context.providerResponse.metadata.toolCalls;
          return calls.some(t => t.name === 'Write' && t.input.file_path === 'hello.txt');
      - {type: llm-rubric, value: The reply greets the guest by name}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "repo", {
        "evals/greeter/promptfooconfig.yaml": CONFIG,
        "evals/greeter/project/.claude/skills/greeter/SKILL.md": SKILL,
        "evals/greeter/project/guests.txt": "Ada\n",
    })  # fmt: skip


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_run__a_promptfoo_skill_config_is_run_and_graded(
    repo: Path, greeter_llm: FakeLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    done = run_locally(repo, capsys, extra=("--runs", "1"))
    assert done.code == 0, done.out
    assert "PASS  evals/greeter/promptfooconfig.yaml greets Ada" in done.out, done.out
    (run,) = done.runs
    assert {i.item_id: i.passed for i in run.items} == {
        "skill-used-1": True,
        "icontains-2": True,
        "javascript-3": True,
        "llm-rubric-4": True,
    }, [(i.item_id, i.evidence) for i in run.items]
    agent_calls = [r for r in greeter_llm.requests if "submit_grading" not in tool_names(r)]
    assert "Greet Ada as the skill says." in str(agent_calls[0].body)
