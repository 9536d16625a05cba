"""The promptfoo loader: a skill config through an agent SDK provider (prompts × tests, vars,
defaultTest, working_dir, skills), its assertions as checks on real runs (javascript in a
real node), the verdict, configs for model prompts as notices, and the promptfoo snapshot
in ../shared, which loads with no error but the working dirs it left out."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from textwrap import dedent

import pytest

from evolve_action.formats import load_all
from evolve_action.grade.checks import CheckContext, run_check
from evolve_action.grade.scoring import policy_for
from evolve_action.model.evals import Format, JudgeItem, Scale, Severity, Suite
from evolve_action.model.outcomes import ItemResult, JudgeReport, Status, ToolCall, Transcript
from tests.fakes.commands import run_command

SKILL = "---\nname: code-review\ndescription: d\n---\nbody\n"
CONFIG = """\
description: Skills testing
providers:
  - id: anthropic:claude-agent-sdk
    config:
      working_dir: ./project
      setting_sources: ['project']
      append_allowed_tools: ['Skill', 'Read']
prompts:
  - 'Review {{file}} for {{topic}}'
defaultTest:
  assert:
    - {type: skill-used, value: code-review}
tests:
  - description: md5
    vars: {file: src/auth.ts, topic: [hashing, timing]}
    assert:
      - {type: icontains, value: md5}
      - {type: not-contains, value: sorry}
      - type: javascript
        value: |
          const calls = context.providerResponse?.metadata?.toolCalls || [];
          return calls.some(t => t.name === 'Skill') && context.vars.file === 'src/auth.ts';
      - {type: llm-rubric, value: Names the weak hash, weight: 2}
  - description: threshold
    threshold: 0.5
    vars: {file: a.ts, topic: x}
    assert:
      - {type: equals, value: ok}
      - {type: regex, value: '^ok$'}
"""


def repo(tmp_path: Path, config: str = CONFIG) -> Path:
    files = {
        "evals/promptfooconfig.yaml": config,
        "evals/project/.claude/skills/code-review/SKILL.md": SKILL,
        "evals/project/src/auth.ts": "md5(password)\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(dedent(text))
    return tmp_path


def suite(tmp_path: Path) -> Suite:
    (result,) = load_all(repo(tmp_path))
    assert result.ok and result.suite is not None, [p.render() for p in result.problems]
    return result.suite


def test_a_skill_config_loads_prompts_tests_vars_and_the_working_dir(tmp_path: Path) -> None:
    s = suite(tmp_path)
    assert s.format is Format.PROMPTFOO and s.name == "Skills testing"
    assert s.skill.dir == (tmp_path / "evals/project/.claude/skills/code-review").resolve()
    assert [(c.id, c.prompt) for c in s.cases] == [
        ("md5 [vars 1]", "Review src/auth.ts for hashing"),
        ("md5 [vars 2]", "Review src/auth.ts for timing"),
        ("threshold", "Review a.ts for x"),
    ]
    first = s.cases[0]
    assert [f.dest for f in first.files] == ["src/auth.ts"]  # the skill folder is not staged
    assert [(i.id, i.kind) for i in first.items] == [
        ("icontains-1", "promptfoo.text"),
        ("not-contains-2", "promptfoo.text"),
        ("javascript-3", "promptfoo.javascript"),
        ("llm-rubric-4", "rubric"),
        ("skill-used-default-1", "vally.skill-invocation"),
    ]
    rubric = first.items[3]
    assert isinstance(rubric, JudgeItem) and (rubric.scale, rubric.weight) == (Scale.BINARY, 2.0)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_assertions_on_a_real_run(tmp_path: Path) -> None:
    s = suite(tmp_path)
    case = s.cases[0]
    calls = [ToolCall("Skill", json.dumps({"skill": "code-review"}))]
    t = Transcript(final_text="MD5 is too weak for passwords.", tool_calls=calls)
    ctx = CheckContext(s, case, tmp_path, t, run_command, timeout_s=30)
    got = {c.id: asyncio.run(run_check(c, ctx)).passed for c in case.checks}
    assert got == {
        "icontains-1": True,
        "not-contains-2": True,
        "javascript-3": True,  # ran in node, with context.vars and the tool calls
        "skill-used-default-1": True,
    }


def test_a_test_threshold_weighs_the_assertions(tmp_path: Path) -> None:
    s = suite(tmp_path)
    case = s.cases[2]
    policy = policy_for(Format.PROMPTFOO)

    def status(passed: dict[str, bool]) -> Status:
        results = [ItemResult(i.id, i.text, passed.get(i.id, True)) for i in case.items]
        return policy.verdict(s, case, results, JudgeReport()).status

    assert status({"equals-1": False}) is Status.PASS  # 2 of 3 pass: 0.67 ≥ 0.5
    assert status({"equals-1": False, "regex-2": False}) is Status.FAIL


def test_a_config_for_model_prompts_is_a_notice(tmp_path: Path) -> None:
    root = repo(tmp_path, "providers: [openai:gpt-5]\nprompts: [hi]\ntests: [{assert: []}]\n")
    assert load_all(root) == []  # not an eval file: a run never sees it


def test_unsupported_assertions_say_why(tmp_path: Path) -> None:
    config = CONFIG.replace("type: icontains, value: md5", "type: python, value: x")
    (result,) = load_all(repo(tmp_path, config))
    assert not result.ok
    assert "assertion 'python' runs Python in promptfoo's process" in result.errors[0].message


def test_corpus__promptfoo_configs_load_with_no_error_but_left_out_working_dirs(
    corpus_dir: Path,
) -> None:
    root = corpus_dir / "repos/promptfoo/promptfoo-promptfoo-index"
    if not root.is_dir():
        pytest.skip(f"{root} is absent")
    results = load_all(root)
    assert len(results) == 5 and all(r.format is Format.PROMPTFOO for r in results)
    errors = [p for r in results for p in r.errors]
    assert all("is no folder inside the repository" in p.message for p in errors), errors
    assert all(p.severity is not Severity.NOTICE for r in results for p in r.problems)
