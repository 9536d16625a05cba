"""The agentv loader: every key generation, evaluator type, rule and corpus file."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path
from textwrap import dedent

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evolve_action.formats import load_file
from evolve_action.formats.agentv import load as agentv
from evolve_action.formats.agentv.kinds import (
    CodeJudge,
    FieldAccuracy,
    FieldSpec,
    Metrics,
    SkillUse,
    StagedFile,
    TextRule,
    ToolTrajectory,
)
from evolve_action.formats.base import LoadContext
from evolve_action.formats.documents import Document, DocumentError, read
from evolve_action.model.evals import (
    Case,
    Check,
    Format,
    ItemGroup,
    JudgeItem,
    LoadResult,
    Scale,
    Skill,
)
from evolve_action.plan.fingerprints import case_digest


def load(
    tmp_path: Path,
    text: str,
    name: str = "evals/EVAL.yaml",
    files: dict[str, str] | None = None,
    *,
    strict: bool = False,
) -> LoadResult:
    for rel, body in (files or {}).items():
        target = tmp_path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body)
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dedent(text))
    ctx = LoadContext(root=tmp_path, skill=Skill("demo", None))
    return load_file(path, name, Format.AGENTV, ctx, strict=strict)


def ok(result: LoadResult) -> tuple[Case, ...]:
    assert result.ok, [p.render() for p in result.problems]
    assert result.suite is not None
    return result.suite.cases


def errors(result: LoadResult) -> list[str]:
    assert result.suite is None
    return [p.render() for p in result.errors]


ONE_CASE = """
{key}:
  - id: greet
    {outcome}: Says hello
    input: "Hello!"
"""


@pytest.mark.parametrize("key", ["evalcases", "eval_cases", "cases", "tests"])
@pytest.mark.parametrize("outcome", ["expected_outcome", "criteria", "outcome"])
def test_load__every_case_key_and_outcome_key(tmp_path: Path, key: str, outcome: str) -> None:
    (case,) = ok(load(tmp_path, ONE_CASE.format(key=key, outcome=outcome)))
    assert case.id == "greet" and case.prompt == "Hello!"
    (item,) = case.items
    assert isinstance(item, JudgeItem)
    assert (item.kind, item.scale, item.id) == ("freeform", Scale.UNIT, "default")
    assert "Says hello" in item.text
    assert case.extra.expected_outcome == "Says hello"


def test_load__two_case_lists_is_an_error(tmp_path: Path) -> None:
    text = "evalcases: [{id: a, input: x, criteria: y}]\ntests: [{id: b, input: x, criteria: y}]\n"
    (message,) = errors(load(tmp_path, text))
    assert "evals/EVAL.yaml:2: tests:" in message and "keep one" in message


def test_load__no_cases_and_not_a_mapping_are_errors(tmp_path: Path) -> None:
    assert "no cases" in errors(load(tmp_path, "name: ab\n", strict=True))[0]
    assert "mapping" in errors(load(tmp_path, "- 1\n- 2\n", name="e.eval.yaml", strict=True))[0]
    assert "mapping" in errors(load(tmp_path, "just text\n", name="x.eval.yaml", strict=True))[0]


def test_load__without_agentv_keys_its_problems_are_warnings_and_it_is_not_run(
    tmp_path: Path,
) -> None:
    for text in ("name: ab\n", "just text\n"):
        result = load(tmp_path, text, name="x.eval.yaml")
        assert not result.failed and result.suite is None, text
        assert result.problems[0].message.startswith("not run:"), text


def test_load__messages_system_history_and_trailing_user_turns(tmp_path: Path) -> None:
    text = """
    tests:
      - id: chat
        criteria: fixes it
        input:
          - role: system
            content: You debug.
          - role: user
            content: It breaks.
          - role: assistant
            content: What do you see?
          - role: user
            content: An off-by-one.
          - role: user
            content: Please fix.
    """
    (case,) = ok(load(tmp_path, text))
    assert case.system == "You debug."
    assert [(m.role, m.content) for m in case.messages] == [
        ("user", "It breaks."),
        ("assistant", "What do you see?"),
    ]
    assert case.prompt == "An off-by-one.\n\nPlease fix."
    assert (
        case.extra.question == "You debug. It breaks. What do you see? An off-by-one. Please fix."
    )


def test_load__input_messages_wins_and_vars_input_is_read(tmp_path: Path) -> None:
    text = """
    evalcases:
      - id: a
        outcome: x
        input: ignored
        input_messages: [{role: user, content: canonical}]
      - id: b
        criteria: x
        vars: {input: from vars, expected_output: "ref"}
    """
    a, b = ok(load(tmp_path, text))
    assert a.prompt == "canonical"
    assert (b.prompt, b.expected_output) == ("from vars", "ref")


def test_load__input_must_end_with_a_user_message(tmp_path: Path) -> None:
    text = """
    tests:
      - id: a
        criteria: x
        input: [{role: user, content: hi}, {role: assistant, content: hello}]
    """
    (message,) = errors(load(tmp_path, text))
    assert "evals/EVAL.yaml:5: tests[0].input:" in message and "end with a user message" in message


def test_load__bad_messages_are_errors_at_their_line(tmp_path: Path) -> None:
    text = """
    tests:
      - id: a
        criteria: x
        input:
          - role: robot
            content: hi
      - id: b
        criteria: x
        input: []
      - criteria: x
        input: hi
    """
    found = errors(load(tmp_path, text))
    assert any(m.startswith("evals/EVAL.yaml:6: tests[0].input[0]") for m in found)
    assert any("tests[1].input" in m and "non-empty" in m for m in found)
    assert any("tests[2]" in m and "needs `id:`" in m for m in found)


def test_load__file_blocks_are_staged_and_referenced(tmp_path: Path) -> None:
    text = """
    tests:
      - id: csv
        criteria: finds the top months
        input:
          - role: user
            content:
              - {type: file, value: files/sales.csv}
              - {type: file, value: /docs/guide.md}
              - {type: json, value: {a: 1}}
              - {type: text, value: Analyze it.}
    """
    result = load(tmp_path, text, files={"evals/files/sales.csv": "m,r\n", "docs/guide.md": "#\n"})
    (case,) = ok(result)
    assert [f.dest for f in case.files] == ["evals/files/sales.csv", "docs/guide.md"]
    assert case.files[0].source == (tmp_path / "evals/files/sales.csv").resolve()
    assert "[file: evals/files/sales.csv]" in case.prompt
    assert '"a": 1' in case.prompt and case.prompt.endswith("Analyze it.")
    assert case.extra.question == "Analyze it."
    assert case.extra.input_files == ("evals/files/sales.csv", "docs/guide.md")


def test_load__file_block_escape_and_missing_file_are_errors(tmp_path: Path) -> None:
    (tmp_path.parent / "secret.txt").write_text("x")
    text = """
    tests:
      - id: a
        criteria: x
        input:
          - role: user
            content:
              - {type: file, value: ../../secret.txt}
              - {type: file, value: nope.md}
              - {type: image, value: "https://example.com/a.png"}
    """
    found = errors(load(tmp_path, text))
    assert "outside the repository" in found[0] and ":8:" in found[0]
    assert "no such file: 'nope.md'" in found[1] and ":9:" in found[1]
    assert "URLs are not supported" in found[2]


def test_load__expected_output_shapes(tmp_path: Path) -> None:
    text = """
    tests:
      - {id: s, criteria: x, input: q, expected_output: plain}
      - {id: o, criteria: x, input: q, expected_output: {risk: Low}}
      - id: m
        criteria: x
        input: q
        expected_messages: [{role: assistant, content: "last"}]
      - {id: j, criteria: x, input: q, expected_output: '{"k": 2}'}
    """
    s, o, m, j = ok(load(tmp_path, text))
    assert s.expected_output == "plain"
    assert '"risk": "Low"' in o.expected_output
    assert m.expected_output == "last" and m.extra.expected_messages[0]["content"] == "last"
    assert j.extra.reference_answer == '{"k": 2}'


def test_load__note_conversation_and_timeouts(tmp_path: Path) -> None:
    text = """
    execution: {timeout_seconds: 120}
    tests:
      - {id: a, criteria: x, input: q, note: be kind, conversation_id: c1}
      - {id: b, criteria: x, input: q, execution: {timeout_seconds: 30, threshold: 0.5}}
    """
    a, b = ok(load(tmp_path, text))
    assert (a.timeout_seconds, b.timeout_seconds) == (120, 30)
    assert a.extra.note == "be kind" and a.extra.conversation_id == "c1"
    assert b.extra.threshold == 0.5


@pytest.mark.parametrize(
    ("fragment", "message"),
    [
        ("execution: {timeout_seconds: 0}", "out of range"),
        ("execution: {timeout_seconds: 4000}", "out of range"),
        ("execution: {timeout_seconds: 1.5}", "must be an integer"),
        ("execution: {threshold: 1.2}", "from 0 to 1"),
    ],
)
def test_load__execution_ranges(tmp_path: Path, fragment: str, message: str) -> None:
    text = f"{fragment}\ntests: [{{id: a, criteria: x, input: q}}]\n"
    (found,) = errors(load(tmp_path, text))
    assert found.startswith("evals/EVAL.yaml:1: execution.") and message in found


def test_load__suite_policy_name_and_threshold(tmp_path: Path) -> None:
    result = load(
        tmp_path,
        "name: my-eval-2\nexecution: {threshold: 0.9}\n"
        + ONE_CASE.format(key="tests", outcome="criteria"),
    )
    assert result.suite is not None
    assert result.suite.name == "my-eval-2"
    assert result.suite.policy.threshold == 0.9
    plain = load(tmp_path, ONE_CASE.format(key="tests", outcome="criteria"), name="x/EVAL.yaml")
    assert plain.suite is not None and plain.suite.policy.threshold == 0.8
    assert plain.suite.name == "x" and plain.suite.format is Format.AGENTV


@pytest.mark.parametrize("name", ["Code-Review", "has space", "x" * 65])
def test_load__suite_name_rules(tmp_path: Path, name: str) -> None:
    text = f"name: '{name}'\n" + ONE_CASE.format(key="tests", outcome="criteria")
    (found,) = errors(load(tmp_path, text))
    assert found.startswith("evals/EVAL.yaml:1: name:") and "not a valid eval name" in found


@pytest.mark.parametrize("name", ["-invalid", "invalid-", "my--eval", "a", "1st"])
def test_load__names_agentv_4_accepts_only_warn_about_the_spec(tmp_path: Path, name: str) -> None:
    """AgentV 4 asks for lowercase letters, digits and hyphens; the spec's stricter shape is
    advice, so such a name loads with a warning."""
    text = f"name: '{name}'\n" + ONE_CASE.format(key="tests", outcome="criteria")
    result = load(tmp_path, text)
    assert result.suite is not None and result.suite.name == name
    (warning,) = [p.render() for p in result.problems]
    assert "warning: " in warning and "does not follow the spec's rule" in warning


@pytest.mark.parametrize("name", ["code-review", "rag-accuracy", "my-eval-2", "ab"])
def test_load__valid_suite_names(tmp_path: Path, name: str) -> None:
    ok(load(tmp_path, f"name: {name}\n" + ONE_CASE.format(key="tests", outcome="criteria")))


def test_load__duplicate_case_ids_and_int_ids(tmp_path: Path) -> None:
    text = "tests:\n  - {id: 1, criteria: x, input: q}\n  - {id: '1', criteria: x, input: q}\n"
    (found,) = errors(load(tmp_path, text))
    assert "evals/EVAL.yaml:3: tests[1].id:" in found and "already used at" in found


def test_load__a_case_with_nothing_to_grade_is_an_error(tmp_path: Path) -> None:
    (found,) = errors(load(tmp_path, "tests: [{id: a, input: q}]\n"))
    assert "nothing grades this case" in found


def test_load__jsonl_dataset_with_sidecar(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals/dataset.yaml").write_text(
        "dataset: my-set\nexecution:\n  evaluators:\n"
        "    - {name: has-four, type: contains, value: '4'}\n"
    )
    rows = '{"id": "math", "criteria": "adds", "input": "2+2?"}\n\n{"id": "b", "input": "hi"}\n'
    result = load(tmp_path, rows, name="evals/dataset.jsonl")
    a, b = ok(result)
    assert result.suite is not None and result.suite.name == "my-set"
    assert [i.id for i in a.items] == ["has-four"] and isinstance(a.items[0], Check)
    assert b.origin.line == 3 and b.origin.path == "evals/dataset.jsonl"


def test_load__jsonl_sidecar_problems_point_at_the_sidecar(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals/dataset.yaml").write_text("execution:\n  timeout_seconds: -1\n")
    result = load(
        tmp_path, '{"id": "a", "criteria": "x", "input": "q"}\n', name="evals/dataset.jsonl"
    )
    (found,) = errors(result)
    assert found.startswith("evals/dataset.yaml:2: execution.timeout_seconds")


def test_load__tests_may_reference_case_files(tmp_path: Path) -> None:
    text = """
    tests:
      - {id: inline, criteria: x, input: q}
      - more/cases.yaml
      - /shared/rows.jsonl
    """
    result = load(
        tmp_path,
        text,
        files={
            "evals/more/cases.yaml": "- {id: from-yaml, criteria: x, input: q}\n",
            "shared/rows.jsonl": '{"id": "from-jsonl", "criteria": "x", "input": "q"}\n',
        },
    )
    cases = ok(result)
    assert [c.id for c in cases] == ["inline", "from-yaml", "from-jsonl"]
    assert cases[1].origin.path == "evals/more/cases.yaml"
    single = load(tmp_path, "tests: more/cases.yaml\n", name="evals/other.eval.yaml")
    assert [c.id for c in ok(single)] == ["from-yaml"]


def test_load__bad_case_file_references(tmp_path: Path) -> None:
    (tmp_path.parent / "out.yaml").write_text("- {id: x, criteria: y, input: z}\n")
    text = "tests:\n  - ../../out.yaml\n  - missing.yaml\n  - notes.txt\n"
    found = errors(load(tmp_path, text))
    assert "outside the repository" in found[0] and ":2:" in found[0]
    assert "no such file" in found[1] and ":3:" in found[1]
    assert ".yaml, .yml, .jsonl or .csv" in found[2]


def test_load__unreadable_referenced_file_is_a_problem_at_its_line(tmp_path: Path) -> None:
    (found,) = errors(load(tmp_path, "tests: [bad.yaml]\n", files={"evals/bad.yaml": "a: [\n"}))
    assert found.startswith("evals/bad.yaml:") and "invalid YAML" in found


# --- rubrics -------------------------------------------------------------------------------


def test_load__inline_rubrics_strings_and_objects(tmp_path: Path) -> None:
    text = """
    tests:
      - id: a
        criteria: explains quicksort
        input: q
        rubrics:
          - Mentions divide-and-conquer
          - id: sql
            expected_outcome: Identifies SQL injection
            weight: 3
            required: true
          - {id: soft, outcome: Friendly, required: 0.5}
    """
    (case,) = ok(load(tmp_path, text))
    first, sql, soft = case.items
    assert isinstance(first, JudgeItem) and isinstance(sql, JudgeItem)
    assert (first.id, first.text, first.scale, first.kind) == (
        "rubric/rubric-1",
        "Mentions divide-and-conquer",
        Scale.BINARY,
        "rubric",
    )
    assert (sql.id, sql.weight, sql.required, sql.group) == ("rubric/sql", 3.0, 1.0, "rubric")
    assert soft.required == 0.5
    assert list(case.extra.groups) == [ItemGroup("rubric", "rubric", 1.0, None, None)]


def test_load__score_ranges_make_range10_items(tmp_path: Path) -> None:
    text = """
    tests:
      - id: a
        criteria: x
        input: q
        rubrics:
          - id: accuracy
            weight: 2
            required_min_score: 8
            score_ranges: {0: wrong, 3: some, 7: most, 10: all}
          - id: brevity
            outcome: Short
            score_ranges:
              - {score_range: [0, 4], outcome: long}
              - {score_range: [5, 10], outcome: short}
    """
    (case,) = ok(load(tmp_path, text))
    accuracy, brevity = case.items
    assert isinstance(accuracy, JudgeItem) and isinstance(brevity, JudgeItem)
    assert accuracy.scale is Scale.RANGE10 and accuracy.required == 0.8
    assert dict(accuracy.anchors) == {
        "0": "wrong (scores 0-2)",
        "3": "some (scores 3-6)",
        "7": "most (scores 7-9)",
        "10": "all",
    }
    assert accuracy.params.score_ranges[0] == (0, 2, "wrong")
    assert brevity.text == "Short" and dict(brevity.anchors) == {
        "0": "long (scores 0-4)",
        "5": "short (scores 5-10)",
    }


@pytest.mark.parametrize(
    ("ranges", "message"),
    [
        ("{3: a, 10: b}", "must start at 0"),
        ("{0: a, 11: b}", "whole number from 0 to 10"),
        ("{0: a, x: b}", "whole number from 0 to 10"),
        ("[{score_range: [0, 5]}, {score_range: [5, 10]}]", "overlaps another at 5"),
        ("[{score_range: [0, 4]}, {score_range: [6, 10]}]", "leave 5 uncovered"),
        ("[{score_range: [0, 11]}]", "0 <= min <= max <= 10"),
        ("[{score_range: [0.5, 10]}]", "whole numbers"),
        ("fine", "is a mapping"),
    ],
)
def test_load__score_ranges_coverage_and_overlap(tmp_path: Path, ranges: str, message: str) -> None:
    text = f"""
    tests:
      - id: a
        criteria: x
        input: q
        rubrics:
          - id: r
            outcome: o
            score_ranges: {ranges}
    """
    (found,) = errors(load(tmp_path, text))
    assert "tests[0].rubrics[0].score_ranges" in found and message in found
    assert ":9:" in found or ":10:" in found


@pytest.mark.parametrize(
    ("rubric", "message"),
    [
        ("{id: r, outcome: o, weight: -1}", "at least 0"),
        ("{id: r, outcome: o, required_min_score: 11}", "from 0 to 10"),
        ("{id: r, outcome: o, required: 2}", "from 0 to 1"),
        ("{id: r}", "needs its criterion"),
        ("{id: 'a/b', outcome: o}", "without '/'"),
        ("{outcome: o, operator: maybe}", "correctness or contradiction"),
        ("7", "string or a mapping"),
    ],
)
def test_load__rubric_value_rules(tmp_path: Path, rubric: str, message: str) -> None:
    text = f"tests:\n  - id: a\n    criteria: x\n    input: q\n    rubrics:\n      - {rubric}\n"
    found = errors(load(tmp_path, text))
    assert any(message in m and ":6:" in m for m in found), found


def test_load__rubric_ids_must_differ_and_mixed_lists_need_ranges(tmp_path: Path) -> None:
    text = """
    tests:
      - id: a
        criteria: x
        input: q
        rubrics: [{id: r, outcome: o}, {id: r, outcome: p}]
      - id: b
        criteria: x
        input: q
        rubrics: [plain, {id: r, outcome: o, score_ranges: {0: a}}]
    """
    found = errors(load(tmp_path, text))
    assert any("'r' is used twice" in m for m in found)
    assert any("uses score_ranges" in m for m in found)


# --- evaluators ----------------------------------------------------------------------------

SPEC_EVALUATORS = """
execution:
  evaluators:
    - name: release_gate
      type: composite
      weight: 2
      evaluators:
        - name: safety
          type: llm_judge
          prompt: |
            Is it safe? Question: {{question}} Response: {{candidate_answer}} {{unknown}}
        - name: format
          type: code_judge
          script: ["python3", "judges/check.py", "--strict"]
          threshold: 3
      aggregator: {type: safety_gate, required: [safety]}
    - name: workflow
      type: tool_trajectory
      mode: in_order
      expected:
        - {tool: search, args: {query: any}}
        - {tool: summarize, max_duration_ms: 500}
    - name: efficiency
      type: execution_metrics
      max_tool_calls: 10
      max_duration_ms: 60000
      required: true
tests:
  - id: a
    criteria: researches
    input: Research Python
"""


def test_load__spec_evaluators_flatten_into_groups(tmp_path: Path) -> None:
    result = load(tmp_path, SPEC_EVALUATORS, files={"evals/judges/check.py": "print(1)\n"})
    (case,) = ok(result)
    safety, fmt, workflow, efficiency = case.items
    assert isinstance(safety, JudgeItem)
    assert (safety.id, safety.kind, safety.scale, safety.group) == (
        "release_gate/safety",
        "freeform",
        Scale.UNIT,
        "release_gate/safety",
    )
    assert "Question: Research Python" in safety.text
    assert "[the agent's final response, shown below]" in safety.text
    assert "{{unknown}}" in safety.text
    assert isinstance(fmt, Check) and fmt.kind == "agentv.code_judge"
    assert isinstance(fmt.params, CodeJudge)
    assert fmt.params.command == ("python3", "judges/check.py", "--strict")
    assert fmt.params.cwd == "evals"
    digest = hashlib.sha256(b"print(1)\n").hexdigest()
    assert fmt.params.stage == (StagedFile("judges/check.py", "evals/judges/check.py", digest),)
    assert fmt.params.config == {"threshold": 3}
    assert case.extra.grader_files == ("evals/judges/check.py",)
    assert isinstance(workflow, Check) and isinstance(workflow.params, ToolTrajectory)
    assert workflow.params.expected[1].max_duration_ms == 500
    assert "search → summarize" in workflow.text
    assert isinstance(efficiency, Check) and efficiency.required == 0.8
    assert isinstance(efficiency.params, Metrics)
    assert efficiency.params.limits == {"max_tool_calls": 10, "max_duration_ms": 60000}
    groups = {g.path: g for g in case.extra.groups}
    assert list(groups) == [
        "release_gate",
        "release_gate/safety",
        "release_gate/format",
        "workflow",
        "efficiency",
    ]
    gate = groups["release_gate"]
    assert gate.weight == 2.0 and gate.aggregator is not None
    assert gate.aggregator["type"] == "safety_gate"
    assert gate.aggregator["required"] == ["safety"]


def test_load__case_evaluators_replace_suite_ones_and_rubrics_come_first(tmp_path: Path) -> None:
    text = SPEC_EVALUATORS.replace(
        "    input: Research Python\n",
        "    input: Research Python\n    rubrics: [Cites sources]\n"
        "    evaluators:\n      - {name: rubric, type: contains, value: Python}\n",
    )
    (case,) = ok(load(tmp_path, text, files={"evals/judges/check.py": ""}))
    assert [i.id for i in case.items] == ["rubric-2/rubric-1", "rubric"]


def test_load__llm_judge_prompt_files(tmp_path: Path) -> None:
    text = """
    tests:
      - id: a
        criteria: x
        input: q
        assert:
          - {name: good, type: llm_judge, prompt: ../prompts/good.md, target: judge}
          - {name: bad, type: llm_judge, prompt: ../prompts/bad.md}
          - {name: gone, type: llm_judge, prompt: ../prompts/gone.md}
          - {name: gen, type: llm_judge, prompt: {script: [node, x.js]}}
    """
    files = {
        "prompts/good.md": "Grade {{ candidate_answer }} for {{criteria}}",
        "prompts/bad.md": "Hi",
    }
    result = load(tmp_path, text, files=files)
    found = [p.render() for p in result.problems]
    assert any("warning: ignored: one judge model" in m for m in found)
    assert not any("bad.md" in m for m in found)  # no variable: its text is the criteria
    assert any("no such file: '../prompts/gone.md'" in m for m in found)
    assert any("prompt scripts are not supported yet" in m for m in found)
    del files["prompts/bad.md"]
    text = text.split("          - {name: bad")[0]
    (case,) = ok(load(tmp_path, text, name="evals/two.eval.yaml"))
    (good,) = case.items
    assert isinstance(good, JudgeItem)
    assert good.text == "Grade [the agent's final response, shown below] for x"
    assert good.params.prompt_file == "prompts/good.md"


def test_load__later_spec_assertions(tmp_path: Path) -> None:
    text = """
    tests:
      - id: a
        input: q
        assert:
          - {type: contains, value: --full}
          - {type: icontains-any, value: [weighted, seasonal]}
          - {type: not-contains, value: secret}
          - {type: regex, value: 'agentv\\s+skills'}
          - {type: equals, value: "4"}
          - {type: is_json}
          - {type: skill-used, value: csv-analyzer}
          - {type: not-skill-used, value: other}
          - {type: skill-trigger, skill: csv-analyzer}
          - {type: llm-rubric, value: [Applies weights, {id: w, outcome: Shows values}]}
          - {type: rubrics, criteria: [Suggests the command]}
          - Uses the skill's formula
          - {type: latency, threshold: 2000}
          - {type: cost, budget: 0.1}
          - {type: token_usage, max_total: 900}
    """
    (case,) = ok(load(tmp_path, text))
    kinds = [(i.id, i.kind if isinstance(i, Check) else i.scale.value) for i in case.items]
    assert kinds == [
        ("contains", "agentv.contains"),
        ("icontains_any", "agentv.contains"),
        ("not_contains", "agentv.contains"),
        ("regex", "agentv.regex"),
        ("equals", "agentv.equals"),
        ("is_json", "agentv.is_json"),
        ("skill_used", "agentv.skill_used"),
        ("not_skill_used", "agentv.skill_used"),
        ("skill_trigger", "agentv.skill_used"),
        ("rubric/rubric-1", "binary"),
        ("rubric/w", "binary"),
        ("rubric-2/rubric-1", "binary"),
        ("criteria/rubric-1", "binary"),
        ("latency", "agentv.execution_metrics"),
        ("cost", "agentv.execution_metrics"),
        ("token_usage", "agentv.execution_metrics"),
    ]
    by_id = {i.id: i for i in case.items}
    params = {key: item.params for key, item in by_id.items() if isinstance(item, Check)}
    assert params["icontains_any"] == TextRule("contains", ("weighted", "seasonal"), "any", True)
    assert isinstance(params["not_contains"], TextRule) and params["not_contains"].negate
    assert isinstance(params["not_skill_used"], SkillUse)
    assert params["not_skill_used"].should_trigger is False
    assert isinstance(params["skill_trigger"], SkillUse) and params["skill_trigger"].first_only
    limits = {k: dict(params[k].limits) for k in ("latency", "cost", "token_usage")}
    assert limits == {
        "latency": {"max_duration_ms": 2000},
        "cost": {"max_cost_usd": 0.1},
        "token_usage": {"max_tokens": 900},
    }
    assert by_id["criteria/rubric-1"].text == "Uses the skill's formula"


def test_load__field_accuracy_reads_the_expected_object(tmp_path: Path) -> None:
    text = """
    execution:
      evaluators:
        - name: fields
          type: field_accuracy
          fields:
            - {path: invoice_number, match: exact, weight: 2}
            - {path: "line_items[0].total", match: numeric_tolerance, tolerance: 1, required: false}
            - {path: code, match: regex, pattern: '^INV-'}
          aggregation: all_or_nothing
    tests:
      - id: a
        criteria: x
        input: q
        expected_output: [{role: assistant, content: {invoice_number: "INV-1"}}]
      - id: b
        criteria: x
        input: q
    """
    found = errors(load(tmp_path, text))
    assert len(found) == 1 and "tests[1]" in found[0] and "expected_output object" in found[0]
    (case,) = ok(load(tmp_path, text.split("      - id: b")[0], name="evals/f.eval.yaml"))
    (check,) = case.items
    assert isinstance(check, Check) and check.kind == "agentv.field_accuracy"
    assert isinstance(check.params, FieldAccuracy)
    assert check.params.expected == {"invoice_number": "INV-1"}
    assert check.params.aggregation == "all_or_nothing"
    assert check.params.fields[1].required is False
    assert check.params.fields[0] == FieldSpec("invoice_number", "exact", True, 2.0)


@pytest.mark.parametrize(
    ("evaluator", "message"),
    [
        ("{name: x, type: magic}", "unknown grader type 'magic'"),
        ("{name: x}", "needs `type:`"),
        ("{name: x, type: contains, weight: -2}", "at least 0"),
        ("{name: x, type: contains, value: a, required: 3}", "from 0 to 1"),
        ("{name: 'a/b', type: contains, value: a}", "without '/'"),
        ("{name: x, type: code_judge}", "needs `script:`"),
        ("{name: x, type: code_judge, script: [python, gone.py]}", "no such file: 'gone.py'"),
        ("{name: x, type: code_judge, script: [sh], cwd: ../../..}", "not a folder inside"),
        ("{name: x, type: tool_trajectory, mode: sideways}", "unknown mode"),
        ("{name: x, type: tool_trajectory}", "any_order needs `minimums"),
        ("{name: x, type: tool_trajectory, mode: exact}", "exact needs `expected:`"),
        ("{name: x, type: tool_trajectory, minimums: {a: -1}}", "at least 0"),
        ("{name: x, type: tool_trajectory, mode: exact, expected: [{args: {}}]}", "needs `tool:`"),
        ("{name: x, type: tool_trajectory, mode: exact, expected: [{tool: a, args: 3}]}", "`any`"),
        ("{name: x, type: field_accuracy}", "needs `fields:`"),
        ("{name: x, type: field_accuracy, fields: [{path: 'a..b'}]}", "not a dot path"),
        ("{name: x, type: field_accuracy, fields: [{path: a, match: fuzzy}]}", "unknown match"),
        ("{name: x, type: field_accuracy, fields: [{path: a}], aggregation: mean}", "use one of"),
        ("{name: x, type: field_accuracy, fields: [{path: a, tolerance: -1}]}", "at least 0"),
        ("{name: x, type: execution_metrics}", "needs at least one limit"),
        ("{name: x, type: execution_metrics, max_tokens: -5}", "at least 0"),
        ("{name: x, type: execution_metrics, target_exploration_ratio: 2}", "ratio from 0 to 1"),
        ("{name: x, type: regex, value: '(?=a)'}", "invalid RE2 pattern"),
        ("{name: x, type: contains, value: [1]}", "list of strings"),
        ("{name: x, type: equals, value: [a, b]}", "one string"),
        ("{name: x, type: skill-used}", "must be a string"),
        ("{name: x, type: composite, evaluators: []}", "needs its child graders"),
        ("{name: x, type: composite, assertions: []}", "needs its child graders"),
        ("{name: x, type: rubric, rubrics: []}", "non-empty list of criteria"),
        ("7", "a mapping with name and type"),
    ],
)
def test_load__evaluator_rules(tmp_path: Path, evaluator: str, message: str) -> None:
    text = f"tests:\n  - id: a\n    criteria: x\n    input: q\n    assert:\n      - {evaluator}\n"
    found = errors(load(tmp_path, text))
    assert any(message in m and ":6:" in m and "tests[0].assert[0]" in m for m in found), found


def test_load__duplicate_evaluator_names(tmp_path: Path) -> None:
    text = (
        "tests:\n  - id: a\n    input: q\n    assert:\n"
        "      - {name: x, type: is_json}\n      - {name: x, type: is_json}\n"
    )
    (found,) = errors(load(tmp_path, text))
    assert "evals/EVAL.yaml:6: tests[0].assert[1].name" in found and "names must differ" in found


@pytest.mark.parametrize(
    ("aggregator", "message"),
    [
        ("{type: code_judge, path: node agg.js}", "code_judge aggregators are not supported yet"),
        ("{type: llm_judge, prompt: p.md}", "llm_judge aggregators are not supported yet"),
        ("{type: median}", "unknown aggregator 'median'"),
        ("{type: weighted_average, weights: {nobody: 1}}", "no child evaluator is named 'nobody'"),
        ("{type: weighted_average, weights: {a: -1}}", "at least 0"),
        ("{type: safety_gate}", "safety_gate needs `required:`"),
        ("{type: safety_gate, required: [zed]}", "no child evaluator is named 'zed'"),
        ("{type: all_or_nothing, threshold: 1.5}", "from 0 to 1"),
    ],
)
def test_load__composite_aggregator_rules(tmp_path: Path, aggregator: str, message: str) -> None:
    text = f"""
    tests:
      - id: c
        input: q
        assert:
          - name: gate
            type: composite
            evaluators: [{{name: a, type: is_json}}, {{name: b, type: is_json}}]
            aggregator: {aggregator}
    """
    found = errors(load(tmp_path, text))
    assert any(message in m and "aggregator" in m and ":9:" in m for m in found), found


@pytest.mark.parametrize(
    "kind", ["weighted_average", "minimum", "maximum", "safety_gate", "all_or_nothing"]
)
def test_load__every_spec_aggregator_loads(tmp_path: Path, kind: str) -> None:
    text = f"""
    tests:
      - id: c
        input: q
        assert:
          - name: gate
            type: composite
            evaluators:
              - {{name: inner, type: composite, evaluators: [{{name: a, type: is_json}}]}}
              - {{name: b, type: is_json, weight: 3}}
            aggregator: {{type: {kind}, required: [b], threshold: 0.7, weights: {{b: 2}}}}
    """
    (case,) = ok(load(tmp_path, text))
    assert [i.group for i in case.items] == ["gate/inner/a", "gate/b"]
    gate = case.extra.groups[0]
    assert gate.aggregator == {
        "type": kind,
        "weights": {"b": 2.0},
        "required": ["b"],
        "threshold": 0.7,
    }
    assert [g.path for g in case.extra.groups] == [
        "gate",
        "gate/inner",
        "gate/inner/a",
        "gate/b",
    ]


def test_load__junk_documents_never_raise(tmp_path: Path) -> None:
    junk = [
        "tests: 5\n",
        "tests: [5, null, [], {id: []}]\n",
        "tests: [{id: a, input: {x: 1}, criteria: [1]}]\n",
        "tests: [{id: a, input: q, assert: {x: 1}}]\n",
        "tests: [{id: a, input: q, rubrics: 5, execution: []}]\n",
        "execution: 3\ntests: [{id: a, input: q, criteria: c}]\n",
        "tests: [{id: a, input: [{role: user, content: {x: 1}}], criteria: c}]\n",
        "tests: [{id: a, input: [{role: user, content: [{type: video, value: v}]}]}]\n",
        "tests: [{id: a, input: [{role: tool, content: t}, {role: user, content: u}]}]\n",
        "tests: [{id: a, input: q, criteria: c, expected_output: 5}]\n",
        "name: 5\ntests: [{id: a, input: q, criteria: c}]\n",
    ]
    for n, text in enumerate(junk):
        result = load(tmp_path, text, name=f"evals/j{n}.eval.yaml")
        assert result.suite is None and result.errors, text


def test_load__file_references_search_parent_folders_like_agentv(tmp_path: Path) -> None:
    text = """
    tests:
      - id: a
        criteria: x
        input: [{role: user, content: [{type: file, value: ../basic/notes.md}]}]
        assert:
          - {name: j, type: code_judge, script: [python3, ../basic/notes.py]}
    """
    files = {"examples/basic/notes.md": "n\n", "examples/basic/notes.py": ""}
    found = errors(load(tmp_path, text, name="examples/jsonl/evals/EVAL.yaml", files=files))
    # The file block is found in a parent folder; the script path is the command's own.
    assert len(found) == 1 and "no such file: '../basic/notes.py'" in found[0]


# --- robustness ----------------------------------------------------------------------------

_KEYS = (
    "tests evalcases id input input_messages role content type value criteria expected_outcome"
    " rubrics score_ranges assert evaluators execution name weight required aggregator fields"
    " path match mode expected minimums tool args script prompt vars expected_output 0 10"
    " threshold timeout_seconds required_min_score operator cwd weights score_range"
).split()
_WORDS = (
    "composite rubric llm_judge code_judge tool_trajectory field_accuracy execution_metrics"
    " contains regex is_json skill-used latency user system assistant tool file text json image"
    " weighted_average safety_gate all_or_nothing any a.b[0] ( /etc/passwd ../x exact date"
).split()


def _documents() -> st.SearchStrategy[object]:
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 12),
        st.floats(-2, 12, allow_nan=False),
        st.sampled_from(_WORDS),
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(st.sampled_from(_KEYS), inner, max_size=6),
        ),
        max_leaves=40,
    )


def _shaped() -> st.SearchStrategy[object]:
    """Plausible files with random parts, so the fuzzing reaches the evaluator parsers."""
    anything = _documents()
    evaluator = st.dictionaries(st.sampled_from(_KEYS), anything, max_size=5).map(
        lambda d: {"type": d.pop("type", "composite"), **d}
    )
    evaluator = st.one_of(
        evaluator,
        st.builds(
            lambda t, e, extra: {"type": t, "evaluators": e, **extra},
            st.sampled_from(["composite", "rubric", "llm_judge"]),
            st.lists(evaluator, max_size=3),
            st.dictionaries(st.sampled_from(_KEYS), anything, max_size=3),
        ),
    )
    case = st.fixed_dictionaries(
        {"id": st.sampled_from(["a", "b", 1]), "input": anything, "assert": st.lists(evaluator)},
        optional={"rubrics": anything, "criteria": anything, "expected_output": anything},
    )
    return st.fixed_dictionaries({"tests": st.lists(case, min_size=1, max_size=3)})


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.one_of(_documents(), _shaped()))
def test_load__any_document_gives_problems_not_exceptions(data: object) -> None:
    root = Path(tempfile.gettempdir()) / "agentv-fuzz-root"
    (root / "evals").mkdir(parents=True, exist_ok=True)
    doc = Document(path=root / "evals" / "EVAL.yaml", rel="evals/EVAL.yaml", data=data)
    result = agentv.load(doc, LoadContext(root=root, skill=Skill("s", None)))
    assert result.ok or result.errors
    for problem in result.problems:
        assert problem.message and problem.origin.path == "evals/EVAL.yaml"


def test_load__paths_too_long_for_the_os_are_problems(tmp_path: Path) -> None:
    long = "x" * 5000
    text = f"""
    tests:
      - id: a
        criteria: x
        input: [{{role: user, content: [{{type: file, value: {long}.md}}]}}]
        assert:
          - {{name: p, type: llm_judge, prompt: {long}.md}}
          - {{name: j, type: code_judge, script: [python3, {long}.py], cwd: {long}}}
      - {long}.yaml
    """
    found = errors(load(tmp_path, text))
    assert sum("cannot use the path" in m for m in found) == 3, found
    assert any("is not a folder inside the repository" in m for m in found)


def test_load__composites_nested_too_deeply_are_an_error(tmp_path: Path) -> None:
    evaluator = "{type: is_json}"
    for _ in range(40):
        evaluator = f"{{type: composite, evaluators: [{evaluator}]}}"
    text = f"tests:\n  - id: a\n    input: q\n    assert: [{evaluator}]\n"
    (found,) = errors(load(tmp_path, text))
    assert "composites nest more than 16 levels deep" in found


def test_load__generated_evaluator_names_avoid_written_ones(tmp_path: Path) -> None:
    text = """
    tests:
      - id: a
        input: q
        assert:
          - {type: contains, value: x}
          - {name: contains, type: regex, value: y}
          - {type: contains, value: z}
          - One criterion
          - {name: criteria, type: is_json}
    """
    (case,) = ok(load(tmp_path, text))
    assert [i.id for i in case.items] == [
        "contains-2",
        "contains",
        "contains-3",
        "criteria-2/rubric-1",
        "criteria",
    ]


def test_load__prompts_templates_wrap_text_inputs(tmp_path: Path) -> None:
    text = """
    prompts: ["Answer briefly: {{ input }} (for {{ who }})", "ignored"]
    tests:
      - {id: a, criteria: x, vars: {input: "What is 2+2?", who: kids}}
      - {id: b, criteria: x, input: [{role: user, content: hi}]}
    """
    result = load(tmp_path, text)
    a, b = ok(result)
    assert a.prompt == "Answer briefly: What is 2+2? (for kids)"
    assert b.prompt == "hi"
    warnings = [p.render() for p in result.problems]
    assert any("2 prompts: only the first is used" in w for w in warnings)
    assert any("tests[1].input" in w and "messages go as written" in w for w in warnings)
    plain = load(tmp_path, text.replace('"Answer briefly: {{ input }} (for {{ who }})", ', ""))
    assert ok(plain)[0].prompt == "ignored"
    bad = load(tmp_path, "prompts: 5\ntests: [{id: a, criteria: x, input: q}]\n", name="b.yaml")
    assert "prompts: must be a list of prompts" in errors(bad)[0]


def test_load__ignored_settings_warn(tmp_path: Path) -> None:
    text = """
    tests:
      - id: a
        input: q
        assert:
          - {name: j, type: code_judge, script: [sh, -c, "echo"], target: {max_calls: 2}}
          - {name: p, type: llm_judge, prompt: "Rate {{candidate_answer}} on {{tone}}"}
    """
    result = load(tmp_path, text)
    ok(result)
    warnings = [p.render() for p in result.problems]
    assert any(
        "assert[0].target: warning: ignored: judge scripts cannot call" in w for w in warnings
    )
    assert any("assert[1].prompt: warning: unknown template variables" in w for w in warnings)
    assert any("{{tone}}" in w for w in warnings)


def _skill_repo(tmp_path: Path, *names: str) -> None:
    for name in names:
        (tmp_path / "skills" / name).mkdir(parents=True)
        (tmp_path / "skills" / name / "SKILL.md").write_text(f"---\nname: {name}\n---\n")


def test_load__the_skill_is_found_by_name_or_by_metadata(tmp_path: Path) -> None:
    _skill_repo(tmp_path, "demo", "other")
    plain = load(
        tmp_path, ONE_CASE.format(key="tests", outcome="criteria"), name="evals/demo/EVAL.yaml"
    )
    assert plain.suite is not None
    assert plain.suite.skill.dir == tmp_path / "skills" / "demo"
    named = load(
        tmp_path, "metadata: {skill: other}\n" + ONE_CASE.format(key="tests", outcome="criteria")
    )
    assert named.suite is not None and named.suite.skill.name == "other"
    assert named.suite.skill.dir == tmp_path / "skills" / "other"
    missing = load(
        tmp_path, "metadata: {skill: nope}\n" + ONE_CASE.format(key="tests", outcome="criteria")
    )
    assert missing.suite is not None and missing.suite.skill == Skill("nope", None)


def test_load__metadata_skill_path(tmp_path: Path) -> None:
    _skill_repo(tmp_path, "x")
    case = ONE_CASE.format(key="tests", outcome="criteria")
    found = load(tmp_path, "metadata: {skill_path: ../skills/x}\n" + case)
    assert found.suite is not None and found.suite.skill == Skill("x", (tmp_path / "skills/x"))
    wrong = load(tmp_path, "metadata: {skill_path: ../nowhere, skill: x}\n" + case)
    assert wrong.suite is not None and wrong.suite.skill.dir == tmp_path / "skills" / "x"
    assert "metadata.skill_path: warning: no SKILL.md there" in wrong.problems[0].render()


def test_load__check_texts_read_as_expectations(tmp_path: Path) -> None:
    text = """
    tests:
      - id: a
        input: q
        assert:
          - {type: contains, value: Ada}
          - {type: not-icontains-any, value: [x, y]}
          - {type: regex, value: '^a'}
          - {type: not-regex, value: b}
          - {type: is_json}
          - {type: equals, value: '4'}
          - {type: starts-with, value: Hi}
          - {type: skill-used, value: s}
          - {type: not-skill-used, value: s}
          - {type: tool_trajectory, minimums: {Read: 2}}
          - {type: execution_metrics, max_tokens: 100, target_exploration_ratio: 0.5}
          - {type: field_accuracy, fields: [{path: a}]}
        expected_output: {a: 1}
    """
    (case,) = ok(load(tmp_path, text))
    assert [i.text.split(": ", 1)[1] for i in case.items] == [
        "answer contains 'Ada'",
        "answer does not contain any of 'x', 'y' (any case)",
        "answer matches /^a/",
        "answer does not match /b/",
        "answer is valid JSON",
        "answer equals '4'",
        "answer starts with 'Hi'",
        "the agent uses the skill 's'",
        "the agent does not use the skill 's'",
        "tool calls at least Read ×2",
        "within limits (tokens ≤ 100, exploration ratio 0.5 ± 0.2)",
        "answer JSON fields match the expected output (a)",
    ]


def test_load__editing_a_judge_script_changes_the_case_fingerprint(tmp_path: Path) -> None:
    text = (
        "tests:\n  - id: a\n    input: q\n    assert:\n"
        "      - {type: code_judge, script: [python3, j.py]}\n"
    )
    first = load(tmp_path, text, files={"evals/j.py": "print(1)\n"})
    again = load(tmp_path, text, files={"evals/j.py": "print(1)\n"})
    edited = load(tmp_path, text, files={"evals/j.py": "print(2)\n"})
    suites = [r.suite for r in (first, again, edited) if r.suite is not None]
    digests = [case_digest(suite, suite.cases[0]) for suite in suites]
    assert len(digests) == 3
    assert digests[0] == digests[1] != digests[2]


def test_read__scalar_keys_turn_numeric_keys_into_strings(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text("bands:\n  0: low\n  10: high\n  true: odd\n")
    assert read(path, "r.yaml", scalar_keys=True).data == {
        "bands": {"0": "low", "10": "high", "true": "odd"}
    }
    with pytest.raises(DocumentError):
        read(path, "r.yaml")


# --- AgentV 4's `assertions` list; files that evaluate a model rather than a skill --------


def test_assertions_is_agentv_4s_name_for_the_evaluator_list(tmp_path: Path) -> None:
    result = load(
        tmp_path,
        """\
        assertions:
          - {type: contains, value: suite}
        tests:
          - id: own
            criteria: The reply mentions kw1x
            input: 'Keyword: kw1x'
            assertions:
              - {type: regex, value: '\\bkw1x\\b'}
              - {type: llm-grader, name: judge}
          - id: inherits
            criteria: Anything
            input: hi
        """,
        name="bench.eval.yaml",
    )
    own, inherits = ok(result)
    # AgentV 4 runs the suite's `assertions` after each case's own (default-graders example).
    assert [i.kind for i in own.checks] == ["agentv.regex", "agentv.contains"]
    assert len(own.judge_items) == 1 and "kw1x" in own.judge_items[0].text
    assert [i.kind for i in inherits.checks] == ["agentv.contains"]


def test_a_file_that_names_no_skill_evaluates_the_model(tmp_path: Path) -> None:
    text = """\
        tests:
          - {id: a, criteria: says hi, input: hi}
        """
    result = load(tmp_path, text, name="bench.eval.yaml")
    assert result.suite is not None and result.suite.agent is False


def test_a_file_that_names_a_skill_is_an_agent_eval_even_when_the_skill_is_missing(
    tmp_path: Path,
) -> None:
    text = """\
        metadata: {skill: nowhere}
        tests:
          - {id: a, criteria: says hi, input: hi}
        """
    result = load(tmp_path, text, name="bench.eval.yaml")
    assert result.suite is not None and result.suite.agent is True
    assert result.suite.skill.dir is None  # the run reports the missing skill


def test_a_file_beside_its_skill_is_an_agent_eval(tmp_path: Path) -> None:
    (tmp_path / "skills/demo").mkdir(parents=True)
    (tmp_path / "skills/demo/SKILL.md").write_text("---\nname: demo\ndescription: d\n---\n")
    text = """\
        tests:
          - {id: a, criteria: says hi, input: hi}
        """
    result = load(tmp_path, text, name="bench.eval.yaml")
    assert result.suite is not None and result.suite.agent is True
