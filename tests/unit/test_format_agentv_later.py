"""AgentV 4 and 5 shapes on small files: workspaces, keys, vars, env, defaults, negate, and the
checks and verdicts they feed (the same rules test_snapshots_agentv.py shows on real files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evolve_action.formats.agentv.checks.trace import args_match
from evolve_action.formats.agentv.kinds import ToolTrajectory
from evolve_action.grade.checks import run_check
from evolve_action.grade.scoring import policy_for
from evolve_action.model.evals import Check, Format
from evolve_action.model.outcomes import ItemResult, JudgeReport, Status, ToolCall, Transcript
from tests.unit.test_checks_agentv import context
from tests.unit.test_format_agentv import errors, load, ok

SKILL = "---\nname: deploy\ndescription: Deploys.\n---\nSteps.\n"


def messages(result: object) -> list[str]:
    return [p.render() for p in result.problems]  # type: ignore[attr-defined]


# --- workspace ---------------------------------------------------------------------------------


def test_workspace_template_files_become_fixtures_and_its_skill_the_skill(tmp_path: Path) -> None:
    text = """
    workspace:
      template: ../ws
      mode: pooled
      hooks: {after_each: {reset: fast}}
    tests:
      - id: a
        input: deploy it
        assertions: [{type: skill-trigger, skill: deploy}]
    """
    files = {
        "ws/.claude/skills/deploy/SKILL.md": SKILL,
        "ws/.claude/skills/other/SKILL.md": SKILL.replace("deploy", "other"),
        "ws/notes.txt": "n\n",
    }
    result = load(tmp_path, text, files=files)
    (case,) = ok(result)
    assert result.suite is not None and result.suite.skill.name == "deploy"
    assert result.suite.skill.dir == tmp_path / "ws/.claude/skills/deploy"
    assert sorted(f.dest for f in case.files) == [".claude/skills/other/SKILL.md", "notes.txt"]
    assert not messages(result)


@pytest.mark.parametrize(
    ("workspace", "message"),
    [
        ("{hooks: {before_all: {command: [node, setup.mjs]}}}", "hooks that run commands"),
        ("{hooks: {before_each: {script: setup.sh}}}", "hooks that run commands"),
        ("{repos: [{path: ./x, repo: 'https://example.com/x.git'}]}", "cloning other"),
        ("{docker: {image: node:20}}", "docker workspaces are not supported"),
        ("{mode: static, path: /srv/ws}", "static workspace"),
        ("{template: ../nowhere}", "no such folder: '../nowhere'"),
        ("{template: ../../..}", "points outside the repository"),
        ("7", "a mapping (template, hooks) or a path"),
    ],
)
def test_workspace_what_cannot_be_honoured_is_rejected(
    tmp_path: Path, workspace: str, message: str
) -> None:
    text = f"workspace: {workspace}\ntests:\n  - id: a\n    criteria: c\n    input: q\n"
    assert any(message in e for e in errors(load(tmp_path, text))), errors(load(tmp_path, text))


def test_workspace_disabled_hooks_and_shared_isolation(tmp_path: Path) -> None:
    text = """
    workspace: ../ws.yaml
    tests:
      - {id: a, criteria: c, input: q}
    """
    files = {
        "ws.yaml": "template: ./t\nisolation: shared\nhooks: {enabled: false, before_all:"
        " {command: [x]}}\n",
        "t/a.txt": "a\n",
    }
    result = load(tmp_path, text, files=files)
    (case,) = ok(result)
    assert [f.dest for f in case.files] == ["a.txt"]
    (warning,) = messages(result)
    assert warning.startswith("ws.yaml:2: isolation: warning: every case runs in a fresh copy")


def test_case_workspace_wins_and_case_folders_bring_theirs(tmp_path: Path) -> None:
    text = "tests: ./cases/\n"
    files = {
        "evals/cases/one/case.yaml": "criteria: c\ninput: q\n",
        "evals/cases/one/workspace/seed.txt": "s\n",
        "evals/cases/two/case.yaml": "id: second\ncriteria: c\ninput: q\n",
        "evals/cases/empty/readme.md": "no case here\n",
    }
    result = load(tmp_path, text, files=files)
    one, two = ok(result)
    assert (one.id, [f.dest for f in one.files]) == ("one", ["seed.txt"])
    assert (two.id, two.files) == ("second", ())
    assert any("empty/ has no case.yaml" in m for m in messages(result))


# --- keys, env, vars, defaults ---------------------------------------------------------------


def test_unknown_keys_warn_and_unsupported_ones_are_errors(tmp_path: Path) -> None:
    text = """
    descripton: typo
    target: default
    tests:
      - id: a
        criteria: c
        input: q
        execution: {workers: 2, retries: 3}
        depends_on: [b]
        assertions:
          - {type: contains, value: x, colour: red}
    """
    found = messages(load(tmp_path, text))
    assert any("descripton: warning: unknown suite key 'descripton'" in m for m in found)
    assert any("execution.retries: warning: unknown execution key" in m for m in found)
    assert any("depends_on: test dependencies are not supported" in m for m in found)
    assert any("colour: warning: unknown key 'colour' of a contains grader" in m for m in found)
    assert not any("target" in m or "workers" in m for m in found)


def test_env_placeholders_are_emptied_with_one_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "s3cr3t")
    text = """
    tests:
      - id: a
        criteria: "Uses ${{ SECRET_TOKEN }}"
        input: "Say ${{ SECRET_TOKEN }} and ${{OTHER}}"
    """
    result = load(tmp_path, text)
    (case,) = ok(result)
    assert "s3cr3t" not in case.prompt and case.prompt == "Say  and "
    (warning,) = messages(result)
    assert "environment variables are not read here (OTHER, SECRET_TOKEN)" in warning


def test_vars_render_into_the_test_and_the_suite_input(tmp_path: Path) -> None:
    text = """
    input: [{role: system, content: "You help with {{topic}}."}]
    input_files: [notes.md]
    tests:
      - id: a
        vars: {topic: maths, q: {text: "2+2?"}, answer: {value: 4}}
        criteria: "Answers {{q.text}}"
        input: "Q: {{q.text}}"
        expected_output: "{{answer}}"
      - id: b
        criteria: c
        input: [{role: user, content: hi}]
        execution: {skip_defaults: true}
    """
    a, b = ok(load(tmp_path, text, files={"evals/notes.md": "n\n"}))
    assert a.system == "You help with maths."
    assert a.prompt == "[file: evals/notes.md]\n\nQ: 2+2?"
    assert a.extra.expected_outcome == "Answers 2+2?"
    assert '"value": 4' in a.expected_output
    assert (b.system, b.prompt, b.files) == (None, "hi", ())


def test_agentv_5_defaults_and_default_test(tmp_path: Path) -> None:
    text = """
    defaults: {system_message: Be brief., provider: x}
    default_test: file://./default.yaml
    prompts: [{id: p, label: P, prompt: "For {{ who }}: {{ input }}"}]
    threshold: 0.7
    tests:
      - id: a
        vars: {input: hello}
        assert: ["Greets {{ vars.who }}"]
    """
    files = {"evals/default.yaml": "vars: {who: kids}\nassert: [{type: contains, value: hi}]\n"}
    result = load(tmp_path, text, files=files)
    (case,) = ok(result)
    assert (case.system, case.prompt) == ("Be brief.", "For kids: hello")
    assert [i.kind for i in case.checks] == ["agentv.contains"]
    assert [i.text for i in case.judge_items] == ["Greets kids"]
    assert result.suite is not None and result.suite.policy.threshold == 0.7


# --- graders and their verdicts ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "answer", "passed"),
    [("i", "MAIL ME AT A@B.CO", True), ("", "MAIL ME AT A@B.CO", False), ("gm", "x\nab", True)],
)
async def test_regex_flags(tmp_path: Path, flags: str, answer: str, passed: bool) -> None:
    pattern = "[a-z]+@[a-z]+\\.[a-z]+" if flags != "gm" else "^ab$"
    head = "tests:\n  - id: a\n    criteria: c\n    input: q\n    assertions:\n"
    text = head + f"      - {{type: regex, value: '{pattern}', flags: '{flags}'}}\n"
    result = load(tmp_path, text)
    (case,) = ok(result)
    (check,) = case.checks
    ctx = context(result.suite, case, tmp_path / "ws", Transcript(final_text=answer))  # type: ignore[arg-type]
    assert (await run_check(check, ctx)).passed is passed


def test_regex_flags_javascript_has_and_re2_lacks_are_refused(tmp_path: Path) -> None:
    text = "tests:\n  - id: a\n    input: q\n    assertions: [{type: regex, value: a, flags: y}]"
    assert any("use regex flags from i, m, s" in e for e in errors(load(tmp_path, text)))


@pytest.mark.parametrize(
    ("assertion", "answer", "passed"),
    [
        ("{type: ends-with, value: done.}", "All done.  ", True),
        ("{type: ends-with, value: done.}", "done. Bye", False),
        ("{type: contains, value: secret, negate: true}", "no leak", True),
        ("{type: not-contains, value: secret, negate: true}", "the secret", True),
    ],
)
async def test_text_rules_of_agentv_4(
    tmp_path: Path, assertion: str, answer: str, passed: bool
) -> None:
    text = f"tests:\n  - id: a\n    input: q\n    assertions:\n      - {assertion}\n"
    result = load(tmp_path, text)
    (case,) = ok(result)
    (check,) = case.checks
    ctx = context(result.suite, case, tmp_path / "ws", Transcript(final_text=answer))  # type: ignore[arg-type]
    assert (await run_check(check, ctx)).passed is passed


def test_negate_inverts_a_graders_score_before_the_verdict(tmp_path: Path) -> None:
    text = """
    tests:
      - id: a
        input: q
        assertions:
          - {name: leak, type: llm-grader, prompt: "Does {{ output }} leak the key?", negate: true}
    """
    result = load(tmp_path, text)
    (case,) = ok(result)
    assert result.suite is not None
    policy = policy_for(Format.AGENTV)
    leaked = policy.verdict(
        result.suite, case, [ItemResult("leak", "", True, score=1.0)], JudgeReport()
    )
    clean = policy.verdict(
        result.suite, case, [ItemResult("leak", "", False, score=0.0)], JudgeReport()
    )
    assert (leaked.status, leaked.score) == (Status.FAIL, 0.0)
    assert (clean.status, clean.score) == (Status.PASS, 1.0)


def test_suite_graders_follow_the_cases_own_unless_they_replace_them(tmp_path: Path) -> None:
    """AgentV 4 appends the suite's `assertions`; AgentV 2's `execution.evaluators` are
    replaced by a case's own list."""
    four = """
    assertions: [{name: tone, type: contains, value: please}]
    tests:
      - {id: a, input: q, assertions: [{name: tone, type: contains, value: thanks}]}
    """
    (case,) = ok(load(tmp_path, four))
    assert [c.id for c in case.checks] == ["tone", "tone-2"]
    two = """
    execution: {evaluators: [{name: tone, type: contains, value: please}]}
    evalcases:
      - {id: a, input: q, expected_outcome: x, evaluators: [{name: own, type: is_json}]}
    """
    (case,) = ok(load(tmp_path, two))
    assert [c.id for c in case.checks] == ["own"]


@pytest.mark.parametrize(
    ("expected", "actual", "mode", "matches"),
    [
        ({"a": 1}, {"a": 1, "b": 2}, "superset", True),
        ({"a": 1}, {"a": 1, "b": 2}, "exact", False),
        ({"a": 1, "b": 2}, {"a": 1}, "subset", True),
        ({"a": 1}, {"a": 1, "b": 2}, "subset", False),
        ({"a": 1}, {"a": 2}, "ignore", True),
        ({"a": {"b": 1}, "c": 9}, {"a": {"b": 1}, "c": 3}, ["a.b"], True),
        ({"a": {"b": 1}}, {"a": {"b": 2}}, ["a.b"], False),
    ],
)
def test_args_match_modes(expected: object, actual: object, mode: object, matches: bool) -> None:
    import json

    assert args_match(expected, json.dumps(actual), mode) is matches


async def test_agentv_4_trajectories_compare_args_exactly_by_default(tmp_path: Path) -> None:
    text = """
    tests:
      - id: a
        input: q
        assertions:
          - {type: tool-trajectory, mode: in_order, expected: [{tool: Read, args: {path: a}}]}
    """
    result = load(tmp_path, text)
    (case,) = ok(result)
    (check,) = case.checks
    assert isinstance(check, Check) and isinstance(check.params, ToolTrajectory)
    assert check.params.expected[0].args_match == "exact"
    extra = Transcript(final_text="x", tool_calls=[ToolCall("Read", '{"path": "a", "n": 1}')])
    ctx = context(result.suite, case, tmp_path / "ws", extra, reports_tool_calls=True)  # type: ignore[arg-type]
    assert (await run_check(check, ctx)).score == 0.0


def test_case_file_globs_never_leave_the_repository(tmp_path: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    (outside / "cases").mkdir(parents=True, exist_ok=True)
    (outside / "cases" / "x.yaml").write_text("- {id: stolen, criteria: c, input: q}\n")
    repo = tmp_path / "repo"
    text = f"tests:\n  - file://../../{outside.name}/cases/*.yaml\n  - file://cases/*.yaml\n"
    files = {"evals/cases/a.yaml": "- {id: a, criteria: c, input: q}\n"}
    found = errors(load(repo, text, files=files))
    assert any("matches no .yaml, .yml or .jsonl file" in e for e in found), found
    (case,) = ok(load(repo, "tests:\n  - file://cases/*.yaml\n", files=files))
    assert case.id == "a"
