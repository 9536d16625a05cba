"""A real Codex run calling a tool of the case's declared MCP server, at each confinement level
this machine gives: the pinned CLI against the fake LLM, with everything of
`test_cli_isolation.py` planted around it.

Codex offers each MCP server to the model as a Responses API `namespace` tool (`mcp__<server>`,
its tools inside), so the model's `function_call` names the bare tool and carries the
namespace. A call under the joined name alone (`mcp__declared__lookup`) is answered
"unsupported call" by Codex itself, which is why the scripted call here says its namespace.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evolve_action.model.trajectory import trajectory_of
from tests.fakes.llm_script import Call, Reply
from tests.fakes.llm_server import Answer, FakeLLM, Request, keyless, text
from tests.integration.test_cli_isolation import ANSWER, run_planted

NAMESPACE = "mcp__declared"  # how Codex names the server `declared` to the model


fake = pytest.fixture(keyless, name="fake")  # the real CLIs send no real key


def offered(request: Request) -> dict[str, list[str]]:
    """The namespace tools of a Responses request, with the functions each holds."""
    tools = json.loads(request.raw).get("tools", [])
    return {
        t["name"]: [f["name"] for f in t.get("tools", [])]
        for t in tools
        if t.get("type") == "namespace"
    }


async def test_codex_calls_the_declared_servers_tool_and_its_answer_comes_back(
    level: str, fake: FakeLLM, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def script(request: Request) -> Answer:
        if request.turn == 0:
            return Reply(calls=(Call("lookup", {"query": "ada"}, namespace=NAMESPACE),))
        return text("All done.")

    fake.script = script
    transcript, started = await run_planted("codex", level, fake, monkeypatch, tmp_path)

    assert started == ["marker-declared"]
    assert offered(fake.requests[0])[NAMESPACE] == ["lookup"]
    (called,) = [c for c in transcript.tool_calls if c.server == "declared"]
    assert called.name == "lookup" and not called.is_error
    assert ANSWER in called.result and '\\"query\\": \\"ada\\"' in called.result
    back = fake.requests[1].raw.decode("utf-8", "replace")
    assert '"type":"function_call_output"' in back.replace(" ", "") and ANSWER in back
    assert transcript.final_text == "All done."
    # The call is the server's in the trajectory every tool assertion reads.
    (step,) = [s for s in trajectory_of(transcript, ("declared",)).steps if s.server]
    assert "mcp__declared__lookup" in step.forms and step.label == "declared/lookup"
