"""`claude plugin eval` cases (`evals/<case>/case.yaml`, `prompt.md`, `graders/*.md`) read
as one suite of one case with its graders as checks and judge items, run with and without the
skill; what cannot run here is warned and the rest of the case runs."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from evolve_action.formats import discovery, load_all, load_found
from evolve_action.grade.checks import CheckContext, run_check
from evolve_action.model.evals import Check, Format, JudgeItem, Severity
from evolve_action.model.outcomes import ToolCall, Transcript
from tests.fakes.commands import ShellRunner

EXAMPLE = Path(__file__).parents[2] / "examples/formats/claude-plugin"


def plugin(tmp_path: Path) -> Path:
    root = tmp_path / "plugin"
    shutil.copytree(EXAMPLE, root)
    return root


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_the_example_case_is_read_with_its_graders_arms_and_runs(tmp_path: Path) -> None:
    (result,) = load_all(plugin(tmp_path))
    assert result.ok and result.format is Format.CLAUDE_PLUGIN, result.problems
    suite = result.suite
    assert suite is not None and suite.skill.name == "changelog"
    assert suite.runs == 3 and suite.policy.no_skill_arm is True
    (case,) = suite.cases
    assert case.prompt.startswith("Record in the changelog")
    assert case.max_turns == 10 and case.timeout_seconds == 300
    kinds = {i.id: i.kind for i in case.checks}
    assert kinds == {
        "edits-the-file": "claude-plugin.tool_used",
        "fixed-bullet": "claude-plugin.regex",
        "reads-before-editing": "claude-plugin.tool_order",
        "skill-fires": "claude-plugin.tool_used",
    }
    (judged,) = case.judge_items
    assert isinstance(judged, JudgeItem) and judged.text.startswith("PASS if the reply")
    assert [f.dest for f in case.files] == [".claude-plugin-eval/scaffold.sh"]
    assert [c.run for c in case.setup_commands] == ["bash .claude-plugin-eval/scaffold.sh"]


def grade(check: Check, workspace: Path, calls: list[ToolCall], final: str = "") -> bool | None:
    (result,) = load_all(EXAMPLE)
    assert result.suite is not None
    suite, (case,) = result.suite, result.suite.cases
    ctx = CheckContext(suite, case, workspace, Transcript(final, calls), ShellRunner(), 30)
    return asyncio.run(run_check(check, ctx)).passed


def test_the_graders_decide_on_the_transcript_and_the_workspace(tmp_path: Path) -> None:
    (result,) = load_all(EXAMPLE)
    assert result.suite is not None
    checks = {c.id: c for c in result.suite.cases[0].checks}
    (tmp_path / "CHANGELOG.md").write_text("## Unreleased\n- Fixed: the LOGIN timeout\n")
    read = ToolCall("Read", '{"file_path": "CHANGELOG.md"}')
    edit = ToolCall("Edit", '{"file_path": "CHANGELOG.md"}')
    assert grade(checks["fixed-bullet"], tmp_path, []) is True
    assert grade(checks["edits-the-file"], tmp_path, [edit]) is True
    assert grade(checks["edits-the-file"], tmp_path, [read]) is False
    assert grade(checks["reads-before-editing"], tmp_path, [read, edit]) is True
    assert grade(checks["reads-before-editing"], tmp_path, [edit, read]) is False
    (tmp_path / "CHANGELOG.md").write_text("## Unreleased\n")
    assert grade(checks["fixed-bullet"], tmp_path, []) is False


def test_what_cannot_run_here_is_warned_and_the_rest_runs(tmp_path: Path) -> None:
    root = plugin(tmp_path)
    write(root, {
        "evals/adds-entry/graders/lookbehind.md":
            "---\ntype: regex\npattern: '(?<![\\s\\S])# Changelog'\n---\n",
        "evals/adds-entry/graders/reference.md": "---\ntype: baseline\n---\nAs good.\n",
        "evals/adds-entry/graders/trace.md": "---\ntype: regex\ntarget: trace\npattern: x\n---\n",
    })  # fmt: skip
    (result,) = load_all(root)
    assert result.ok and not result.errors
    warned = " ".join(p.message for p in result.problems if p.severity is Severity.WARNING)
    assert "'lookbehind': RE2 cannot read" in warned
    assert "'reference': a baseline grader" in warned
    assert "'trace': target 'trace'" in warned
    assert result.suite is not None and len(result.suite.cases[0].checks) == 4


def test_a_case_yaml_that_is_not_a_case_gets_a_notice_and_a_case_without_graders_an_error(
    tmp_path: Path,
) -> None:
    write(tmp_path, {
        "evals/agentv-case/case.yaml": "input: Greet Ada.\ncriteria: It greets.\n",
        "evals/empty/case.yaml": "schema_version: '1.1'\nexecution: {prompt: Hi}\n",
    })  # fmt: skip
    found = discovery.discover(tmp_path)
    results = {item.rel: load_found(found.root, item) for item in found.files}
    assert results["evals/agentv-case/case.yaml"].not_eval
    empty = results["evals/empty/case.yaml"]
    assert empty.failed and "no grader that runs here" in empty.errors[0].message


def test_a_prompt_md_case_with_inline_graders_in_front_matter_folders(tmp_path: Path) -> None:
    write(tmp_path, {
        "skills/greeter/SKILL.md": "---\nname: greeter\ndescription: d\n---\nGreet.\n",
        "evals/greets/prompt.md": "---\nmax_turns: 4\n---\nGreet Ada.\n",
        "evals/greets/graders/says-hello.md": "---\ntype: regex\npattern: Hello\n---\n",
    })  # fmt: skip
    (result,) = load_all(tmp_path)
    assert result.ok and result.suite is not None
    (case,) = result.suite.cases
    assert (case.prompt, case.max_turns, result.suite.skill.name) == ("Greet Ada.", 4, "greeter")
