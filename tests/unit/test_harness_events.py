"""Reading the CLIs' event streams: Claude Code's stream-json and Codex's `exec --json`.

The lines below have the shape the real CLIs print (Claude Code 2.1.330, Codex 0.169.0, as
seen against the loopback fakes), cut down to the fields that matter. The tests with the real
binaries (tests/integration/test_harness_cli.py) check the same readers on live output.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from evolve_action.execute.harness import claude, codex
from evolve_action.execute.harness.claude import ClaudeCode
from evolve_action.execute.harness.codex import Codex
from evolve_action.execute.harness.contract import Invocation
from evolve_action.model.outcomes import ErrorKind


def lines(*events: dict[str, Any]) -> str:
    return "\n".join(json.dumps(e) for e in events) + "\n"


def assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"type": "assistant", "message": {"role": "assistant", "content": list(blocks)}}


def tool_result(use_id: str, content: Any, is_error: bool = False) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": use_id, "content": content, "is_error": is_error}
    return {"type": "user", "message": {"role": "user", "content": [block]}}


def result(text: str = "Done.", **extra: Any) -> dict[str, Any]:
    usage = {
        "input_tokens": 100,
        "output_tokens": 20,
        "cache_read_input_tokens": 300,
        "cache_creation_input_tokens": 50,
    }
    event = {"type": "result", "subtype": "success", "is_error": False, "result": text}
    return event | {"num_turns": 3, "total_cost_usd": 0.01, "usage": usage} | extra


SKILL = {"type": "tool_use", "id": "toolu_1", "name": "Skill", "input": {"skill": "greeter"}}
WRITE = {
    "type": "tool_use",
    "id": "toolu_2",
    "name": "Write",
    "input": {"file_path": "hello.txt", "content": "Hi"},
}


def test_claude__tool_calls_with_results_final_answer_and_usage() -> None:
    out = claude.parse(
        lines(
            {"type": "system", "subtype": "init", "tools": ["Bash", "Skill"]},
            assistant({"type": "text", "text": "Loading the skill."}, SKILL),
            tool_result("toolu_1", "Launching skill: greeter"),
            assistant(WRITE),
            tool_result("toolu_2", [{"type": "text", "text": "File created"}]),
            assistant({"type": "text", "text": "Done."}),
            result("Done."),
        ),
        exit_code=0,
    )
    assert out.error == ""
    assert out.final_text == "Done."
    assert [(c.name, c.arguments, c.result) for c in out.tool_calls] == [
        ("Skill", '{"skill":"greeter"}', "Launching skill: greeter"),
        ("Write", '{"file_path":"hello.txt","content":"Hi"}', "File created"),
    ]
    assert out.turns == 3
    assert out.usage is not None
    assert (out.usage.input_tokens, out.usage.output_tokens) == (100, 20)
    assert (out.usage.cache_read_tokens, out.usage.cache_write_tokens) == (300, 50)


def test_claude__a_repeated_assistant_event_does_not_repeat_its_call() -> None:
    out = claude.parse(lines(assistant(SKILL), assistant(SKILL), result()), exit_code=0)
    assert len(out.tool_calls) == 1


def test_claude__empty_output_is_an_error_with_stderr() -> None:
    out = claude.parse("", exit_code=1, stderr="Error: something broke\n")
    assert out.error == "empty CLI output: Error: something broke"
    assert out.error_kind is ErrorKind.HARNESS


def test_claude__no_result_event_and_a_failed_process_is_unparseable() -> None:
    out = claude.parse(lines(assistant(SKILL)), exit_code=137)
    assert out.error.startswith("unparseable CLI output (exit 137)")
    assert [c.name for c in out.tool_calls] == ["Skill"]  # kept for the error run's transcript


def test_claude__no_result_event_with_exit_0_is_graded_as_text() -> None:
    out = claude.parse("plain answer\n", exit_code=0)
    assert out.error == "" and out.final_text == "plain answer"


def test_claude__the_turn_cap_is_graded_on_the_last_text() -> None:
    stream = lines(
        assistant({"type": "text", "text": "Working on it."}, SKILL),
        result("", subtype="error_max_turns", is_error=True),
    )
    out = claude.parse(stream, exit_code=1)
    assert out.error == ""
    assert out.stop_reason == "max_turns"
    assert out.final_text == "Working on it."


def test_claude__an_error_result_without_text_is_a_run_error() -> None:
    stream = lines(result("", subtype="error_during_execution", is_error=True, errors=["boom"]))
    out = claude.parse(stream, exit_code=1)
    assert out.error == "claude run error (error_during_execution): boom"


def test_claude__a_rejected_usage_limit_is_a_quota_error() -> None:
    limit = {
        "type": "rate_limit_event",
        "rate_limit_info": {"status": "rejected", "rateLimitType": "five_hour", "resetsAt": 1},
    }
    stream = lines(limit, result("", usage={"input_tokens": 5, "output_tokens": 0}))
    out = claude.parse(stream, exit_code=1)
    assert out.error_kind is ErrorKind.QUOTA
    assert out.error.startswith("usage limit reached (five_hour)")


def command(item_id: str, cmd: str, output: str, code: int = 0) -> dict[str, Any]:
    item = {
        "id": item_id,
        "type": "command_execution",
        "command": cmd,
        "aggregated_output": output,
        "exit_code": code,
        "status": "completed" if code == 0 else "failed",
    }
    return {"type": "item.completed", "item": item}


def message(item_id: str, text: str) -> dict[str, Any]:
    return {
        "type": "item.completed",
        "item": {"id": item_id, "type": "agent_message", "text": text},
    }


TURN_DONE = {
    "type": "turn.completed",
    "usage": {"input_tokens": 1000, "cached_input_tokens": 600, "output_tokens": 30},
}


def test_codex__commands_as_tool_calls_messages_joined_and_fresh_input_split_off() -> None:
    out = codex.parse(
        lines(
            {"type": "thread.started", "thread_id": "t"},
            {"type": "turn.started"},
            message("item_0", "Reading the skill."),
            command("item_1", "/bin/bash -lc 'cat .agents/skills/greeter/SKILL.md'", "# Greeter"),
            command("item_2", "/bin/bash -lc 'false'", "", code=1),
            {
                "type": "item.completed",
                "item": {"id": "item_3", "type": "file_change", "changes": [{"path": "a"}]},
            },
            message("item_4", "Done."),
            TURN_DONE,
        ),
        exit_code=0,
    )
    assert out.error == ""
    assert out.final_text == "Reading the skill.\nDone."
    names = [(c.name, c.arguments, c.is_error) for c in out.tool_calls]
    assert names == [
        ("command_execution", "\"/bin/bash -lc 'cat .agents/skills/greeter/SKILL.md'\"", False),
        ("command_execution", "\"/bin/bash -lc 'false'\"", True),
        ("file_change", '[{"path":"a"}]', False),
    ]
    assert out.tool_calls[0].result == "# Greeter"
    assert out.usage is not None
    assert (out.usage.input_tokens, out.usage.cache_read_tokens) == (400, 600)


def test_codex__a_failed_turn_with_nothing_done_is_an_error() -> None:
    failed = {"type": "turn.failed", "error": {"message": "unexpected status 401"}}
    out = codex.parse(lines({"type": "turn.started"}, failed), exit_code=1)
    assert out.error == "codex run error: unexpected status 401"


def test_codex__a_failed_turn_after_some_work_is_graded_with_a_note() -> None:
    failed = {"type": "turn.failed", "error": {"message": "stream disconnected"}}
    out = codex.parse(lines(command("i", "ls", "a"), failed), exit_code=1)
    assert out.error == ""
    assert out.notes == ["codex: stream disconnected"]


def test_codex__warning_items_are_notes_not_errors() -> None:
    warning = {"type": "item.completed", "item": {"type": "error", "message": "metadata missing"}}
    out = codex.parse(lines(warning, message("m", "ok"), TURN_DONE), exit_code=0)
    assert out.error == "" and out.final_text == "ok"
    assert out.notes == ["codex: metadata missing"]


def test_codex__empty_output_is_an_error() -> None:
    assert codex.parse(" \n", exit_code=0).error == "empty CLI output"


def _run(**changes: object) -> Invocation:
    base = Invocation(
        binary="cli", provider="openai", model="m", prompt="hi", max_turns=20, trigger=False,
        sandboxed=True, base_url="http://x", token="dummy",
    )  # fmt: skip
    return replace(base, **changes)  # type: ignore[arg-type]


def test_command_lines__tools_by_run_kind_and_sandbox_nesting() -> None:
    claude, codex = ClaudeCode(), Codex()
    on = claude.command(_run(provider="anthropic", max_turns=2, trigger=True))
    argv = on.argv
    assert argv[argv.index("--allowedTools") + 1] == "Skill Read"
    assert json.loads(argv[argv.index("--settings") + 1]) == {"sandbox": {"enabled": False}}
    assert on.stdin == "hi"
    assert on.env == {"ANTHROPIC_BASE_URL": "http://x/anthropic", "ANTHROPIC_API_KEY": "dummy"}
    argv = claude.command(_run(provider="anthropic", sandboxed=False)).argv
    assert argv[argv.index("--allowedTools") + 1] == "Bash Read Write Edit Glob Grep Skill"
    assert "--settings" not in argv and "--dangerously-skip-permissions" not in argv
    ours_on = codex.command(_run()).argv
    assert "--dangerously-bypass-approvals-and-sandbox" in ours_on and ours_on[-1] == "-"
    ours_off = codex.command(_run(sandboxed=False)).argv
    assert ours_off[ours_off.index("--sandbox") + 1] == "workspace-write"
    provider = next(a for a in ours_on if a.startswith("model_providers."))
    assert 'base_url="http://x/openai"' in provider and "request_max_retries=0" in provider
    assert codex.command(_run()).env == {"OPENAI_API_KEY": "dummy"}
