"""An HTTP MCP server declared by URL (`mcp_servers: {name: {url: ...}}`) on the SDK loop: read
from the eval, connected with the SDK's streamable-HTTP client on the loopback, its tool
offered as `mcp__<server>__<tool>`, called by a scripted model, its answer in the transcript."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from evolve_action.execute.agent import AgentError, run_agent
from evolve_action.execute.mcp.servers import open_servers
from evolve_action.execute.providers.faults import RetryingProvider, RetryPolicy
from evolve_action.execute.providers.registry import build_provider
from evolve_action.execute.sandbox.confine import Confinement, SandboxMode
from evolve_action.execute.tools.run import WorkspaceTools
from evolve_action.formats import load_all
from evolve_action.model.evals import Case
from evolve_action.model.mcp import McpServer
from evolve_action.model.provider import ChatMessage, TextPart
from tests.fakes.llm_server import FakeLLM, call, scripted_agent, text
from tests.fakes.mcp_http import http_mcp_server, recorder

SKILL = "---\nname: weather\ndescription: d\n---\nbody\n"
MODELS = {"anthropic": "anthropic/claude-sonnet-4-6", "openai": "openai/gpt-5.4"}
TASK = (ChatMessage("user", (TextPart("What is the weather in Oslo?"),)),)


def declared(root: Path, url: str) -> Case:
    """The one case of an evolve eval declaring the server `wx` at `url`."""
    doc = {
        "mcp_servers": {"wx": {"type": "http", "url": url}},
        "evals": [{"id": 1, "prompt": "Oslo?", "expectations": ["says cloudy"]}],
    }
    files = {
        "skills/weather/SKILL.md": SKILL,
        ".claude-plugin/plugin.json": '{"name": "acme"}',
        "evals/weather/evals.json": json.dumps(doc),
    }
    for rel, body in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body)
    (result,) = [r for r in load_all(root) if r.format is not None]
    assert result.ok and result.suite is not None, result.problems
    (case,) = result.suite.cases
    return case


@pytest.fixture(params=["anthropic", "openai"])
async def provider(
    fake_llm: FakeLLM, request: pytest.FixtureRequest
) -> AsyncIterator[tuple[RetryingProvider, str]]:
    name = request.param
    url = fake_llm.anthropic_base_url if name == "anthropic" else fake_llm.openai_base_url
    policy = RetryPolicy(max_retries=1, base_delay_s=0.01)
    made = build_provider(name, environ={}, api_key="k", base_url=url, policy=policy)
    yield made, MODELS[name]
    await made.aclose()


async def test_the_sdk_loop_calls_a_tool_of_a_loopback_http_server(
    fake_llm: FakeLLM, provider: tuple[RetryingProvider, str], tmp_path: Path
) -> None:
    fake_llm.script = scripted_agent(
        call("mcp__wx__forecast", city="Oslo"), text("It is cloudy in Oslo.")
    )
    ws = tmp_path / "ws"
    ws.mkdir()
    with http_mcp_server() as served:
        case = declared(tmp_path / "repo", served.url)
        (server,) = case.mcp_servers
        assert server.url == served.url and not server.command
        conf = Confinement(ws, mode=SandboxMode.NONE)
        async with open_servers(case.mcp_servers, conf, label="c1") as mcp:
            tools = WorkspaceTools(ws, conf, (), ("Read",), mcp=mcp)
            transcript = await run_agent(
                provider=provider[0], model=provider[1], system="", messages=TASK, tools=tools,
                max_turns=5, timeout_s=60,
            )  # fmt: skip

    assert served.calls == [{"city": "Oslo"}]  # the call reached the HTTP server
    (called,) = transcript.tool_calls
    assert called.name == "mcp__wx__forecast" and not called.is_error
    assert called.result == "Cloudy, 14 C in Oslo"
    assert "mcp__wx__forecast" in fake_llm.requests[0].tool_names
    assert "Cloudy, 14 C in Oslo" in fake_llm.requests[1].tool_results[0]
    assert transcript.final_text == "It is cloudy in Oslo."


async def test_a_redirect_is_not_followed_the_server_does_not_start(tmp_path: Path) -> None:
    """A loopback server could send the client anywhere: a redirect off its origin is a start
    error (the SDK's transport refuses it, whatever the client's own setting)."""
    with recorder() as elsewhere, recorder(307, elsewhere.url) as redirector:
        conf = Confinement(tmp_path, mode=SandboxMode.NONE)
        wx = McpServer("wx", url=redirector.url)
        refused = r"MCP server 'wx': it did not start: Redirect to \S+ not followed"
        with pytest.raises(AgentError, match=refused):
            async with open_servers((wx,), conf, label="c1"):
                pass
    assert redirector.paths  # it was asked,
    assert elsewhere.paths == []  # and where it pointed was not


async def test_the_hosts_proxy_variables_are_not_used_for_a_loopback_server(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with http_mcp_server() as served, recorder() as proxy:
        for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
            monkeypatch.setenv(name, proxy.url.removesuffix("/mcp"))
        for name in ("NO_PROXY", "no_proxy"):
            monkeypatch.delenv(name, raising=False)
        conf = Confinement(tmp_path, mode=SandboxMode.NONE)
        async with open_servers((McpServer("wx", url=served.url),), conf, label="c1") as mcp:
            assert mcp is not None
    assert proxy.paths == []
