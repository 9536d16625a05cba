"""The agent loop on both providers: a scripted model drives the real tools in a workspace."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from evolve_action.execute.agent import AgentError, Limits, conversation, limits, run_agent
from evolve_action.execute.sandbox.confine import Confinement, SandboxMode
from evolve_action.execute.skill_install import SkillInfo
from evolve_action.execute.tools.run import WorkspaceTools, system_prompt
from evolve_action.model.evals import Case, Message, Origin
from evolve_action.model.outcomes import ErrorKind
from evolve_action.model.provider import ChatMessage, TextPart, ToolResultPart, ToolSpec
from tests.fakes.llm_server import Call, FakeLLM, Fault, Reply, Stall, call, scripted_agent, text
from tests.integration.conftest import Build

MODELS = {"anthropic": "anthropic/claude-sonnet-4-6", "openai": "openai/gpt-5.4"}
PROVIDERS = ["anthropic", "openai"]
GREETER = SkillInfo(
    "greeter", "Greets people in files.", "# Greeter\nWrite the greeting to hello.txt.\n",
    ".claude/skills/greeter",
)  # fmt: skip
TASK = (ChatMessage("user", (TextPart("Greet the team."),)),)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".claude" / "skills" / "greeter").mkdir(parents=True)
    return root


def real_tools(workspace: Path) -> WorkspaceTools:
    return WorkspaceTools(workspace, Confinement(workspace, mode=SandboxMode.NONE), (GREETER,))


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_skill_write_bash_then_answer(
    fake_llm: FakeLLM, build: Build, workspace: Path, provider: str
) -> None:
    fake_llm.script = scripted_agent(
        Reply(text="Loading the greeter skill.", calls=(Call("Skill", {"skill": "greeter"}),)),
        call("Write", file_path="hello.txt", content="Hello, team!\n"),
        call("Bash", command="cat hello.txt"),
        text("I wrote hello.txt with the greeting."),
    )

    transcript = await run_agent(
        provider=build(provider),
        model=MODELS[provider],
        system=system_prompt((GREETER,)),
        messages=TASK,
        tools=real_tools(workspace),
        max_turns=10,
        timeout_s=30,
    )

    assert (workspace / "hello.txt").read_text() == "Hello, team!\n"
    assert [c.name for c in transcript.tool_calls] == ["Skill", "Write", "Bash"]
    skill, write, bash = transcript.tool_calls
    assert json.loads(write.arguments) == {"file_path": "hello.txt", "content": "Hello, team!\n"}
    assert 'Loaded skill "greeter"' in skill.result and "Write the greeting" in skill.result
    assert bash.result == "Hello, team!" and not bash.is_error
    assert all(c.call_id and c.duration_s >= 0 for c in transcript.tool_calls)
    assert transcript.final_text == "I wrote hello.txt with the greeting."
    assert (transcript.turns, transcript.stop_reason) == (4, "end_turn")
    assert transcript.usage.calls == 4 and transcript.usage.output_tokens > 0
    assert transcript.usage.cost_usd is not None and transcript.usage.cost_usd > 0
    # Each turn sent the whole conversation, with the tool results, to the bare model id.
    last = fake_llm.requests[-1]
    assert last.model == MODELS[provider].split("/")[1]
    assert last.turn == 3 and len(last.tool_results) == 3
    assert "Hello, team!" in last.tool_results[2]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_invalid_tool_call_comes_back_as_an_error_result(
    fake_llm: FakeLLM, build: Build, workspace: Path, provider: str
) -> None:
    fake_llm.script = scripted_agent(
        call("Write", file_path="../escape.txt", content="x"), text("Sorry.")
    )

    transcript = await run_agent(
        provider=build(provider), model=MODELS[provider], system="", messages=TASK,
        tools=real_tools(workspace), max_turns=5, timeout_s=30,
    )  # fmt: skip

    [write] = transcript.tool_calls
    assert write.is_error and "Error" in write.result
    assert not (workspace.parent / "escape.txt").exists()
    assert transcript.stop_reason == "end_turn"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_turn_cap__stops_with_the_last_text(
    fake_llm: FakeLLM, build: Build, workspace: Path, provider: str
) -> None:
    fake_llm.script = scripted_agent(
        Reply(text="Still checking.", calls=(Call("Bash", {"command": "echo again"}),)),
        repeat_last=True,
    )

    transcript = await run_agent(
        provider=build(provider), model=MODELS[provider], system="", messages=TASK,
        tools=real_tools(workspace), max_turns=3, timeout_s=30,
    )  # fmt: skip

    assert (transcript.turns, transcript.stop_reason) == (3, "max_turns")
    assert len(transcript.tool_calls) == 3 and len(fake_llm.requests) == 3
    assert transcript.final_text == "Still checking."
    assert "turn cap (3 turns)" in transcript.notes[0]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_deadline__cancels_the_stalled_call(
    fake_llm: FakeLLM, build: Build, workspace: Path, provider: str
) -> None:
    fake_llm.script = scripted_agent(
        call("Write", file_path="draft.txt", content="draft"), Stall(30, then=text("too late"))
    )

    transcript = await run_agent(
        provider=build(provider), model=MODELS[provider], system="", messages=TASK,
        tools=real_tools(workspace), max_turns=10, timeout_s=0.5,
    )  # fmt: skip

    assert transcript.stop_reason == "timeout"
    assert [c.name for c in transcript.tool_calls] == ["Write"]
    assert (workspace / "draft.txt").read_text() == "draft"
    assert transcript.turns == 1 and 0.5 <= transcript.duration_s < 5
    assert transcript.notes == ["timed out after 0.5 s"]


class SlowTools:
    """A tool box whose only tool hangs, to time out in the middle of a tool call."""

    def specs(self) -> tuple[ToolSpec, ...]:
        return (ToolSpec("Wait", "Waits.", {"type": "object", "properties": {}}),)

    async def call(self, name: str, arguments: str) -> ToolResultPart:
        await asyncio.sleep(30)
        return ToolResultPart("", "done")


async def test_deadline_inside_a_tool_call__records_it_interrupted(
    fake_llm: FakeLLM, build: Build
) -> None:
    fake_llm.script = scripted_agent(call("Wait"))

    transcript = await run_agent(
        provider=build("openai"), model="gpt-5.4", system="", messages=TASK,
        tools=SlowTools(), max_turns=5, timeout_s=0.3,
    )  # fmt: skip

    [wait] = transcript.tool_calls
    assert wait.is_error and wait.result.startswith("interrupted")
    assert transcript.stop_reason == "timeout"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_provider_failure__agent_error_keeps_the_partial_transcript(
    fake_llm: FakeLLM, build: Build, workspace: Path, provider: str
) -> None:
    fake_llm.script = scripted_agent(
        call("Write", file_path="a.txt", content="a"), Fault(403, message="model not allowed")
    )

    with pytest.raises(AgentError) as caught:
        await run_agent(
            provider=build(provider), model=MODELS[provider], system="", messages=TASK,
            tools=real_tools(workspace), max_turns=5, timeout_s=30, label="greet-1",
        )  # fmt: skip

    error = caught.value
    assert error.kind is ErrorKind.AUTH and error.provider == provider
    assert error.message.endswith("(case greet-1)") and "model not allowed" in error.message
    assert [c.name for c in error.transcript.tool_calls] == ["Write"]
    assert error.transcript.turns == 1 and error.transcript.stop_reason == "error"


def _case(**fields: object) -> Case:
    return Case("c1", "Do it.", Origin("evals/x/evals.json", 3), **fields)  # type: ignore[arg-type]


def test_limits__case_then_input_then_defaults() -> None:
    assert limits(_case(max_turns=5, timeout_seconds=30), 9, 99) == Limits(5, 30.0)
    assert limits(_case(), 9, 99) == Limits(9, 99.0)
    assert limits(_case(), None, None) == Limits(20, 600.0)


def test_conversation__authored_turns_then_the_prompt() -> None:
    messages = (Message("system", "be terse"), Message("user", "hi"), Message("assistant", "yo"))
    turns = conversation(_case(messages=messages))
    assert [(m.role, m.parts[0]) for m in turns] == [
        ("user", TextPart("hi")),
        ("assistant", TextPart("yo")),
        ("user", TextPart("Do it.")),
    ]
