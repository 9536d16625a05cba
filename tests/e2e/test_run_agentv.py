"""`evolve-action run` on an agentv EVAL.yaml: load, run, checks, judge, verdict, results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.local_run import run_locally, write_tree
from tests.fakes.llm_server import FakeLLM
from tests.fakes.scripts import tool_names
from tests.sample_evals import GREETER_SKILL_MD

SKILL = GREETER_SKILL_MD

EVAL = """\
name: greeter-agentv
tests:
  - id: greet-ada
    criteria: Greets Ada by name
    input:
      - role: user
        content:
          - {type: file, value: guests.txt}
          - {type: text, value: Greet the first guest.}
    rubrics: [The greeting names Ada]
    assert:
      - {type: skill-used, value: greeter}
      - {type: icontains, value: ada}
      - name: script
        type: code_judge
        script: [python3, judges/names_ada.py]
      - name: calls
        type: tool_trajectory
        mode: in_order
        expected: [{tool: Skill}, {tool: Write, args: {file_path: hello.txt}}]
  - id: greet-bob
    criteria: Greets Bob
    input: Greet Bob.
    assert:
      - {type: contains, value: Bob, required: true}
"""

JUDGE = """\
import json, sys
d = json.load(sys.stdin)
ok = "Ada" in d["candidate_answer"] and d["candidateAnswer"] == d["candidate_answer"]
print(json.dumps({"score": 1.0 if ok else 0.0, "hits": ["names Ada"] if ok else []}))
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "repo", {
        "skills/greeter/SKILL.md": SKILL,
        "evals/greeter/EVAL.yaml": EVAL,
        "evals/greeter/guests.txt": "Ada\nBob\n",
        "evals/greeter/judges/names_ada.py": JUDGE,
    })  # fmt: skip


def test_run__an_agentv_suite_is_loaded_run_and_graded(
    repo: Path, greeter_llm: FakeLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    done = run_locally(repo, capsys, extra=("--runs", "1"))
    out, loaded = done.out, done.results
    assert "PASS  evals/greeter/EVAL.yaml greet-ada" in out, out
    assert "FAIL  evals/greeter/EVAL.yaml greet-bob" in out
    assert "answer contains 'Bob'" in out
    assert done.code == 1
    assert len(loaded.runs) == 2
    ada = done.run_of("greet-ada")
    assert [(i.item_id, i.score) for i in ada.items] == [
        ("rubric/rubric-1", 1.0),
        ("skill_used", 1.0),
        ("icontains", 1.0),
        ("script", 1.0),
        ("calls", 1.0),
    ]
    assert ada.score == 1.0
    agent_calls = [r for r in greeter_llm.requests if "submit_grading" not in tool_names(r)]
    # The two cases run concurrently: greet-ada's first call is the one not about Bob.
    first = next(json.dumps(r.body) for r in agent_calls if "Greet Bob." not in json.dumps(r.body))
    assert "[file: evals/greeter/guests.txt]" in first and "Greet the first guest." in first
    judge_calls = [r for r in greeter_llm.requests if "submit_grading" in tool_names(r)]
    assert len(judge_calls) == 1  # greet-bob has nothing for the judge
    assert "The greeting names Ada" in json.dumps(judge_calls[0].body)
    bodies = json.dumps([r.body for r in greeter_llm.requests])
    assert str(repo) not in bodies and "/tmp/" not in bodies
