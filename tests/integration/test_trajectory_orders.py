"""Trajectory order checks over real runs: the SDK loop on both providers, a scripted model
calling the real tools in the right order and in a wrong one, graded by evolve's
`tool_sequence` (strict, in order, any order) through the one trajectory model."""

from __future__ import annotations

from pathlib import Path

import pytest

from evolve_action.execute.agent import run_agent
from evolve_action.execute.sandbox.confine import Confinement, SandboxMode
from evolve_action.execute.tools.run import WorkspaceTools
from evolve_action.formats.evolve.assertions import derived_text
from evolve_action.formats.evolve.params import typed
from evolve_action.grade.checks import CheckContext, run_check
from evolve_action.model.evals import Case, Check, Format, Origin, Skill, Suite
from evolve_action.model.outcomes import ItemResult, Transcript
from evolve_action.model.provider import ChatMessage, TextPart
from tests.fakes.commands import run_command
from tests.fakes.llm_server import FakeLLM, call, scripted_agent, text
from tests.integration.conftest import Build

MODELS = {"anthropic": "anthropic/claude-sonnet-4-6", "openai": "openai/gpt-5.4"}
PROVIDERS = ["anthropic", "openai"]
TASK = (ChatMessage("user", (TextPart("Write the note, read it back, then show it."),)),)
EXPECTED = ["Write", "Read", "Bash"]
CALLS = {
    "Write": call("Write", file_path="note.txt", content="hi\n"),
    "Read": call("Read", file_path="note.txt"),
    "Bash": call("Bash", command="cat note.txt"),
}
# A wrong trajectory for each order: swapped steps break strict and in-order; any order
# breaks only when an expected call is missing.
WRONG = {
    "strict": ["Write", "Bash", "Read"],
    "in_order": ["Write", "Bash", "Read"],
    "any_order": ["Bash", "Read"],
}


async def run(
    fake_llm: FakeLLM, build: Build, ws: Path, provider: str, order: list[str]
) -> Transcript:
    fake_llm.script = scripted_agent(*(CALLS[name] for name in order), text("Done."))
    ws.mkdir(exist_ok=True)
    tools = WorkspaceTools(ws, Confinement(ws, mode=SandboxMode.NONE), ())
    return await run_agent(
        provider=build(provider), model=MODELS[provider], system="", messages=TASK,
        tools=tools, max_turns=10, timeout_s=30,
    )  # fmt: skip


async def grade(transcript: Transcript, ws: Path, order: str) -> ItemResult:
    origin = Origin("evals/demo/evals.json", 1)
    params = {"tools": EXPECTED, "order": order}
    check = Check("a1", "evolve.tool_sequence", derived_text("tool_sequence", params), origin,
                  typed("tool_sequence", params))  # fmt: skip
    case = Case("1", "do it", origin, items=(check,))
    suite = Suite(Format.EVOLVE, ws / "evals.json", "evals.json", Skill("demo", None), (case,))
    return await run_check(check, CheckContext(suite, case, ws, transcript, run_command, 10))


@pytest.mark.parametrize("order", ["strict", "in_order", "any_order"])
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_the_right_order_passes_and_a_wrong_one_fails(
    fake_llm: FakeLLM, build: Build, tmp_path: Path, provider: str, order: str
) -> None:
    right = await run(fake_llm, build, tmp_path / "right", provider, EXPECTED)
    assert [c.name for c in right.tool_calls] == EXPECTED
    good = await grade(right, tmp_path / "right", order)
    assert (good.passed, good.score) == (True, 1.0), good.evidence

    wrong = await run(fake_llm, build, tmp_path / "wrong", provider, WRONG[order])
    assert [c.name for c in wrong.tool_calls] == WRONG[order]
    bad = await grade(wrong, tmp_path / "wrong", order)
    assert bad.passed is False and bad.score is not None and 0 < bad.score < 1, bad.evidence
    assert "expected" in bad.evidence and "observed: " + " → ".join(WRONG[order]) in bad.evidence
    if order == "any_order":
        assert bad.evidence.endswith("missing: Write")
    else:
        assert "expected Read, saw Bash" in bad.evidence or "expected Bash after" in bad.evidence
