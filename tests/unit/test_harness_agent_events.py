"""Reading Copilot CLI's, Gemini CLI's and OpenCode's event streams into a `CliOutcome`.

`tests/data/cli_events/<agent>.jsonl` are streams the real CLIs printed against the loopback
fakes (Copilot CLI 1.0.102 and OpenCode 1.18.33 on an Anthropic model, Gemini CLI 0.61.0 on
the Gemini API): the skill loaded, `echo made > out.txt && cat out.txt`, hello.txt written,
"All done."; `<agent>-auth-error.jsonl` the same CLIs refused by a 401. Hostile output (not
JSON, truncated, nested past the decoder's recursion limit, wrong types) must end as a
clear error or be skipped, never as a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from evolve_action.execute.harness.copilot import events as copilot_events
from evolve_action.execute.harness.events import CliOutcome
from evolve_action.execute.harness.gemini import events as gemini_events
from evolve_action.execute.harness.opencode import events as opencode_events
from evolve_action.model.outcomes import ErrorKind

DATA = Path(__file__).resolve().parents[1] / "data" / "cli_events"
Parse = Callable[..., CliOutcome]
PARSERS: dict[str, Parse] = {
    "copilot": copilot_events.parse,
    "gemini": gemini_events.parse,
    "opencode": opencode_events.parse,
}
AGENTS = sorted(PARSERS)
# What each CLI calls the three tools of the recorded session.
TOOLS = {
    "copilot": ["skill", "bash", "create"],
    "gemini": ["activate_skill", "run_shell_command", "write_file"],
    "opencode": ["skill", "bash", "write"],
}


def recorded(name: str) -> str:
    return (DATA / name).read_text()


@pytest.mark.parametrize("agent", AGENTS)
def test_the_recorded_session_reads_as_tool_calls_with_outputs_and_the_answer(agent: str) -> None:
    out = PARSERS[agent](recorded(f"{agent}.jsonl"), exit_code=0)

    assert not out.error and out.stop_reason == "end_turn"
    assert [c.name for c in out.tool_calls] == TOOLS[agent]
    skill, shell, write = out.tool_calls
    assert json.loads(skill.arguments) in ({"skill": "greeter"}, {"name": "greeter"})
    assert (
        "made" in shell.result and "echo made > out.txt" in json.loads(shell.arguments)["command"]
    )
    assert "Hello, Ada!" in write.arguments
    assert not [c for c in out.tool_calls if c.is_error]
    assert all(c.call_id for c in out.tool_calls)
    assert out.final_text == "All done."


def test_copilot_counts_its_turns_and_names_the_skills_it_found() -> None:
    out = copilot_events.parse(recorded("copilot.jsonl"), exit_code=0)
    assert out.turns == 4 and out.usage is None  # no token counts for a BYOK provider
    assert "loaded successfully" in out.tool_calls[0].result
    assert out.notes == ["copilot found the skills: greeter"]


def test_gemini_reads_its_token_counts_from_the_result() -> None:
    out = gemini_events.parse(recorded("gemini.jsonl"), exit_code=0)
    stats = json.loads(recorded("gemini.jsonl").splitlines()[-1])["stats"]
    assert out.usage is not None and out.turns is None  # turns: the proxy's count
    assert out.usage.input_tokens == stats["input"]
    assert out.usage.cache_read_tokens == stats["cached"]
    assert out.usage.output_tokens == stats["output_tokens"]
    assert ".gemini/skills/greeter" in out.tool_calls[0].result


def test_opencode_adds_up_its_steps() -> None:
    text = recorded("opencode.jsonl")
    steps = [json.loads(line)["part"] for line in text.splitlines() if '"step_finish"' in line]
    out = opencode_events.parse(text, exit_code=0)
    assert out.turns == len(steps) == 4
    assert out.usage is not None and out.usage.calls == 4
    assert out.usage.input_tokens == sum(s["tokens"]["input"] for s in steps)
    assert out.usage.cache_read_tokens == sum(s["tokens"]["cache"]["read"] for s in steps)
    assert out.usage.cost_usd == pytest.approx(sum(s["cost"] for s in steps))
    assert "<skill_content" in out.tool_calls[0].result


@pytest.mark.parametrize("agent", AGENTS)
def test_a_refused_key_is_an_auth_error_never_a_failure(agent: str) -> None:
    out = PARSERS[agent](recorded(f"{agent}-auth-error.jsonl"), exit_code=1)
    assert out.error and out.error_kind is ErrorKind.AUTH, out.error
    assert not out.tool_calls and not out.final_text


@pytest.mark.parametrize("agent", AGENTS)
def test_empty_output_is_an_error_that_quotes_stderr(agent: str) -> None:
    out = PARSERS[agent]("  \n", exit_code=1, stderr="\x1b[31mboom: no such file\x1b[0m")
    assert out.error == "empty CLI output: boom: no such file"
    assert out.error_kind is ErrorKind.HARNESS


HOSTILE = [
    "not json at all\n",
    '{"type": "result", "status": "err',  # cut mid-line
    '{"a":' * 100_000 + "1" + "}" * 100_000,  # past the decoder's recursion limit
    '[1, 2, 3]\n"a string"\nnull\n',
    json.dumps({"type": "assistant.message", "data": "not an object"}),
    json.dumps({"type": "tool_use", "part": [], "tool_id": {"x": 1}, "parameters": "x"}),
    json.dumps({"type": "tool.execution_complete", "data": {"toolCallId": None, "result": 7}}),
    json.dumps({"type": "step_finish", "part": {"tokens": {"input": "9", "cache": []}}}),
    json.dumps({"type": "result", "stats": {"input": -5, "cached": 1e400, "output_tokens": True}}),
    json.dumps({"type": "message", "role": "assistant", "content": ["x"]}),
    json.dumps({"type": "error", "error": "flat"}) + "\n" + "\x00\x1b[2J" * 1000,
]


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("garbage", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_output_never_raises(agent: str, garbage: str) -> None:
    out = PARSERS[agent](garbage, exit_code=3, stderr="x" * 100_000)
    assert isinstance(out, CliOutcome)
    assert len(out.error) < 1_000 and all(len(n) < 1_000 for n in out.notes)
    usage = out.usage
    assert usage is None or min(usage.input_tokens, usage.output_tokens) >= 0


@pytest.mark.parametrize("agent", AGENTS)
def test_a_recorded_session_cut_short_keeps_what_it_had(agent: str) -> None:
    lines = recorded(f"{agent}.jsonl").splitlines()
    out = PARSERS[agent]("\n".join(lines[: len(lines) // 2]), exit_code=137)
    assert out.tool_calls or out.error  # evidence, or an error: never an empty success
    assert out.final_text != "All done."


def test_a_failed_shell_command_is_an_erroneous_tool_call() -> None:
    copilot = copilot_events.parse(
        "\n".join(
            json.dumps(e)
            for e in [
                {"type": "tool.execution_start", "data": {"toolCallId": "a", "toolName": "bash"}},
                {
                    "type": "tool.execution_complete",
                    "data": {
                        "toolCallId": "a",
                        "success": True,
                        "shellExecution": {"exitCode": 2},
                        "result": {"content": "nope"},
                    },
                },
            ]
        ),
        exit_code=0,
    )
    part = {"tool": "bash", "callID": "b", "state": {"status": "completed", "output": "no"}}
    part["state"]["metadata"] = {"exit": 1}  # type: ignore[index]
    opencode = opencode_events.parse(json.dumps({"type": "tool_use", "part": part}), exit_code=0)
    gemini = gemini_events.parse(
        json.dumps({"type": "tool_use", "tool_name": "run_shell_command", "tool_id": "c"})
        + "\n"
        + json.dumps(
            {
                "type": "tool_result",
                "tool_id": "c",
                "status": "error",
                "error": {"message": "denied"},
            }
        ),
        exit_code=0,
    )
    assert copilot.tool_calls[0].is_error and copilot.tool_calls[0].result == "nope"
    assert opencode.tool_calls[0].is_error and opencode.tool_calls[0].result == "no"
    assert gemini.tool_calls[0].is_error and gemini.tool_calls[0].result == "denied"


def test_an_answer_cut_at_the_token_limit_is_said_so_and_warnings_are_noted() -> None:
    step = {"reason": "length", "tokens": {"input": 5, "output": 7}}
    cut = opencode_events.parse(
        "\n".join(
            json.dumps(e)
            for e in [
                {"type": "step_start", "part": {}},
                {"type": "text", "part": {"text": "Half an ans"}},
                {"type": "step_finish", "part": step},
            ]
        ),
        exit_code=0,
    )
    assert cut.stop_reason == "max_tokens" and cut.final_text == "Half an ans"
    warned = gemini_events.parse(
        json.dumps({"type": "error", "severity": "warning", "message": "loop detected"})
        + "\n"
        + json.dumps({"type": "message", "role": "assistant", "content": "Done.", "delta": True}),
        exit_code=0,
    )
    assert warned.final_text == "Done." and warned.notes == ["gemini: loop detected"]
