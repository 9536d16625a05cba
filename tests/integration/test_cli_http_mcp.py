"""A real CLI run (Claude Code, Codex) calling a tool of an HTTP MCP server the case declares
by its loopback URL (`mcp_servers: {declared: {url: ...}}` in the eval file), at each
confinement level this machine gives.

At the user level the CLI shares the host's loopback and reaches the server directly. Under
bubblewrap the run has a network namespace of its own, whose loopback is not the host's: the
relay inside listens on the URL's own port and forwards, through a socket in the workspace,
to the host's side of the bridge (`execute/mcp/bridge.py`), so the CLI reaches the server by
the very URL the case declares.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evolve_action.execute.harness import registry
from evolve_action.execute.harness.run import open_cli_harness
from evolve_action.execute.sandbox.python import python_for_commands
from evolve_action.model.outcomes import Side, Transcript
from evolve_action.plan.planning import RunSpec
from tests.conftest import reachable_place
from tests.fakes.cli_agents import harness_environ, make_repo, suite_and_case
from tests.fakes.llm_script import Call, Reply
from tests.fakes.llm_server import Answer, FakeLLM, Request, call, keyless, text
from tests.fakes.mcp_http import http_mcp_server
from tests.integration.test_cli_isolation import MODELS, REAL, open_up, workspace_for
from tests.levels import at_level

CALL = {
    "claude": call("mcp__declared__forecast", city="Oslo"),
    "codex": Reply(calls=(Call("forecast", {"city": "Oslo"}, namespace="mcp__declared"),)),
}
TASK = {"id": "greet", "prompt": "Greet Ada.", "assertions": [{"type": "file_exists", "path": "x"}]}


fake = pytest.fixture(keyless, name="fake")  # the real CLIs send no real key


async def run_declaring(
    cli: str, level: str, fake: FakeLLM, tmp_path: Path, url: str
) -> Transcript:
    """One run of `cli` on a case whose eval file declares the HTTP server at `url`."""
    model = MODELS[cli]
    environ = harness_environ(fake, {p: REAL[p] for p in ("anthropic", "openai")})
    evals = {"mcp_servers": {"declared": {"url": url}}, "evals": [TASK]}
    suite, case = suite_and_case(make_repo(tmp_path / "repo", {"evals.json": evals}))
    assert case.mcp_servers, "the eval file's server did not reach the case"
    with reachable_place("http-mcp-") as root, at_level(level):
        if python_for_commands() is None:
            pytest.skip("no Python within the confinement's reach to start the relay")
        async with open_cli_harness(
            [model], keys={}, environ=environ, cache_dir=None, limiters={}, agent=cli
        ) as harness:
            if cli in harness.unavailable:
                pytest.skip(harness.unavailable[cli])
            workspace = workspace_for(root, registry.HARNESSES[cli].skills_dir)
            open_up(root)
            spec = RunSpec(suite, case, model, Side.HEAD, 1)
            return await harness.run(spec, workspace, max_turns=4, timeout_s=300, network=False)


@pytest.mark.parametrize("cli", sorted(CALL))
async def test_a_cli_calls_a_tool_of_a_loopback_http_server(
    cli: str, level: str, fake: FakeLLM, tmp_path: Path
) -> None:
    def script(request: Request) -> Answer:
        return CALL[cli] if request.turn == 0 else text("All done.")

    fake.script = script
    with http_mcp_server() as served:
        transcript = await run_declaring(cli, level, fake, tmp_path, served.url)

    assert served.calls == [{"city": "Oslo"}]
    (called,) = transcript.tool_calls
    assert "Cloudy, 14 C in Oslo" in called.result and not called.is_error
    assert "Cloudy, 14 C in Oslo" in fake.requests[1].raw.decode("utf-8", "replace")
    assert transcript.final_text == "All done."
