"""Record and replay with several agents: each agent's harness keeps its own recordings.

Two agents' harnesses write the same file names (`cli-<provider>.json`); kept in one folder,
the last to close would overwrite the others' and their replay would miss. Here Claude Code
and Copilot each record a run of the same case, then each replays its own with the provider
gone quiet. The CLIs are the pinned releases in `.cache/clis`; without them this skips.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.execute.providers.faults import RetryPolicy
from evolve_action.execute.providers.registry import build_provider
from evolve_action.model.outcomes import RunResult, Side, Status
from evolve_action.pipeline.agents import open_harnesses, recordings_of
from evolve_action.pipeline.runner import RunEnvironment, run_and_grade
from evolve_action.plan.planning import RunSpec
from tests.fakes.cli_agents import TASK, harness_environ, make_repo, suite_and_case
from tests.fakes.llm_server import Answer, FakeLLM, Request, call, text
from tests.fakes.scripts import tool_names
from tests.levels import LEVELS, at_level

MODEL = "anthropic/claude-sonnet-4-6"
AGENTS = ("claude", "copilot")


def answer(request: Request) -> Answer:
    claude = "Bash" in tool_names(request)  # Claude Code's tool names; Copilot's are lower case
    command = "echo made > out.txt && printf '%s\\n' 'Hello, Ada!' > hello.txt"
    turns = [
        call("Bash", command=command)
        if claude
        else call("bash", command=command, description="go"),
        text("Claude Code recorded." if claude else "Copilot recorded."),
    ]
    return turns[min(request.turn, len(turns) - 1)]


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    with FakeLLM(answer) as server:
        yield server
    assert not server.script_errors, server.script_errors


async def _run_each(fake: FakeLLM, root: Path, level: str, **dirs: Path) -> dict[str, RunResult]:
    environ = harness_environ(fake, {"anthropic": "sk-ant-test"})
    suite, case = suite_and_case(root)
    provider = build_provider("anthropic", environ=environ, policy=RetryPolicy(max_retries=0))
    results = {}
    with at_level(level):
        async with open_harnesses(
            AGENTS, [MODEL], keys={}, environ=environ, cache_dir=None, limiters={}, **dirs
        ) as opened:
            env = RunEnvironment(
                providers={"anthropic": provider}, judge_provider=provider,
                judge_model=MODEL, agents=opened,
            )  # fmt: skip
            for name in AGENTS:
                spec = RunSpec(suite, case, MODEL, Side.HEAD, 1, agent=name)
                results[name] = await run_and_grade(spec, env)
    await provider.aclose()
    return results


@pytest.mark.parametrize("level", LEVELS)
async def test_each_agent_replays_its_own_recording(
    fake: FakeLLM, tmp_path: Path, level: str
) -> None:
    root = make_repo(tmp_path / "repo", {"evals.json": TASK})
    cassettes = tmp_path / "cassettes"
    recorded = await _run_each(fake, root, level, record_dir=cassettes)
    for name, result in recorded.items():
        assert result.status is Status.PASS, (name, result.error)
    for name in AGENTS:
        own = recordings_of(cassettes, name)
        assert own is not None and (own / "cli-anthropic.json").is_file(), name
    calls = len(fake.requests)

    replayed = await _run_each(fake, root, level, replay_dir=cassettes)
    assert len(fake.requests) == calls  # nothing reached the provider
    for name, result in replayed.items():
        assert result.status is Status.PASS, (name, result.error)
        assert result.transcript.final_text == recorded[name].transcript.final_text, name
    assert replayed["copilot"].transcript.final_text == "Copilot recorded."
    assert replayed["claude"].transcript.final_text == "Claude Code recorded."
