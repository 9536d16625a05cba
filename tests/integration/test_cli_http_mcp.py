"""A real CLI run (Claude Code, Codex) calling a tool of an HTTP MCP server the case declares
by its loopback URL, at each confinement level this machine gives.

At the user level the CLI shares the host's loopback, reaches the server and gets its answer.
Under bubblewrap the run has a network namespace of its own, whose loopback is not the host's:
the server is not there, the CLI starts without it, and the model's call is refused ("No such
tool available"; Codex: "unsupported call"). That level is marked as an expected failure
(strict: it turns red once a bridge to the host's loopback makes it pass).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.llm_script import Call, Reply
from tests.fakes.llm_server import Answer, FakeLLM, Request, call, text
from tests.fakes.mcp_http import http_mcp_server
from tests.integration.test_cli_isolation import run_planted
from tests.levels import BWRAP, USER, needs_bwrap, needs_user

UNBRIDGED = pytest.mark.xfail(
    strict=True,
    reason="under bubblewrap the run's loopback is its own: an HTTP MCP server on the host's "
    "is not reachable, and nothing bridges it yet",
)
LEVELS = [pytest.param(BWRAP, marks=[needs_bwrap, UNBRIDGED]), pytest.param(USER, marks=needs_user)]
CALL = {
    "claude": call("mcp__declared__forecast", city="Oslo"),
    "codex": Reply(calls=(Call("forecast", {"city": "Oslo"}, namespace="mcp__declared"),)),
}


@pytest.fixture(params=LEVELS)
def level(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    with FakeLLM(api_key=None) as server:
        yield server
    assert not server.script_errors, server.script_errors


@pytest.mark.parametrize("cli", sorted(CALL))
async def test_a_cli_calls_a_tool_of_a_loopback_http_server(
    cli: str, level: str, fake: FakeLLM, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def script(request: Request) -> Answer:
        return CALL[cli] if request.turn == 0 else text("All done.")

    fake.script = script
    with http_mcp_server() as served:
        transcript, _ = await run_planted(cli, level, fake, monkeypatch, tmp_path, served.url)

    assert served.calls == [{"city": "Oslo"}]
    (called,) = transcript.tool_calls
    assert "Cloudy, 14 C in Oslo" in called.result and not called.is_error
    assert "Cloudy, 14 C in Oslo" in fake.requests[1].raw.decode("utf-8", "replace")
    assert transcript.final_text == "All done."
