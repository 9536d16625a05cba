"""waza's `required_mcp_servers` / `forbidden_mcp_servers` / `max_mcp_calls` (behavior rules,
in a `behavior` grader or a task's `expected.behavior`): checks over the run's trajectory that
a tool of a server was, or was not, called, whichever way the agent names its MCP tools."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from evolve_action.formats import load_all
from evolve_action.grade.checks import CheckContext, run_check
from evolve_action.model.evals import Format, LoadResult, Suite
from evolve_action.model.outcomes import ItemResult, ToolCall, Transcript
from tests.fakes.commands import run_command

SKILL = "---\nname: weather\ndescription: d\n---\nbody\n"
EVAL = """\
name: w
skill: weather
config: {mcp_servers: {weather: {command: wx-mcp}, search: {command: search-mcp}}}
graders:
  - type: behavior
    name: servers
    config: {required_mcp_servers: [weather], forbidden_mcp_servers: [search], max_mcp_calls: 2}
tasks: [tasks/*.yaml]
"""
TASK = """\
id: t1
inputs: {prompt: 'Paris?'}
expected: {behavior: {required_mcp_servers: [weather]}}
"""


def load(root: Path, eval_yaml: str = EVAL) -> LoadResult:
    files = {"w/SKILL.md": SKILL, "w/eval.yaml": eval_yaml, "w/tasks/t.yaml": TASK}
    for rel, body in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body)
    (result,) = [r for r in load_all(root) if r.format is Format.WAZA]
    return result


def grade(
    root: Path, suite: Suite, calls: list[ToolCall], recorded: bool = True
) -> dict[str, ItemResult]:
    (case,) = suite.cases
    t = Transcript(final_text="Sunny.", tool_calls=calls, turns=2, stop_reason="end_turn")
    ctx = CheckContext(suite, case, root, t, run_command, timeout_s=30)
    ctx = replace(ctx, reports_tool_calls=recorded)
    return {c.id: asyncio.run(run_check(c, ctx)) for c in case.checks}


@pytest.mark.parametrize(
    "call",
    [
        ToolCall("mcp__weather__forecast", "{}"),  # Claude Code
        ToolCall("forecast", "{}", server="weather"),  # Codex
        ToolCall("weather_forecast", "{}"),  # OpenCode
        ToolCall("weather-forecast", "{}"),  # Copilot
    ],
)
def test_a_required_server_is_met_by_a_call_of_its_tool_in_every_agent_naming(
    tmp_path: Path, call: ToolCall
) -> None:
    result = load(tmp_path)
    assert result.ok and result.suite is not None, result.problems
    got = grade(tmp_path, result.suite, [ToolCall("Read", "{}"), call])
    assert got["servers"].passed, got["servers"].evidence
    assert got["servers"].score == 1.0
    assert got["expected.behavior"].passed


def test_a_missing_required_server_and_a_forbidden_one_called_fail_naming_them(
    tmp_path: Path,
) -> None:
    result = load(tmp_path)
    assert result.suite is not None
    calls = [ToolCall("mcp__search__query", "{}")] * 3
    got = grade(tmp_path, result.suite, calls)
    said = got["servers"].evidence
    assert got["servers"].passed is False
    assert "never called a tool of MCP server weather" in said
    assert "called forbidden MCP server search: search/query" in said
    assert "mcp_calls 3 > 2" in said
    assert got["servers"].score == 0.0
    assert got["expected.behavior"].passed is False


def test_a_built_in_tool_named_like_a_server_is_not_a_call_of_it(tmp_path: Path) -> None:
    result = load(tmp_path)
    assert result.suite is not None
    got = grade(tmp_path, result.suite, [ToolCall("weather", "{}")])
    assert got["expected.behavior"].passed is False


def test_without_recorded_calls_the_server_rules_are_skipped_never_passed(tmp_path: Path) -> None:
    result = load(tmp_path)
    assert result.suite is not None
    got = grade(tmp_path, result.suite, [], recorded=False)
    assert got["servers"].passed is None
    assert "does not record tool calls" in got["servers"].evidence


def test_a_server_name_that_could_match_no_call_is_an_error(tmp_path: Path) -> None:
    result = load(tmp_path, EVAL.replace("[search]", "['web search*']"))
    assert not result.ok
    assert any("is not an MCP server's name" in p.message for p in result.problems)


def test_a_required_server_no_config_declares_is_warned_as_one_that_always_fails(
    tmp_path: Path,
) -> None:
    result = load(tmp_path, EVAL.replace("weather: {command: wx-mcp}, ", ""))
    assert result.ok, result.problems
    said = [p.message for p in result.problems if "does not declare" in p.message]
    assert len(said) == 2  # the grader's and the task's `expected.behavior`
    assert all("'weather'" in m and "always fails" in m for m in said)
    assert not any("'search'" in m for m in said)  # a forbidden one holds trivially
