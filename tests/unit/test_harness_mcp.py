"""Each agent CLI is handed exactly `Invocation.mcp` in its own configuration shape, with
every other MCP source switched off; an empty `Invocation.mcp` is no server at all; the
with-skill and no-skill arms of a case get the same invocation; a machine whose managed
configuration a CLI would read whatever it is told makes that CLI unavailable."""

from __future__ import annotations

import dataclasses
import json
import tomllib
from pathlib import Path

import pytest

from evolve_action.execute.harness import mcp_servers, registry
from evolve_action.execute.harness.claude import ClaudeCode
from evolve_action.execute.harness.codex import Codex
from evolve_action.execute.harness.contract import Command, Invocation
from evolve_action.execute.harness.copilot import Copilot
from evolve_action.execute.harness.install import CliBinary
from evolve_action.execute.harness.opencode import OpenCode
from evolve_action.execute.harness.proxy import CredentialProxy
from evolve_action.execute.harness.run import CliHarness, machine_config
from evolve_action.model.mcp import McpLaunch
from evolve_action.model.outcomes import Side
from evolve_action.plan.planning import RunSpec
from tests.fakes.cli_agents import TASK, make_repo, suite_and_case

STDIO = McpLaunch("docs", ("python3", "-m", "server", "--flag"), (("MODE", "test"),))
HTTP = McpLaunch("remote", url="http://127.0.0.1:9000/mcp")


def invocation(*launches: McpLaunch, trigger: bool = False) -> Invocation:
    return Invocation(
        binary="/bin/cli", provider="anthropic", model="m", prompt="p", max_turns=3,
        trigger=trigger, sandboxed=True, base_url="http://127.0.0.1:1", token="t",
        mcp=launches,
    )  # fmt: skip


def after(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


def test_claude_gets_only_the_declared_servers_and_no_user_or_local_settings() -> None:
    argv = ClaudeCode().command(invocation(STDIO, HTTP)).argv
    assert "--strict-mcp-config" in argv
    servers = json.loads(after(argv, "--mcp-config"))["mcpServers"]
    assert servers == {
        "docs": {"type": "stdio", "command": "python3", "args": ["-m", "server", "--flag"],
                 "env": {"MODE": "test"}},
        "remote": {"type": "http", "url": "http://127.0.0.1:9000/mcp"},
    }  # fmt: skip
    assert after(argv, "--setting-sources") == "project"
    assert after(argv, "--allowedTools").split()[-2:] == ["mcp__docs", "mcp__remote"]
    empty = ClaudeCode().command(invocation()).argv
    assert json.loads(after(empty, "--mcp-config")) == {"mcpServers": {}}
    assert "--strict-mcp-config" in empty and "mcp__" not in after(empty, "--allowedTools")


def test_codex_reads_no_user_config_and_gets_only_the_declared_servers() -> None:
    argv = Codex().command(invocation(STDIO, HTTP)).argv
    assert "--ignore-user-config" in argv and "--ignore-rules" in argv
    values = [argv[i + 1] for i, a in enumerate(argv) if a == "-c"]
    mcp = [v for v in values if v.startswith("mcp_servers=")]
    assert len(mcp) == 1
    parsed = tomllib.loads(mcp[0])["mcp_servers"]
    assert parsed == {
        "docs": {"command": "python3", "args": ["-m", "server", "--flag"],
                 "env": {"MODE": "test"}},
        "remote": {"url": "http://127.0.0.1:9000/mcp"},
    }  # fmt: skip
    empty = Codex().command(invocation()).argv
    assert "mcp_servers={}" in empty


def test_copilot_keeps_its_built_in_servers_off_and_adds_only_the_declared_ones() -> None:
    argv = Copilot().command(invocation(STDIO)).argv
    assert "--disable-builtin-mcps" in argv and "--trust-folder" not in argv
    servers = json.loads(after(argv, "--additional-mcp-config"))["mcpServers"]
    assert servers["docs"]["command"] == "python3" and servers["docs"]["tools"] == ["*"]
    empty = Copilot().command(invocation()).argv
    assert "--additional-mcp-config" not in empty and "--disable-builtin-mcps" in empty


def test_opencode_reads_no_project_config_and_gets_only_the_declared_servers() -> None:
    command = OpenCode().command(invocation(STDIO, HTTP))
    assert OpenCode.env["OPENCODE_DISABLE_PROJECT_CONFIG"] == "1"
    config = json.loads(command.env["OPENCODE_CONFIG_CONTENT"])
    assert config["mcp"] == {
        "docs": {"type": "local", "command": ["python3", "-m", "server", "--flag"],
                 "environment": {"MODE": "test"}, "enabled": True},
        "remote": {"type": "remote", "url": "http://127.0.0.1:9000/mcp", "enabled": True},
    }  # fmt: skip
    assert OpenCode.skills_dir in config["skills"]["paths"]
    empty = json.loads(OpenCode().command(invocation()).env["OPENCODE_CONFIG_CONTENT"])
    assert empty["mcp"] == {}


@pytest.mark.parametrize(
    "launches",
    [
        (STDIO, dataclasses.replace(HTTP, name="docs")),
        (McpLaunch("neither"),),
        (McpLaunch("both", ("x",), url="http://127.0.0.1:1"),),
    ],
)
def test_a_server_list_no_cli_could_take_is_refused(launches: tuple[McpLaunch, ...]) -> None:
    with pytest.raises(ValueError, match="MCP server"):
        mcp_servers.claude(launches)


def test_machine_wide_managed_config_makes_the_cli_unavailable(tmp_path: Path) -> None:
    assert machine_config(sorted(registry.HARNESSES), root=tmp_path) == {}
    managed = tmp_path / "etc/claude-code/managed-mcp.json"
    managed.parent.mkdir(parents=True)
    managed.write_text('{"mcpServers": {}}')
    (tmp_path / "etc/codex").mkdir(parents=True)
    (tmp_path / "etc/codex/config.toml").write_text("")
    found = machine_config(sorted(registry.HARNESSES), root=tmp_path)
    assert sorted(found) == ["claude", "codex"]
    assert "/etc/claude-code/managed-mcp.json" in found["claude"]
    assert "harness: sdk" in found["codex"]


class _Recorded(Exception):
    pass


class Recording(ClaudeCode):
    """Claude Code's harness that records the invocation and stops before any process."""

    def __init__(self) -> None:
        self.seen: list[Invocation] = []

    def command(self, run: Invocation) -> Command:
        self.seen.append(run)
        raise _Recorded


async def test_both_arms_of_a_case_get_the_same_invocation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recording = Recording()
    monkeypatch.setitem(registry.HARNESSES, "claude", recording)
    suite, case = suite_and_case(make_repo(tmp_path / "repo", {"evals.json": TASK}))
    model = "anthropic/claude-sonnet-4-6"
    with CredentialProxy({}) as proxy:
        harness = CliHarness(proxy, {"claude": CliBinary("claude", Path("/bin/true"), "1", "PATH")})
        for side in (Side.HEAD, Side.NO_SKILL):
            workspace = tmp_path / f"ws-{side}"
            (workspace / ".tmp").mkdir(parents=True)
            with pytest.raises(_Recorded):
                spec = RunSpec(suite, case, model, side, 1)
                await harness.run(spec, workspace, max_turns=3, timeout_s=10, network=False)
    head, no_skill = recording.seen
    assert head.mcp == no_skill.mcp
    # Only the proxy session's dummy key differs between the two arms.
    assert dataclasses.replace(head, token="") == dataclasses.replace(no_skill, token="")
