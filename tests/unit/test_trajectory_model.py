"""The one trajectory model (`model/trajectory.py`) and the checks over it
(`formats/trajectory/`): MCP naming, called / not called / arguments / counts / max turns, and
the three orders with their partial credit and the point where expected and observed part."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from evolve_action.execute.harness import codex
from evolve_action.formats import load_all
from evolve_action.formats.evolve.assertions import derived_text
from evolve_action.formats.evolve.params import typed
from evolve_action.formats.trajectory.order import (
    SHOWN,
    Order,
    any_order,
    check_order,
    in_order,
    sequence,
    strict,
)
from evolve_action.formats.trajectory.rules import all_called, called, max_turns, not_called
from evolve_action.formats.trajectory.wants import (
    Naming,
    Want,
    arguments_match,
    named,
    values_match,
)
from evolve_action.formats.waza.params import SequenceParams as WazaSequence
from evolve_action.grade.checks import CheckContext, run_check
from evolve_action.model.evals import Case, Check, Format, Origin, Skill, Suite
from evolve_action.model.mcp import McpServer
from evolve_action.model.outcomes import ItemResult, ToolCall, Transcript
from evolve_action.model.trajectory import ToolStep, call_forms, split_name, trajectory_of
from evolve_action.util.regex import RegexError
from tests.fakes.commands import run_command


def steps(*names: str) -> tuple[ToolStep, ...]:
    t = Transcript(tool_calls=[ToolCall(n, "{}") for n in names])
    return trajectory_of(t).steps


def wants(*names: str) -> list[Want]:
    return [named(n) for n in names]


# --- the model --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "server", "servers", "split"),
    [
        ("Read", "", (), ("", "Read")),
        ("mcp__github__create_issue", "", (), ("github", "create_issue")),
        ("mcp__my__srv__list", "", ("my__srv",), ("my__srv", "list")),  # a server holding __
        ("create_issue", "github", (), ("github", "create_issue")),  # Codex: reported apart
        ("github_create_issue", "", ("github",), ("github", "create_issue")),  # OpenCode
        ("github-create_issue", "", ("github",), ("github", "create_issue")),  # Copilot
        ("github_create_issue", "", (), ("", "github_create_issue")),  # unknown server: whole
    ],
)
def test_mcp_names_split_into_server_and_tool(
    name: str, server: str, servers: tuple[str, ...], split: tuple[str, str]
) -> None:
    assert split_name(name, server, servers) == split


def test_a_step_carries_parsed_arguments_result_and_every_name_form() -> None:
    call = ToolCall("mcp__gh__search", '{"q": "bug", "n": 3}', "2 hits", is_error=True)
    run = trajectory_of(Transcript(tool_calls=[call, ToolCall("Bash", "not json")], turns=4))
    first, second = run.steps
    assert (first.index, first.server, first.tool, first.arguments) == (
        1, "gh", "search", {"q": "bug", "n": 3},
    )  # fmt: skip
    assert (first.result, first.is_error, run.turns) == ("2 hits", True, 4)
    assert first.forms == ("mcp__gh__search", "search", "gh/search", "gh.search")
    assert first.label == "gh/search"
    assert second.arguments == "not json" and second.forms == ("Bash",)


@pytest.mark.parametrize("written", ["mcp__gh__search", "search", "gh/search", "gh.search"])
def test_an_mcp_tool_matches_as_the_agent_saw_it_and_as_the_eval_wrote_it(written: str) -> None:
    (step,) = steps("mcp__gh__search")
    assert named(written)(step)
    assert not named("gh/other")(step)


def test_codex_mcp_tool_matches_by_its_prefixed_form() -> None:
    t = Transcript(tool_calls=[ToolCall("search", "{}", server="gh")])
    (step,) = trajectory_of(t).steps
    assert named("mcp__gh__search")(step) and named("gh/search")(step)


# --- called, arguments, counts, turns -------------------------------------------------------


def test_arguments_match_as_a_subset_and_by_regex_on_values() -> None:
    actual = {"path": "src/a.py", "opts": {"force": True, "depth": 2}, "tags": ["x", "y"]}
    assert arguments_match({"path": "src/a.py", "opts": {"depth": 2}}, actual)
    assert not arguments_match({"opts": {"force": 1}}, actual)  # a bool is no number
    assert not arguments_match({"tags": ["x"]}, actual)  # lists match whole
    assert arguments_match({"opts": {"depth": 2.0}}, actual)
    assert values_match({"path": r"\.py$"}, actual)
    assert not values_match({"path": r"\.js$"}, actual)
    assert not values_match({"missing": "."}, actual)


def test_called_with_arguments_counts_only_the_matching_calls() -> None:
    t = Transcript(
        tool_calls=[
            ToolCall("Bash", '{"command": "ls"}'),
            ToolCall("Bash", '{"command": "pytest -q"}'),
            ToolCall("Read", '{"file_path": "a"}'),
        ]
    )
    run = trajectory_of(t).steps
    assert called(named("Bash", args={"command": "pytest -q"}), run).passed
    assert called(named("Bash", args_regex="pytest"), run, 1, 1).passed
    assert called(named("Bash", arg_patterns={"command": "^pytest"}), run, 1, 1).passed
    two = called(named("Bash"), run, 1, 1)
    assert not two.passed and "2 matching call(s) (call 1, 2), wanted exactly 1" in two.evidence
    assert not_called(named("Write"), run).passed
    assert not not_called(named("Read"), run).passed
    assert not all_called(wants("Read", "Write"), run).passed


def test_globs_and_regexes_name_steps_too() -> None:
    (step,) = steps("mcp__gh__search")
    assert named("mcp__gh__*", Naming.GLOB)(step)
    assert named("^sea", Naming.REGEX)(step)
    assert named("SEARCH", Naming.FOLDED)(step)
    with pytest.raises(RegexError):
        named("(", Naming.REGEX)


def test_max_turns() -> None:
    run = trajectory_of(Transcript(turns=5))
    assert max_turns(run, 5).passed
    over = max_turns(run, 4)
    assert not over.passed and over.evidence == "5 turn(s), at most 4 allowed"


# --- order, partial credit, the parting point ---------------------------------------------


def test_strict_passes_only_on_the_exact_sequence() -> None:
    expected = wants("Read", "Edit", "Bash")
    assert strict(expected, steps("Read", "Edit", "Bash")).passed
    wrong = strict(expected, steps("Read", "Bash", "Edit"))
    assert not wrong.passed
    assert wrong.score == pytest.approx(1 / 3)  # the matched prefix over the longer sequence
    assert wrong.evidence == (
        "expected exactly: Read → Edit → Bash; observed: Read → Bash → Edit;"
        " parted at step 2: expected Edit, saw Bash"
    )
    extra = strict(expected, steps("Read", "Edit", "Bash", "Bash"))
    assert not extra.passed and extra.score == pytest.approx(3 / 4)
    assert "parted at step 4: 1 extra call(s) after step 3: saw Bash" in extra.evidence
    short = strict(expected, steps("Read"))
    assert "parted at step 2: the run stopped at step 1; expected Edit next" in short.evidence


def test_in_order_allows_gaps_and_credits_the_longest_common_subsequence() -> None:
    expected = wants("Read", "Edit", "Bash")
    gaps = in_order(expected, steps("Read", "Grep", "Edit", "Glob", "Bash"))
    assert gaps.passed and gaps.score == 1.0
    wrong = in_order(expected, steps("Read", "Bash", "Edit"))
    assert not wrong.passed and wrong.score == pytest.approx(2 / 3)
    assert wrong.evidence.endswith(
        "parted at expected step 3: expected Bash after call 3 (Edit), saw nothing"
    )
    # The first step out of place costs that step only: Edit → Bash still credit 2 of 3.
    late = in_order(expected, steps("Edit", "Bash", "Read"))
    assert late.score == pytest.approx(2 / 3)
    never = in_order(expected, steps("Read", "Edit"))
    assert "Bash is never called" in never.evidence
    none = in_order(expected, steps())
    assert "no Read call at all" in none.evidence and none.score == 0.0


def test_any_order_needs_each_expected_call_once_in_any_order() -> None:
    expected = wants("Read", "Edit", "Bash")
    assert any_order(expected, steps("Bash", "Read", "Edit")).passed
    missing = any_order(expected, steps("Bash", "Read", "Read"))
    assert not missing.passed and missing.score == pytest.approx(2 / 3)
    assert missing.evidence.endswith("missing: Edit")
    twice = any_order(wants("Read", "Read"), steps("Read"))
    assert not twice.passed and twice.score == 0.5


def test_any_order_matches_a_narrow_want_before_a_broad_one_takes_its_call() -> None:
    broad, narrow = named("*", Naming.GLOB), named("Edit")
    assert any_order([broad, narrow], steps("Edit", "Read")).passed
    # A chain: each broad want must move along for the last narrow one to be met.
    chain = [named("*", Naming.GLOB), named("[EW]*", Naming.GLOB), named("Write")]
    assert any_order(chain, steps("Write", "Edit", "Read")).passed


def test_any_order_on_a_long_run_falls_back_to_the_greedy_matching() -> None:
    run = steps(*["Bash"] * 5000)
    many = any_order([named("Bash")] * 60, run)  # 300 000 tests: past the cap, greedy
    assert many.passed and many.score == 1.0
    short = any_order([named("Bash")] * 60 + [named("Read")], run)
    assert not short.passed and short.score == pytest.approx(60 / 61)


@pytest.mark.parametrize("order", list(Order))
def test_every_order_fails_when_the_order_is_wrong(order: Order) -> None:
    expected = wants("Read", "Edit", "Bash")
    right = check_order(expected, steps("Read", "Edit", "Bash"), order)
    assert right.passed and right.score == 1.0
    wrong_calls = ("Edit", "Bash") if order is Order.ANY_ORDER else ("Read", "Bash", "Edit")
    wrong = check_order(expected, steps(*wrong_calls), order)
    assert not wrong.passed and 0 < wrong.score < 1


def test_a_long_observed_sequence_is_shown_as_a_window_near_the_parting_point() -> None:
    labels = [f"T{i}" for i in range(40)]
    shown = sequence(labels, around=30)
    assert shown.startswith("… 24 earlier → T24") and shown.endswith("T35 → … 4 more")
    assert shown.count("→") == SHOWN + 1
    assert sequence([]) == "(no tool calls)"


# --- through a format: evolve's tool_sequence ----------------------------------------------


def _grade(order: str, calls: list[str], servers: tuple[str, ...] = ()) -> ItemResult:
    origin = Origin("evals/demo/evals.json", 1)
    params = {"tools": ["Read", "gh/search", "Bash"], "order": order}
    check = Check("a1", "evolve.tool_sequence", derived_text("tool_sequence", params), origin,
                  typed("tool_sequence", params))  # fmt: skip
    case = Case("1", "do it", origin, items=(check,),
                mcp_servers=tuple(McpServer(s) for s in servers))  # fmt: skip
    suite = Suite(Format.EVOLVE, Path("evals.json"), "evals.json", Skill("demo", None), (case,))
    t = Transcript(tool_calls=[ToolCall(n, "{}") for n in calls])
    ctx = CheckContext(suite, case, Path("."), t, run_command, timeout_s=5)
    return asyncio.run(run_check(check, ctx))


def test_evolve_tool_sequence_reads_opencode_mcp_names_through_the_cases_servers() -> None:
    got = _grade("strict", ["Read", "gh_search", "Bash"], servers=("gh",))
    assert got.passed is True and got.score == 1.0
    wrong = _grade("strict", ["Read", "Bash", "gh_search"], servers=("gh",))
    assert wrong.passed is False and "parted at step 2: expected gh/search, saw Bash" in (
        wrong.evidence
    )


def test_evolve_reads_tool_sequence_and_says_what_is_wrong_with_it(tmp_path: Path) -> None:
    (tmp_path / "skills/demo").mkdir(parents=True)
    (tmp_path / "skills/demo/SKILL.md").write_text("---\nname: demo\ndescription: d\n---\n")
    (tmp_path / "evals/demo").mkdir(parents=True)
    (tmp_path / "evals/demo/evals.json").write_text(
        '{"evals": [{"id": 1, "prompt": "p", "assertions": ['
        '{"type": "tool_sequence", "tools": ["Read", "Edit"], "order": "strict"},'
        '{"type": "tool_sequence", "tools": ["Read"]}]}]}'
    )
    (result,) = load_all(tmp_path)
    assert result.ok and result.suite is not None, result.problems
    (case,) = result.suite.cases
    assert [(c.kind, c.text) for c in case.checks] == [
        ("evolve.tool_sequence", "agent called tools strict: Read → Edit"),
        ("evolve.tool_sequence", "agent called tools in order: Read"),
    ]
    (tmp_path / "evals/demo/evals.json").write_text(
        '{"evals": [{"id": 1, "prompt": "p", "assertions": ['
        '{"type": "tool_sequence", "tools": [], "order": "sorted"}]}]}'
    )
    (bad,) = load_all(tmp_path)
    said = " | ".join(p.message for p in bad.errors)
    assert "missing tools" in said and "must be one of strict, in_order, any_order" in said


def test_a_reported_call_answers_to_every_form_agentv_reads_too() -> None:
    assert call_forms(ToolCall("mcp__gh__search", "{}")) == (
        "mcp__gh__search", "search", "gh/search", "gh.search",
    )  # fmt: skip
    assert call_forms(ToolCall("search", "{}", server="gh")) == (
        "search",
        "gh/search", "gh.search", "mcp__gh__search",
    )  # fmt: skip
    assert call_forms(ToolCall("Read", "{}")) == ("Read",)


def _run(check: Check, calls: list[str], reports: bool = True) -> ItemResult:
    origin = Origin("eval.yaml", 1)
    case = Case("1", "do it", origin, items=(check,))
    suite = Suite(Format.WAZA, Path("eval.yaml"), "eval.yaml", Skill("demo", None), (case,))
    t = Transcript(tool_calls=[ToolCall(n, "{}") for n in calls])
    ctx = CheckContext(suite, case, Path("."), t, run_command, 5, reports_tool_calls=reports)
    return asyncio.run(run_check(check, ctx))


@pytest.mark.parametrize(
    ("mode", "calls", "passed"),
    [
        ("exact_match", ["Read", "Edit"], True),
        ("exact_match", ["Edit", "Read"], False),
        ("in_order_match", ["Read", "Bash", "Edit"], True),
        ("in_order_match", ["Edit", "Read"], False),
        ("any_order_match", ["Edit", "Read"], True),
        ("any_order_match", ["Edit", "Edit"], False),
    ],
)
def test_waza_action_sequence_reads_the_trajectory(
    mode: str, calls: list[str], passed: bool
) -> None:
    check = Check("seq", "waza.action_sequence", "seq", Origin("eval.yaml", 1),
                  WazaSequence(mode, ("Read", "Edit")))  # fmt: skip
    got = _run(check, calls)
    assert got.passed is passed and ("parted at" in got.evidence or "missing" in got.evidence) != (
        passed
    )
    assert _run(check, calls, reports=False).passed is None


def test_codex_reports_an_mcp_call_with_its_server_and_arguments() -> None:
    item = {
        "id": "item_1", "type": "mcp_tool_call", "server": "gh", "tool": "search",
        "arguments": {"q": "bug"}, "result": {"content": [{"type": "text", "text": "2"}]},
        "status": "completed",
    }  # fmt: skip
    stream = "\n".join(
        json.dumps(e)
        for e in (
            {"type": "item.completed", "item": item},
            {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}},
        )
    )
    out = codex.parse(stream, exit_code=0)
    (call,) = out.tool_calls
    assert (call.name, call.server, call.arguments, call.is_error) == (
        "search", "gh", '{"q":"bug"}', False,
    )  # fmt: skip
    (step,) = trajectory_of(Transcript(tool_calls=[call])).steps
    assert step.label == "gh/search" and named("mcp__gh__search")(step)
