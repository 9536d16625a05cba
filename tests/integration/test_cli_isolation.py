"""Nothing of the machine's or the CLI's home attaches to a `harness: cli` run, and each CLI
gets exactly the case's MCP servers: the real pinned CLIs, run by `CliHarness.run` (fresh
HOME, credential proxy, confinement at each level this machine gives) against the fake LLM.

Planted before each run, each a stdio MCP server (`tests/fakes/mcp_stdio.py`) that writes a
marker file the moment it starts, or a hook that writes one: in our own HOME, where every
CLI keeps its user configuration (`~/.claude.json` with a user and a per-project server,
`~/.claude/settings.json` hooks, `~/.codex/config.toml` trusting the workspace,
`~/.copilot/mcp-config.json`, `~/.config/opencode/opencode.json`), with the variables that
move those homes pointing there too; and in the workspace, the project's own files
(`.mcp.json`, `.claude/settings.local.json`, `.codex/config.toml`, `.github/mcp.json`,
`opencode.json`, `.opencode/opencode.json`, `.gemini/settings.json`). One server is declared
for the case (`Invocation.mcp`): it must start, and no planted one may start or be named to
the model; a call of its tool must reach it and bring its answer back.

The controls, that this planting would be seen, are in `test_cli_isolation_controls.py`.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from evolve_action.execute.harness import registry
from evolve_action.execute.harness.contract import Command, Harness, Invocation
from evolve_action.execute.harness.run import open_cli_harness
from evolve_action.execute.sandbox.python import python_for_commands
from evolve_action.model.mcp import McpLaunch
from evolve_action.model.outcomes import Side, Transcript
from evolve_action.plan.planning import RunSpec
from tests.conftest import reachable_place
from tests.fakes import mcp_stdio
from tests.fakes.cli_agents import TASK, harness_environ, make_repo, suite_and_case
from tests.fakes.llm_server import Answer, FakeLLM, Request, call, keyless, text
from tests.fakes.scripts import tool_names
from tests.levels import BWRAP, at_level

MODELS = {
    "claude": "anthropic/claude-sonnet-4-6",
    "codex": "openai/gpt-5.4",
    "copilot": "anthropic/claude-sonnet-4-6",
    "opencode": "anthropic/claude-sonnet-4-6",
    "gemini": "gemini/gemini-2.5-flash",
}
REAL = {
    "anthropic": "sk-ant-real-0123456789abcdef",
    "openai": "sk-openai-real-fedcba9876543210",
    "gemini": "AIza-real-isolation-5d0b2e",
}
SKILL = "---\nname: greeter\ndescription: Greets people.\n---\nWrite `Hello, Ada!`.\n"
PLANTED = ".planted"  # in the workspace: the server's script and every marker
ANSWER = "the-lookup-answer-7c41"


def server(python: str, seen: str, tag: str) -> list[str]:
    """The argv of a server that, once started, writes `.planted/marker-<tag>`."""
    return [python, f"{seen}/{PLANTED}/mcp_stdio.py", f"{seen}/{PLANTED}/marker-{tag}"]


def plant(home: Path, workspace: Path, python: str, seen: str) -> None:
    """Every CLI's user and project MCP configuration, each naming a server of its own."""

    def stdio(tag: str) -> dict[str, object]:
        argv = [*server(python, seen, tag), "lookup", "planted"]
        return {"type": "stdio", "command": argv[0], "args": argv[1:]}

    def toml(tag: str) -> str:
        argv = [*server(python, seen, tag), "lookup", "planted"]
        command, args = json.dumps(argv[0]), json.dumps(argv[1:])
        return f"[mcp_servers.{tag}]\ncommand = {command}\nargs = {args}\n"

    def opencode(tag: str) -> dict[str, object]:
        return {"type": "local", "command": [*server(python, seen, tag), "lookup", "planted"]}

    def gemini(tag: str) -> dict[str, object]:
        argv = [*server(python, seen, tag), "lookup", "planted"]
        return {"command": argv[0], "args": argv[1:]}

    hook = f"touch {seen}/{PLANTED}/marker-hook"
    hooks = {e: [{"hooks": [{"type": "command", "command": hook}]}] for e in ("SessionStart",)}
    hooks["UserPromptSubmit"] = hooks["SessionStart"]
    files: dict[Path, str] = {
        home / ".claude.json": json.dumps(
            {
                "mcpServers": {"planted_user": stdio("planted_user")},
                "projects": {
                    seen: {
                        "mcpServers": {"planted_local": stdio("planted_local")},
                        "hasTrustDialogAccepted": True,
                    }
                },
            }
        ),
        home / ".claude/settings.json": json.dumps(
            {"hooks": hooks, "enableAllProjectMcpServers": True}
        ),
        home / ".codex/config.toml": toml("planted_codex_user")
        + f'\n[projects.{json.dumps(seen)}]\ntrust_level = "trusted"\n',
        home / ".copilot/mcp-config.json": json.dumps(
            {
                "mcpServers": {
                    "planted_copilot_user": {
                        **stdio("planted_copilot_user"),
                        "type": "local",
                        "tools": ["*"],
                    }
                }
            }
        ),
        home / ".config/opencode/opencode.json": json.dumps(
            {"mcp": {"planted_opencode_user": opencode("planted_opencode_user")}}
        ),
        workspace / ".mcp.json": json.dumps(
            {"mcpServers": {"planted_project": stdio("planted_project")}}
        ),
        workspace / ".claude/settings.local.json": json.dumps(
            {"hooks": hooks, "enableAllProjectMcpServers": True}
        ),
        workspace / ".claude/settings.json": json.dumps({"enableAllProjectMcpServers": True}),
        workspace / ".codex/config.toml": toml("planted_codex_project"),
        workspace / ".github/mcp.json": json.dumps(
            {"mcpServers": {"planted_github": {**stdio("planted_github"), "tools": ["*"]}}}
        ),
        workspace / "opencode.json": json.dumps(
            {"mcp": {"planted_opencode_project": opencode("planted_opencode_project")}}
        ),
        workspace / ".opencode/opencode.json": json.dumps(
            {"mcp": {"planted_opencode_dir": opencode("planted_opencode_dir")}}
        ),
        home / ".gemini/settings.json": json.dumps(
            {"mcpServers": {"planted_gemini_user": gemini("planted_gemini_user")}}
        ),
        workspace / ".gemini/settings.json": json.dumps(
            {"mcpServers": {"planted_gemini_project": gemini("planted_gemini_project")}}
        ),
    }
    for path, content in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)


class Declaring:
    """The registered harness with the case's one server in its `Invocation.mcp`, whatever
    filled it before (the executor resolves a case's declared servers into launches)."""

    def __init__(self, inner: Harness, launch: McpLaunch) -> None:
        self._inner, self._launch = inner, launch

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)

    def prepare_home(self, home: Path, run: Invocation) -> None:
        self._inner.prepare_home(home, dataclasses.replace(run, mcp=(self._launch,)))

    def command(self, run: Invocation) -> Command:
        return self._inner.command(dataclasses.replace(run, mcp=(self._launch,)))


fake = pytest.fixture(keyless, name="fake")  # the real CLIs send no real key


def workspace_for(root: Path, skills_dir: str) -> Path:
    workspace = root / "workspace"
    skill = workspace / skills_dir / "greeter" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SKILL)
    (workspace / PLANTED).mkdir()
    shutil.copy(mcp_stdio.__file__, workspace / PLANTED / "mcp_stdio.py")
    return workspace


def open_up(root: Path) -> None:
    """The sandbox user of the user level works in the workspace and writes the markers."""
    for path in [root, *root.rglob("*")]:
        path.chmod(0o777 if path.is_dir() else 0o666)


async def run_planted(
    cli: str,
    level: str,
    fake: FakeLLM,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    url: str = "",
) -> tuple[Transcript, list[str]]:
    """One run of `cli` with everything planted and one server declared (our stdio server,
    or the HTTP one at `url`): its transcript, and the markers of what started."""
    model = MODELS[cli]
    provider = model.split("/", 1)[0]
    home = tmp_path / "machine-home"
    for name, value in {
        "HOME": home, "CLAUDE_CONFIG_DIR": home / ".claude", "CODEX_HOME": home / ".codex",
        "COPILOT_HOME": home / ".copilot", "XDG_CONFIG_HOME": home / ".config",
        "OPENCODE_CONFIG_DIR": home / ".config/opencode",
    }.items():  # fmt: skip
        monkeypatch.setenv(name, str(value))
    environ = harness_environ(fake, REAL)
    suite, case = suite_and_case(make_repo(tmp_path / "repo", {"evals.json": TASK}))
    harness_of = registry.HARNESSES[cli]
    with reachable_place("iso-") as root, at_level(level):
        python = python_for_commands()
        if python is None:
            pytest.skip("no Python within the confinement's reach to start the relay")
        workspace = workspace_for(root, harness_of.skills_dir)
        seen = "/workspace" if level == BWRAP else str(workspace)
        plant(home, workspace, python, seen)
        open_up(root)
        declared = McpLaunch("declared", (*server(python, seen, "declared"), "lookup", ANSWER))
        declared = McpLaunch("declared", url=url) if url else declared
        declaring = Declaring(harness_of, declared)
        monkeypatch.setitem(registry.HARNESSES, cli, declaring)  # type: ignore[arg-type]
        async with open_cli_harness(
            [model], keys={}, environ=environ, cache_dir=None, limiters={}, agent=cli
        ) as harness:
            if cli in harness.unavailable:
                pytest.skip(harness.unavailable[cli])
            spec = RunSpec(suite, case, model, Side.HEAD, 1)
            transcript = await harness.run(
                spec, workspace, max_turns=4, timeout_s=300, network=False
            )
        started = sorted(p.name for p in (workspace / PLANTED).glob("marker-*"))
    assert provider in REAL
    return transcript, started


def sent(fake: FakeLLM) -> str:
    return "\n".join(r.raw.decode("utf-8", "replace") for r in fake.requests)


@pytest.mark.parametrize("cli", sorted(MODELS))
async def test_only_the_declared_server_starts_and_nothing_planted_reaches_the_run(
    cli: str, level: str, fake: FakeLLM, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake.script = lambda request: text("All done.")
    transcript, started = await run_planted(cli, level, fake, monkeypatch, tmp_path)

    assert transcript.final_text == "All done.", transcript.notes
    # The declared server started, so a planted one that was read would have started too.
    assert started == ["marker-declared"]
    everything = sent(fake)
    assert "declared" in everything  # its tool was offered to the model
    assert "planted_" not in everything  # no planted server was even named


# How each CLI names the declared server's tool to the model.
MCP_TOOL = {
    "claude": "mcp__declared__lookup",
    "copilot": "declared-lookup",
    "opencode": "declared_lookup",
}


@pytest.mark.parametrize("cli", sorted(MCP_TOOL))
async def test_a_call_of_the_declared_tool_reaches_the_server_and_its_answer_comes_back(
    cli: str, level: str, fake: FakeLLM, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    tool = MCP_TOOL[cli]

    def script(request: Request) -> Answer:
        return call(tool, query="ada") if request.turn == 0 else text("All done.")

    fake.script = script
    transcript, started = await run_planted(cli, level, fake, monkeypatch, tmp_path)

    assert started == ["marker-declared"]
    assert tool in tool_names(fake.requests[0]) or cli == "claude"  # Claude defers them
    calls = [c for c in transcript.tool_calls if c.name == tool]
    assert calls, [c.name for c in transcript.tool_calls]
    assert ANSWER in calls[0].result and '"query": "ada"' in calls[0].result
    assert not calls[0].is_error
    assert ANSWER in fake.requests[1].raw.decode("utf-8", "replace")  # back to the model
    assert transcript.final_text == "All done."
