"""A skill that must call an MCP tool, on the real Claude Code: its case declares one stdio
server and checks that the agent called the server's tool (`tool_call`). On base the skill
says to look the answer up with that tool, and the run passes; on head the skill stops
saying so, the agent answers without it, and the run fails that check. Each run goes through
`runner.run_and_grade` (workspace, confinement at each level, credential proxy, grading);
the server reaches the CLI as `Invocation.mcp`, as the executor hands it the case's
resolved servers.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evolve_action.execute.harness import registry
from evolve_action.execute.harness.run import open_cli_harness
from evolve_action.execute.providers.faults import RetryPolicy
from evolve_action.execute.providers.registry import build_provider
from evolve_action.execute.sandbox.python import python_for_commands
from evolve_action.model.mcp import McpLaunch
from evolve_action.model.outcomes import RunResult, Side, Status
from evolve_action.pipeline.runner import RunEnvironment, run_and_grade
from evolve_action.plan.planning import RunSpec
from tests.conftest import reachable_place
from tests.fakes import mcp_stdio
from tests.fakes.cli_agents import harness_environ, make_repo, suite_and_case
from tests.fakes.llm_server import Answer, FakeLLM, Request, call, text
from tests.fakes.scripts import grading, tool_names
from tests.integration.test_cli_isolation import Declaring
from tests.levels import LEVELS, at_level

KEY = "sk-ant-real-0123456789abcdef"
MODEL = "anthropic/claude-sonnet-4-6"
TOOL = "mcp__docs__lookup"
BASE_SKILL = "Before greeting, LOOK UP the guest with the docs lookup tool, then write hello.txt."
HEAD_SKILL = "Write hello.txt at once."
CASE = {
    "evals": [
        {
            "id": "greet",
            "prompt": "Greet Ada.",
            "assertions": [{"type": "tool_call", "tool": f"^{TOOL}$"}],
        }
    ]
}


def agent(request: Request) -> Answer:
    """Loads the skill, then does what it says: the lookup only when the skill asks for it."""
    if "submit_grading" in tool_names(request):
        return grading(request)
    # Claude Code's `Skill` result only says it loaded; the skill's text follows it.
    loaded = request.raw.decode("utf-8", "replace")
    if request.turn == 0:
        return call("Skill", skill="greeter")
    if request.turn == 1 and "LOOK UP" in loaded:
        return call(TOOL, query="Ada")
    return text("Hello, Ada!")


@pytest.mark.parametrize("level", LEVELS)
async def test_the_skill_that_stops_calling_the_mcp_tool_fails_its_case(
    level: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    results: dict[Side, RunResult] = {}
    with FakeLLM(agent, api_key=None) as fake, reachable_place("iso-mcp-") as place:
        shutil.copy(mcp_stdio.__file__, place / "mcp_stdio.py")
        (place / "mcp_stdio.py").chmod(0o644)
        with at_level(level):
            python = python_for_commands()
            if python is None:
                pytest.skip("no Python within the confinement's reach to start the relay")
            # Started in the run's workspace, where it leaves its marker under `.tmp`.
            argv = (python, str(place / "mcp_stdio.py"), ".tmp/mcp-started", "lookup", "found")
            docs = McpLaunch("docs", argv)
            monkeypatch.setitem(
                registry.HARNESSES,
                "claude",
                Declaring(registry.HARNESSES["claude"], docs),  # type: ignore[arg-type]
            )
            for side, body in ((Side.BASE, BASE_SKILL), (Side.HEAD, HEAD_SKILL)):
                repo = make_repo(tmp_path / str(side), {"evals.json": CASE}, body=body)
                results[side] = await _run(repo, side, fake)
        assert not fake.script_errors, fake.script_errors

    _base_called_and_head_did_not(results)


async def _run(repo: Path, side: Side, fake: FakeLLM) -> RunResult:
    environ = harness_environ(fake, {"anthropic": KEY})
    suite, case = suite_and_case(repo)
    policy = RetryPolicy(max_retries=1, base_delay_s=0.01)
    judge = build_provider("anthropic", environ=environ, policy=policy)
    try:
        async with open_cli_harness(
            [MODEL], keys={}, environ=environ, cache_dir=None, limiters={}
        ) as harness:
            env = RunEnvironment(
                providers={"anthropic": judge}, judge_provider=judge, judge_model=MODEL,
                harness=harness, max_turns=6,
            )  # fmt: skip
            return await run_and_grade(RunSpec(suite, case, MODEL, side, 1), env)
    finally:
        await judge.aclose()


DECLARED = {"mcp_servers": {"docs": {"mock": {"lookup": "found"}}}, **CASE}


@pytest.mark.parametrize("level", LEVELS)
async def test_a_mock_server_the_case_declares_reaches_the_real_cli(
    level: str, tmp_path: Path
) -> None:
    """The whole path, no harness wrapper: the eval file declares a mocked server, the loader
    reads it, the executor resolves it into our mock server and Claude Code is handed it."""
    results: dict[Side, RunResult] = {}
    with FakeLLM(agent, api_key=None) as fake, at_level(level):
        if python_for_commands() is None:
            pytest.skip("no Python within the confinement's reach to start the mock server")
        for side, body in ((Side.BASE, BASE_SKILL), (Side.HEAD, HEAD_SKILL)):
            repo = make_repo(tmp_path / str(side), {"evals.json": DECLARED}, body=body)
            results[side] = await _run(repo, side, fake)
        assert not fake.script_errors, fake.script_errors
    _base_called_and_head_did_not(results)


def _base_called_and_head_did_not(results: dict[Side, RunResult]) -> None:
    base, head = results[Side.BASE], results[Side.HEAD]
    assert base.status is Status.PASS, (base.error, [i.evidence for i in base.items])
    called = [c for c in base.transcript.tool_calls if c.name == TOOL]
    assert called and "found" in called[0].result and not called[0].is_error
    assert head.status is Status.FAIL, (head.error, [i.evidence for i in head.items])
    assert not [c for c in head.transcript.tool_calls if c.name == TOOL]
    assert [i.passed for i in head.items] == [False]
