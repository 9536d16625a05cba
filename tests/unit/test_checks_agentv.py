"""agentv checks: code_judge scripts (real processes), text rules, trace and field checks."""

from __future__ import annotations

import json
from pathlib import Path
from textwrap import dedent

import pytest

from evolve_action.formats import load_file
from evolve_action.formats.base import LoadContext
from evolve_action.grade.checks import CheckContext, run_check
from evolve_action.grade.scoring import policy_for
from evolve_action.model.evals import Case, Format, Skill, Suite
from evolve_action.model.outcomes import (
    ItemResult,
    JudgeReport,
    ToolCall,
    Transcript,
    Usage,
)
from tests.fakes.commands import run_command


def load_case(tmp_path: Path, assertions: str, extra: str = "", **files: str) -> tuple[Suite, Case]:
    for rel, body in files.items():
        target = tmp_path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(dedent(body))
    listed = "".join(f"      {line}\n" for line in dedent(assertions).splitlines())
    text = (
        "tests:\n  - id: case\n    criteria: Answers well\n    input:\n"
        "      - role: user\n        content:\n"
        "          - {type: text, value: 'What is 2+2?'}\n"
        "          - {type: file, value: data.txt}\n"
        f"{extra}    assert:\n{listed}"
    )
    path = tmp_path / "evals" / "EVAL.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "evals" / "data.txt").write_text("numbers\n")
    path.write_text(text)
    result = load_file(
        path, "evals/EVAL.yaml", Format.AGENTV, LoadContext(tmp_path, Skill("s", None))
    )
    assert result.suite is not None, [p.render() for p in result.problems]
    return result.suite, result.suite.cases[0]


def context(
    suite: Suite, case: Case, workspace: Path, transcript: Transcript, **kw: object
) -> CheckContext:
    workspace.mkdir(parents=True, exist_ok=True)
    return CheckContext(
        suite=suite,
        case=case,
        workspace=workspace,
        transcript=transcript,
        run_command=run_command,
        timeout_s=float(kw.pop("timeout_s", 20.0)),  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )


async def grade(
    tmp_path: Path, assertions: str, transcript: Transcript, **kw: object
) -> list[ItemResult]:
    files = {k: str(v) for k, v in kw.pop("files", {}).items()}  # type: ignore[attr-defined]
    suite, case = load_case(tmp_path, assertions, str(kw.pop("extra", "")), **files)
    ctx = context(suite, case, tmp_path / "ws", transcript, **kw)
    return [await run_check(check, ctx) for check in case.checks]


def answer(text: str, *calls: ToolCall, **usage: int) -> Transcript:
    return Transcript(final_text=text, tool_calls=list(calls), turns=3, usage=Usage(**usage))


def call(name: str, args: object = None, duration_s: float = 0.0) -> ToolCall:
    return ToolCall(name, json.dumps(args or {}), "ok", duration_s=duration_s)


# --- code_judge ----------------------------------------------------------------------------

JUDGE = """\
import json, sys
from pathlib import Path
d = json.load(sys.stdin)
misses = []
pairs = [("candidate_answer", "candidateAnswer"), ("expected_outcome", "expectedOutcome"),
         ("reference_answer", "referenceAnswer"), ("input_messages", "inputMessages"),
         ("trace_summary", "traceSummary"), ("output_messages", "outputMessages"),
         ("expected_messages", "expectedMessages"), ("input_files", "inputFiles")]
for snake, camel in pairs:
    if d.get(snake) != d.get(camel) and snake != "trace_summary":
        misses.append(snake)
if d["candidate_answer"] != "The answer is 4." or d["expected_outcome"] != "Answers well":
    misses.append("answer/outcome")
if d["question"] != "What is 2+2?" or d["config"] != {"level": 2}:
    misses.append("question/config")
if d["trace_summary"]["tool_names"] != ["Read"] or d["traceSummary"]["eventCount"] != 1:
    misses.append("trace")
if not Path(d["input_files"][0]).name == "data.txt":
    misses.append("files")
if Path("judges/helper.txt").read_text() != "staged\\n":
    misses.append("staging")
print("log line before the verdict")
print(json.dumps({"score": 0.9 if not misses else 0.0, "hits": ["both spellings"],
                  "misses": misses, "reasoning": "checked the contract"}))
"""


async def test_code_judge__reads_both_key_spellings_from_stdin(tmp_path: Path) -> None:
    (result,) = await grade(
        tmp_path,
        "- {name: judge, type: code_judge, script: [python3, judges/judge.py, judges/helper.txt],"
        " level: 2}\n",
        answer("The answer is 4.", call("Read", {"file_path": "data.txt"})),
        files={"evals/judges/judge.py": JUDGE, "evals/judges/helper.txt": "staged\n"},
    )
    assert result.evidence.startswith("score 0.90"), result.evidence
    assert (result.passed, result.score) == (True, 0.9)
    assert "checked the contract" in result.evidence and "hits: both spellings" in result.evidence


async def test_code_judge__copies_the_script_after_the_agent_ran(tmp_path: Path) -> None:
    await grade(
        tmp_path,
        "- {name: judge, type: code_judge,"
        " script: [python3, judges/judge.py, judges/helper.txt]}\n",
        answer("x"),
        files={"evals/judges/judge.py": JUDGE, "evals/judges/helper.txt": "staged\n"},
    )
    (run,) = (tmp_path / "ws" / ".agentv-judge").iterdir()
    staged = run / "evals" / "judges" / "judge.py"
    assert staged.read_text() == dedent(JUDGE)


async def test_code_judge__never_writes_through_a_planted_symlink(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / ".agentv-judge").symlink_to(outside)
    (result,) = await grade(
        tmp_path,
        "- {name: judge, type: code_judge,"
        " script: [python3, judges/judge.py, judges/helper.txt]}\n",
        answer("The answer is 4."),
        files={"evals/judges/judge.py": JUDGE, "evals/judges/helper.txt": "staged\n"},
    )
    assert list(outside.iterdir()) == []
    assert (tmp_path / "ws" / ".agentv-judge").is_dir()
    assert "score" in result.evidence


@pytest.mark.parametrize(
    ("script", "score", "passed", "evidence"),
    [
        ("print('{\"score\": 7}')", 1.0, True, "score 1.00"),
        ('print(\'{"score": -1, "misses": ["all"]}\')', 0.0, False, "misses: all"),
        ("print('{\"score\": 0.5}')", 0.5, False, "score 0.50"),
        ("import sys; sys.stderr.write('boom'); sys.exit(3)", 0.0, False, "code 3: boom"),
        ("print('not json')", 0.0, False, "did not print a JSON object: not json"),
        ('print(\'{"verdict": "pass"}\')', 0.0, False, "no numeric score"),
        ("print('{\"score\": true}')", 0.0, False, "no numeric score"),
    ],
)
async def test_code_judge__outcomes(
    tmp_path: Path, script: str, score: float, passed: bool, evidence: str
) -> None:
    argv = json.dumps(["python3", "-c", script])
    (result,) = await grade(
        tmp_path, f"- {{name: j, type: code_judge, script: {argv}}}\n", answer("x")
    )
    assert (result.score, result.passed) == (score, passed), result.evidence
    assert evidence in result.evidence


async def test_code_judge__shell_string_and_timeout(tmp_path: Path) -> None:
    (ok,) = await grade(
        tmp_path,
        '- {name: j, type: code_judge, script: \'echo "{\\"score\\": 1}"\'}\n',
        answer("x"),
    )
    assert ok.passed is True and ok.score == 1.0
    (slow,) = await grade(
        tmp_path / "b",
        "- {name: j, type: code_judge, script: [sleep, '5']}\n",
        answer("x"),
        timeout_s=0.3,
    )
    assert slow.passed is False and "timed out after 0.3 s" in slow.evidence


async def test_code_judge__a_missing_program_fails_with_evidence(tmp_path: Path) -> None:
    (result,) = await grade(
        tmp_path, "- {name: j, type: code_judge, script: [no-such-program-xyz]}\n", answer("x")
    )
    assert result.passed is False and "could not start" in result.evidence


async def test_code_judge__required_floor_is_the_pass_mark(tmp_path: Path) -> None:
    argv = json.dumps(["python3", "-c", "print('{\"score\": 0.5}')"])
    (result,) = await grade(
        tmp_path, f"- {{name: j, type: code_judge, script: {argv}, required: 0.5}}\n", answer("x")
    )
    assert result.passed is True and result.score == 0.5


# --- text rules ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("assertion", "text", "passed"),
    [
        ("{type: contains, value: --full}", "run agentv skills get x --full", True),
        ("{type: contains, value: --full}", "run it", False),
        ("{type: contains, value: [a, b]}", "a only", False),
        ("{type: contains-any, value: [a, z]}", "a only", True),
        ("{type: icontains-any, value: [Weighted, seasonal]}", "WEIGHTED revenue", True),
        ("{type: icontains-all, value: [q1, q2]}", "Q1 and Q2", True),
        ("{type: icontains, value: Hello}", "hello", True),
        ("{type: not-contains, value: secret}", "the secret", False),
        ("{type: not-contains, value: secret}", "public", True),
        ("{type: equals, value: '4'}", "  4\n", True),
        ("{type: equals, value: '4'}", "4.0", False),
        ("{type: starts-with, value: Yes}", "  Yes, indeed", True),
        ("{type: regex, value: 'agentv\\s+skills\\s+list'}", "agentv  skills list", True),
        ("{type: regex, value: '^\\d+$'}", "12a", False),
        ("{type: not-regex, value: 'TODO'}", "done", True),
        ("{type: is_json}", '```json\n{"a": 1}\n```', True),
        ("{type: is_json}", 'Here: {"a": 1}', False),
        ("{type: not-is_json}", "plain", True),
    ],
)
async def test_text_rules(tmp_path: Path, assertion: str, text: str, passed: bool) -> None:
    (result,) = await grade(tmp_path, f"- {assertion}\n", answer(text))
    assert result.passed is passed, result.evidence
    assert result.score == (1.0 if passed else 0.0)


# --- skill use -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("assertion", "calls", "passed"),
    [
        ("{type: skill-used, value: csv}", [call("Skill", {"skill": "csv"})], True),
        ("{type: skill-used, value: csv}", [call("Skill", {"skill": "plug:csv"})], True),
        (
            "{type: skill-used, value: csv}",
            [call("Read", {"file_path": "a/skills/csv/SKILL.md"})],
            True,
        ),
        ("{type: skill-used, value: csv}", [call("Skill", {"skill": "other"})], False),
        ("{type: not-skill-used, value: csv}", [call("Bash", {"command": "date"})], True),
        ("{type: not-skill-used, value: csv}", [call("Skill", {"skill": "csv"})], False),
        (
            "{type: skill-trigger, skill: csv}",
            [call("Bash"), call("Skill", {"skill": "csv"})],
            False,
        ),
        ("{type: skill-trigger, skill: csv, should_trigger: false}", [call("Bash")], True),
    ],
)
async def test_skill_used(
    tmp_path: Path, assertion: str, calls: list[ToolCall], passed: bool
) -> None:
    (result,) = await grade(tmp_path, f"- {assertion}\n", answer("done", *calls))
    assert result.passed is passed, result.evidence


async def test_trace_checks_skip_without_recorded_tool_calls(tmp_path: Path) -> None:
    results = await grade(
        tmp_path,
        "- {type: skill-used, value: csv}\n"
        "- {type: tool_trajectory, minimums: {Read: 1}}\n"
        "- {type: execution_metrics, max_tool_calls: 3}\n",
        answer("done"),
        reports_tool_calls=False,
    )
    assert [r.passed for r in results] == [None, None, None]


# --- tool_trajectory -----------------------------------------------------------------------

RESEARCH = (
    call("search", {"query": "py"}),
    call("Read", {"id": 1}),
    call("search", {"query": "js"}),
)


@pytest.mark.parametrize(
    ("evaluator", "score"),
    [
        ("{mode: any_order, minimums: {search: 2, Read: 1}}", 1.0),
        ("{mode: any_order, minimums: {search: 2, Read: 1, report: 1}}", 2 / 3),
        ("{mode: any_order, expected: [{tool: search}, {tool: search}, {tool: write}]}", 0.5),
        ("{mode: in_order, expected: [{tool: search}, {tool: search}]}", 1.0),
        ("{mode: in_order, expected: [{tool: Read}, {tool: search, args: {query: js}}]}", 1.0),
        ("{mode: in_order, expected: [{tool: search, args: {query: js}}, {tool: Read}]}", 0.5),
        ("{mode: in_order, expected: [{tool: search, args: {query: any}}, {tool: write}]}", 0.5),
        ("{mode: exact, expected: [{tool: search}, {tool: Read}, {tool: search}]}", 1.0),
        ("{mode: exact, expected: [{tool: search}, {tool: Read}]}", 1.0),
        ("{mode: exact, expected: [{tool: Read}, {tool: search}]}", 0.0),
        (
            "{mode: exact, expected: [{tool: search}, {tool: Read}, {tool: search}, {tool: x}]}",
            0.75,
        ),
        ("{mode: exact, expected: [{tool: search, args: {query: py, n: 1}}]}", 0.0),
    ],
)
async def test_tool_trajectory(tmp_path: Path, evaluator: str, score: float) -> None:
    assertion = "{type: tool_trajectory, " + evaluator[1:]
    (result,) = await grade(tmp_path, f"- {assertion}\n", answer("done", *RESEARCH))
    assert result.score == pytest.approx(score), result.evidence
    assert result.passed is (score >= 0.8)


async def test_tool_trajectory__latency_counts_only_with_timing(tmp_path: Path) -> None:
    assertion = (
        "- {type: tool_trajectory, mode: in_order, expected: [{tool: a, max_duration_ms: 100}]}\n"
    )
    (fast,) = await grade(tmp_path, assertion, answer("x", call("a", duration_s=0.05)))
    (slow,) = await grade(tmp_path / "s", assertion, answer("x", call("a", duration_s=0.5)))
    (untimed,) = await grade(tmp_path / "u", assertion, answer("x", call("a")))
    assert (fast.score, slow.score, untimed.score) == (1.0, 0.5, 1.0)
    assert "took 500 ms, limit 100 ms" in slow.evidence


# --- field_accuracy ------------------------------------------------------------------------

INVOICE = """\
    expected_output:
      - role: assistant
        content:
          invoice_number: INV-1
          invoice_date: 15-JAN-2025
          currency: USD
          net_total: 1889
          supplier: {name: Acme Shipping}
          line_items: [{description: FREIGHT, line_total: 1370}]
"""
FIELDS = """\
- type: field_accuracy
  fields:
    - {path: invoice_number, match: exact, weight: 2}
    - {path: invoice_date, match: date, formats: [DD-MMM-YYYY, MM/DD/YYYY]}
    - {path: currency, match: exact}
    - {path: net_total, match: numeric_tolerance, tolerance: 1, weight: 3}
    - {path: supplier.name, match: contains}
    - {path: "line_items[0].line_total", match: numeric_tolerance, tolerance: 0.01, relative: true}
    - {path: supplier.address, match: exact, required: false}
"""


def invoice(**changes: object) -> str:
    data: dict[str, object] = {
        "invoice_number": "INV-1",
        "invoice_date": "2025-01-15",
        "currency": "USD",
        "net_total": "1889.5",
        "supplier": {"name": "Acme Shipping Ltd"},
        "line_items": [{"line_total": 1380}],
    }
    data.update(changes)
    return (
        "Here it is:\n```json\n"
        + json.dumps({k: v for k, v in data.items() if v is not None})
        + "\n```"
    )


@pytest.mark.parametrize(
    ("changes", "score"),
    [
        ({}, 1.0),
        # Weights total 10: the optional supplier.address has no expected value, so it counts
        # as met (AgentV); the required invoice_number missing loses its weight of 2.
        ({"invoice_number": None}, 0.8),
        ({"net_total": 1892}, 0.7),
        ({"invoice_date": "01/15/2025"}, 1.0),
        ({"invoice_date": "2025-01-16"}, 0.9),
        ({"currency": "usd"}, 0.9),
        ({"supplier": {"name": "Acme", "address": "x"}}, 0.9),
        ({"line_items": [{"line_total": 1500}]}, 0.9),
    ],
)
async def test_field_accuracy__weighted_average(
    tmp_path: Path, changes: dict[str, object], score: float
) -> None:
    (result,) = await grade(tmp_path, FIELDS, answer(invoice(**changes)), extra=INVOICE)
    assert result.score == pytest.approx(score), result.evidence
    assert result.passed is (score >= 0.8)


@pytest.mark.parametrize(("aggregation", "score"), [("all_or_nothing", 0.0), ("minimum", 0.0)])
async def test_field_accuracy__other_aggregations(
    tmp_path: Path, aggregation: str, score: float
) -> None:
    fields = FIELDS + f"  aggregation: {aggregation}\n"
    (good,) = await grade(tmp_path, fields, answer(invoice()), extra=INVOICE)
    (bad,) = await grade(tmp_path / "b", fields, answer(invoice(currency="EUR")), extra=INVOICE)
    assert good.score == 1.0 and bad.score == score
    assert "currency: got 'EUR', expected 'USD' (exact)" in bad.evidence


async def test_field_accuracy__unparseable_answer_scores_zero(tmp_path: Path) -> None:
    (result,) = await grade(tmp_path, FIELDS, answer("no JSON here"), extra=INVOICE)
    assert (result.score, result.passed) == (0.0, False)
    assert "no JSON object" in result.evidence


async def test_field_accuracy__regex_and_exact_types(tmp_path: Path) -> None:
    fields = """\
- type: field_accuracy
  fields:
    - {path: code, match: regex, pattern: '^INV-\\d+$'}
    - {path: paid, match: exact}
    - {path: items, match: exact}
"""
    extra = "    expected_output: {code: x, paid: true, items: [1, {a: 2}]}\n"
    text = json.dumps({"code": "INV-42", "paid": 1, "items": [1, {"a": 2}]})
    (result,) = await grade(tmp_path, fields, answer(text), extra=extra)
    assert result.score == pytest.approx(2 / 3), result.evidence
    assert "paid: got 1, expected True" in result.evidence


# --- execution_metrics ---------------------------------------------------------------------


async def test_execution_metrics__proportional_score(tmp_path: Path) -> None:
    transcript = answer(
        "x", call("Read"), call("Grep"), input_tokens=900, output_tokens=200, calls=2
    )
    transcript.duration_s = 2.0
    limits = (
        "- {type: execution_metrics, max_tool_calls: 5, max_tokens: 1000, max_duration_ms: 3000}\n"
    )
    (result,) = await grade(tmp_path, limits, transcript)
    assert result.score == pytest.approx(2 / 3) and result.passed is False
    assert "tokens: 1100 > 1000" in result.evidence and "tool_calls: 2 ≤ 5" in result.evidence


async def test_execution_metrics__unmeasured_cost_is_not_counted(tmp_path: Path) -> None:
    transcript = answer("x", input_tokens=10, output_tokens=10, calls=1)
    limits = "- {type: execution_metrics, max_cost_usd: 0.01, max_llm_calls: 1}\n"
    (result,) = await grade(tmp_path, limits, transcript)
    assert (result.score, result.passed) == (1.0, True)
    assert "cost_usd: not measured" in result.evidence
    (only_cost,) = await grade(tmp_path / "c", "- {type: cost, budget: 0.01}\n", transcript)
    assert only_cost.passed is None


async def test_execution_metrics__exploration_ratio(tmp_path: Path) -> None:
    limits = (
        "- {type: execution_metrics, target_exploration_ratio: 0.6, exploration_tolerance: 0.1}\n"
    )
    calls = [call("Read"), call("Grep"), call("Glob"), call("Edit"), call("Write")]
    (near,) = await grade(tmp_path, limits, answer("x", *calls))
    (far,) = await grade(tmp_path / "f", limits, answer("x", call("Edit")))
    assert near.score == 1.0 and far.score == 0.0
    assert "exploration ratio 0.60" in near.evidence


async def test_code_judge__an_executable_script_as_the_command(tmp_path: Path) -> None:
    script = tmp_path / "evals" / "judge.sh"
    script.parent.mkdir(parents=True)
    script.write_text('#!/bin/sh\necho \'{"score": 0.8, "hits": ["ran"]}\'\n')
    script.chmod(0o755)
    (result,) = await grade(
        tmp_path, "- {name: j, type: code_judge, script: [./judge.sh]}\n", answer("x")
    )
    assert (result.passed, result.score) == (True, 0.8), result.evidence


# --- the seed, end to end ------------------------------------------------------------------

SEED = """\
name: seed-run
execution:
  evaluators:
    - name: script
      type: code_judge
      script:
        - python3
        - -c
        - |
          import json, sys
          d = json.load(sys.stdin)
          print(json.dumps({"score": 1.0 if "4" in d["candidateAnswer"] else 0.0}))
    - name: quality
      type: rubric
      rubrics:
        - id: clear
          expected_outcome: Clear
          weight: 2
          score_ranges: {0: muddled, 5: ok, 10: crisp}
        - id: right
          expected_outcome: Correct
          required_min_score: 6
          score_ranges: {0: wrong, 10: right}
    - name: gate
      type: composite
      evaluators:
        - {name: calls, type: tool_trajectory, mode: in_order, expected: [{tool: Read}]}
        - {name: json, type: field_accuracy, fields: [{path: sum, match: numeric_tolerance}]}
        - {name: budget, type: execution_metrics, max_tool_calls: 3}
      aggregator: {type: safety_gate, required: [calls]}
evalcases:
  - id: sum
    expected_outcome: Adds the numbers
    input: "What is 2+2? Answer as JSON."
    expected_output: {sum: 4}
"""


async def test_seed__loads_runs_and_grades(tmp_path: Path) -> None:
    path = tmp_path / "EVAL.yaml"
    path.write_text(SEED)
    loaded = load_file(path, "EVAL.yaml", Format.AGENTV, LoadContext(tmp_path, Skill("s", None)))
    assert loaded.suite is not None, [p.render() for p in loaded.problems]
    suite = loaded.suite
    (case,) = suite.cases
    transcript = answer('{"sum": 4}', call("Read", {"file_path": "a.txt"}))
    ctx = context(suite, case, tmp_path / "ws", transcript)
    results = [await run_check(check, ctx) for check in case.checks]
    assert [(r.item_id, r.score) for r in results] == [
        ("script", 1.0),
        ("gate/calls", 1.0),
        ("gate/json", 1.0),
        ("gate/budget", 1.0),
    ]
    # What the judge engineer hands back for RANGE10 items: score = raw / 10.
    judged = [
        ItemResult("quality/clear", "Clear", True, score=0.7, raw_score=7),
        ItemResult("quality/right", "Correct", True, score=0.6, raw_score=6),
    ]
    policy = policy_for(Format.AGENTV)
    assert policy.judge_needed(suite, case, results) is True
    verdict = policy.verdict(suite, case, [*results, *judged], JudgeReport())
    quality = (2 * 0.7 + 0.6) / 3
    assert verdict.score == pytest.approx((1.0 + quality + 1.0) / 3)
    assert verdict.status.value == "pass"
    judged[1] = ItemResult("quality/right", "Correct", False, score=0.5, raw_score=5)
    failed = policy.verdict(suite, case, [*results, *judged], JudgeReport())
    assert failed.status.value == "fail" and "quality/right" in failed.reason
