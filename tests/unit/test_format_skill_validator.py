"""The dotnet skill-validator loader: scenarios, setup, assertions, rubric, constraints,
expect_activation; inline files and setup commands read, hostile ones refused; the verdict; and the
dotnet/skills snapshot in ../shared loads with no error but left-out code fixtures."""

from __future__ import annotations

import asyncio
from pathlib import Path
from textwrap import dedent

import pytest

from evolve_action.formats import load_all, load_file
from evolve_action.formats.base import LoadContext
from evolve_action.grade.checks import CheckContext, run_check
from evolve_action.grade.scoring import policy_for
from evolve_action.model.evals import Format, JudgeItem, LoadResult, Scale, Severity, Skill
from evolve_action.model.outcomes import ItemResult, JudgeReport, Status, Transcript
from tests.fakes.commands import run_command

SKILL = "---\nname: trace\ndescription: d\n---\nbody\n"
EVAL = """\
scenarios:
  - name: Collect a trace
    prompt: Collect a trace of my app.
    setup:
      copy_test_files: true
      files:
        - {path: logs/app.log, source: ../../../../tests/diag/trace/fixtures/app.log}
    assertions:
      - {type: output_contains, value: DOTNET-TRACE}
      - {type: output_not_matches, pattern: "collect-linux"}
      - {type: file_exists, path: "**/*.nettrace"}
      - {type: exit_success}
    rubric: [Names dotnet-trace, Explains how to copy the trace out]
    expect_tools: [bash]
    max_turns: 10
    timeout: 120
    expect_activation: true
  - name: Inline
    prompt: p
    setup: {files: [{path: a.txt, content: hello}]}
  - name: Commands
    prompt: p
    setup: {commands: [dotnet build]}
"""


def repo(tmp_path: Path) -> Path:
    files = {
        "plugins/diag/skills/trace/SKILL.md": SKILL,
        "tests/diag/trace/eval.yaml": EVAL,
        "tests/diag/trace/fixtures/app.log": "log",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(dedent(text))
    return tmp_path


def load(root: Path) -> LoadResult:
    path = root / "tests/diag/trace/eval.yaml"
    ctx = LoadContext(root, Skill("trace", None))
    return load_file(path, "tests/diag/trace/eval.yaml", Format.AGENTV, ctx)


def test_a_scenario_loads_every_part_with_inline_files_and_commands(tmp_path: Path) -> None:
    result = load(repo(tmp_path))
    assert result.ok and result.suite is not None, result.problems
    suite = result.suite
    assert suite.format is Format.SKILL_VALIDATOR
    assert suite.skill.dir == (tmp_path / "plugins/diag/skills/trace").resolve()
    case, inline, commands = suite.cases
    assert (case.id, case.max_turns, case.timeout_seconds) == ("Collect a trace", 10, 120.0)
    assert sorted(f.dest for f in case.files) == ["fixtures/app.log", "logs/app.log"]
    assert [(i.id, i.kind) for i in case.items] == [
        ("output_contains-1", "vally.output-contains"),
        ("output_not_matches-2", "vally.output-matches"),
        ("file_exists-3", "vally.file-exists"),
        ("exit_success-4", "vally.exit-success"),
        ("rubric-1", "rubric"),
        ("rubric-2", "rubric"),
        ("constraints.tools", "vally.tools"),
        ("constraints.limits", "vally.limits"),
        ("expect_activation", "vally.activation"),
    ]
    judged = case.items[4]
    assert isinstance(judged, JudgeItem) and judged.scale is Scale.LIKERT5
    (staged,) = inline.files
    assert (staged.dest, staged.content) == ("a.txt", "hello")
    assert staged.source == (tmp_path / "tests/diag/trace/eval.yaml").absolute()
    said = [(c.run, c.check_exit) for c in commands.setup_commands]
    assert said == [("dotnet build", False)]  # skill-validator never reads the exit code
    assert not [p for p in result.problems if p.severity is Severity.WARNING]


@pytest.mark.parametrize(
    ("entry", "wanted"),
    [
        ("{path: ../../outside.txt, content: x}", "must be a relative path inside the workspace"),
        ("{path: /etc/cron.d/x, content: x}", "must be a relative path inside the workspace"),
        ("{path: .git/hooks/pre-commit, content: x}", "not under .git"),
        ("{path: a.txt, content: [x]}", "content: must be the file's text, not a list"),
        ("{path: a.txt, content: 'BIG'}", "over the 1,048,576-byte limit for one file"),
    ],
)
def test_a_hostile_inline_file_is_refused_by_validate(
    tmp_path: Path, entry: str, wanted: str
) -> None:
    big = "x" * (1024 * 1024 + 1)
    spec = f"scenarios:\n  - name: s\n    prompt: p\n    setup: {{files: [{entry}]}}\n"
    root = repo(tmp_path)
    (root / "tests/diag/trace/eval.yaml").write_text(spec.replace("BIG", big))
    result = load(root)
    assert not result.ok
    assert any(wanted in p.render() for p in result.errors), [p.render() for p in result.errors]


def test_aliases_cannot_stage_more_inline_text_than_one_case_may(tmp_path: Path) -> None:
    # One 1 MB text, aliased into 17 files: 17 MB to write from a 1 MB eval file.
    lines = ["scenarios:", "  - name: s", "    prompt: p", "    setup:", "      files:"]
    lines.append(f"        - {{path: f0.txt, content: &big '{'x' * (1024 * 1024 - 1)}'}}")
    lines += [f"        - {{path: f{n}.txt, content: *big}}" for n in range(1, 17)]
    root = repo(tmp_path)
    (root / "tests/diag/trace/eval.yaml").write_text("\n".join(lines) + "\n")
    result = load(root)
    assert any("over the 16,777,216-byte limit for one case" in p.message for p in result.errors)


def test_output_contains_ignores_case_as_the_tool_does(tmp_path: Path) -> None:
    suite = load(repo(tmp_path)).suite
    assert suite is not None
    case = suite.cases[0]
    t = Transcript(final_text="Run dotnet-trace collect.")
    ctx = CheckContext(suite, case, tmp_path, t, run_command, timeout_s=5)
    result = asyncio.run(run_check(case.checks[0], ctx))
    assert result.passed is True


@pytest.mark.parametrize(
    ("scores", "status"),
    [((4, 3), Status.PASS), ((5, 2), Status.FAIL)],  # every rubric item must reach 3 of 5
)
def test_the_verdict_needs_every_assertion_and_rubric_item(
    tmp_path: Path, scores: tuple[int, int], status: Status
) -> None:
    suite = load(repo(tmp_path)).suite
    assert suite is not None
    case = suite.cases[0]
    raw = {"rubric-1": scores[0], "rubric-2": scores[1]}
    results = [
        ItemResult(i.id, i.text, True, score=1.0, raw_score=raw.get(i.id)) for i in case.items
    ]
    verdict = policy_for(Format.SKILL_VALIDATOR).verdict(suite, case, results, JudgeReport())
    assert verdict.status is status


def test_an_assertion_type_not_run_here_is_warned_and_the_scenario_runs(tmp_path: Path) -> None:
    root = repo(tmp_path)
    (root / "tests/diag/trace/eval.yaml").write_text(
        "scenarios: [{name: a, prompt: p, assertions: [{type: run_command_and_assert},"
        " {type: output_contains, value: x}]}]"
    )
    result = load(root)
    assert result.ok and result.suite is not None
    assert [c.id for c in result.suite.cases[0].checks] == ["output_contains-2"]
    assert "'run_command_and_assert' is not run here" in result.problems[0].message


def test_a_setup_source_is_read_from_the_eval_files_folder_and_a_missing_one_is_warned(
    tmp_path: Path,
) -> None:
    root = repo(tmp_path)
    (root / "tests/diag/trace/fixtures/a.cs").write_text("class A {}\n")
    (root / "tests/diag/trace/eval.yaml").write_text(
        "scenarios: [{name: a, prompt: p, rubric: [ok], setup: {files:"
        " [{path: a.cs, source: fixtures/a.cs}, {path: b.cs, source: fixtures/b.cs}]}}]"
    )
    result = load(root)
    assert result.ok and result.suite is not None
    assert [f.dest for f in result.suite.cases[0].files] == ["a.cs"]
    assert "'fixtures/b.cs' is no file" in result.problems[0].message
    assert "the scenario runs without it" in result.problems[0].message


def test_a_scenario_that_does_not_read_is_left_out_and_the_others_run(tmp_path: Path) -> None:
    root = repo(tmp_path)
    (root / "tests/diag/trace/eval.yaml").write_text(
        "scenarios: [{name: a}, {name: b, prompt: p, rubric: [ok]}, {name: b, prompt: q}]"
    )
    result = load(root)
    assert result.ok and result.suite is not None
    assert [c.id for c in result.suite.cases] == ["b", "b (2)"]
    assert "this scenario is not run" in result.problems[0].message


def test_corpus__dotnet_skill_validator_files_load_with_no_error_but_left_out_code(
    corpus_dir: Path,
) -> None:
    root = corpus_dir / "repos/skill-validator/dotnet-skills-1b8f2aa"
    if not root.is_dir():
        pytest.skip(f"{root} is absent")
    results = load_all(root)
    assert len(results) == 32 and all(r.format is Format.SKILL_VALIDATOR for r in results)
    assert not [p for r in results for p in r.errors]
    missing = [p for r in results for p in r.problems if "is no file" in p.message]
    # Only the code and project files the snapshot left out (.cs, .csproj, global.json).
    left_out = (".cs", ".csproj", "global.json")
    assert all(p.message.split("'")[1].endswith(left_out) for p in missing), missing[:3]
    assert sum(len(r.suite.cases) for r in results if r.suite) >= 100
