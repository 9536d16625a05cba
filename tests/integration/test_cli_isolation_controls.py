"""The controls of `test_cli_isolation.py`: its planting does attach the operator's servers
and hooks when the real CLIs run without the harness's switches, so runs that start none of
them prove the switches work; and the machine-wide managed files each CLI reads whatever it
is told (planted in a copy of /etc inside bubblewrap) reach even the harness's command line,
which is why a machine holding one makes that CLI's runs errors that name it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evolve_action.execute.agent import AgentError
from evolve_action.execute.harness import registry
from evolve_action.execute.harness.claude import ClaudeCode
from evolve_action.execute.harness.contract import Invocation
from evolve_action.execute.harness.copilot import launch as copilot_launch
from evolve_action.execute.harness.install import installed
from evolve_action.execute.harness.opencode import launch as opencode_launch
from evolve_action.execute.harness.run import open_cli_harness
from evolve_action.model.outcomes import ErrorKind, Side
from evolve_action.plan.planning import RunSpec
from tests.fakes.cli_agents import TASK, cli_dir, make_repo, suite_and_case
from tests.fakes.llm_server import FakeLLM, text
from tests.integration.test_cli_isolation import (
    MODELS,
    PLANTED,
    REAL,
    fake,
    plant,
    server,
    workspace_for,
)
from tests.levels import needs_bwrap

__all__ = ["fake"]  # the fixture


def bare(cli: str, binary: str, fake: FakeLLM) -> tuple[list[str], dict[str, str]]:
    """The CLI's headless command line as a user would type it, without the switches the
    harness adds to keep everything but the case off."""
    if cli == "claude":
        argv = [binary, "-p", "--output-format", "stream-json", "--verbose", "--max-turns", "2"]
        env = {"ANTHROPIC_BASE_URL": fake.anthropic_base_url, "ANTHROPIC_API_KEY": "x"}
        return [*argv, "--model", "claude-sonnet-4-6"], {**ClaudeCode.env, **env}
    if cli == "codex":
        provider = (
            f'model_providers.fake={{name="fake", base_url="{fake.openai_base_url}", '
            'env_key="OPENAI_API_KEY", wire_api="responses", request_max_retries=0}'
        )
        argv = [binary, "exec", "--json", "--skip-git-repo-check", "-m", "gpt-5.4"]
        argv += ["--dangerously-bypass-approvals-and-sandbox", "-c", 'model_provider="fake"']
        return [*argv, "-c", provider, "-"], {"OPENAI_API_KEY": "x"}
    if cli == "copilot":
        env = copilot_launch.environment(
            "anthropic", fake.anthropic_base_url, "x", model="claude-sonnet-4-6"
        )
        return [binary, "--output-format", "json", "--allow-all", "--trust-folder"], env
    argv = opencode_launch.command(binary, provider="anthropic", model="claude-sonnet-4-6")
    env = opencode_launch.environment("anthropic", fake.anthropic_base_url, "x")
    del env["OPENCODE_DISABLE_PROJECT_CONFIG"]
    return argv, env


# What the planted files start when nothing keeps them off.
PLANTED_START = {
    "claude": ["hook", "planted_local", "planted_project", "planted_user"],
    "codex": ["planted_codex_project", "planted_codex_user"],
    "copilot": ["hook", "planted_copilot_user", "planted_project"],
    "opencode": ["planted_opencode_dir", "planted_opencode_project", "planted_opencode_user"],
}


@pytest.mark.parametrize("cli", sorted(PLANTED_START))
def test_the_planted_files_do_start_their_servers_when_nothing_keeps_them_off(
    cli: str, fake: FakeLLM, tmp_path: Path
) -> None:
    """The control: the same planting, run by hand, attaches the operator's servers; so
    the runs above that start none of them prove the harness keeps them off."""
    binary = installed(registry.HARNESSES[cli].cli, cli_dir())
    if binary is None:
        pytest.skip(f"{cli} is not installed in {cli_dir()}: `./dev test` installs it")
    fake.script = lambda request: text("All done.")
    home = tmp_path / "home"
    workspace = workspace_for(tmp_path, registry.HARNESSES[cli].skills_dir)
    plant(home, workspace, sys.executable, str(workspace))
    argv, env = bare(cli, str(binary.path), fake)
    path = ":".join([*(str(d) for d in binary.path_dirs), "/usr/local/bin:/usr/bin:/bin"])
    done = subprocess.run(
        argv,
        input="Say hello.",
        env={**env, "HOME": str(home), "PATH": path, "TMPDIR": str(tmp_path)},
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    started = sorted(p.name.removeprefix("marker-") for p in (workspace / PLANTED).glob("marker-*"))
    assert started == PLANTED_START[cli]


def managed(cli: str, python: str, seen: str) -> dict[str, str]:
    """Machine-wide files each CLI reads whatever it is told, by path under /etc."""

    def argv(tag: str) -> list[str]:
        return [*server(python, seen, tag), "lookup", "planted"]

    if cli == "claude":
        hook = [{"hooks": [{"type": "command", "command": f"touch {seen}/{PLANTED}/marker-hook"}]}]
        return {"claude-code/managed-settings.json": json.dumps({"hooks": {"SessionStart": hook}})}
    if cli == "codex":
        return {
            f"codex/{name}.toml": f"[mcp_servers.{tag}]\ncommand = {json.dumps(argv(tag)[0])}\n"
            f"args = {json.dumps(argv(tag)[1:])}\n"
            for name, tag in (("config", "planted_system"), ("managed_config", "planted_managed"))
        }
    server_config = {"type": "local", "command": argv("planted_managed")}
    return {"opencode/opencode.json": json.dumps({"mcp": {"planted_managed": server_config}})}


@needs_bwrap
@pytest.mark.parametrize("cli", ["claude", "codex", "opencode"])
def test_the_machine_wide_files_a_cli_cannot_be_told_to_ignore_are_the_ones_it_refuses(
    cli: str, fake: FakeLLM, tmp_path: Path
) -> None:
    """With the harness's own command line, a managed file under /etc (a copy of /etc with
    it, inside bubblewrap) still starts its server or hook: that is why `machine_config`
    names it and a machine holding it gets errors instead of runs."""
    harness = registry.HARNESSES[cli]
    binary = installed(harness.cli, cli_dir())
    if binary is None:
        pytest.skip(f"{cli} is not installed in {cli_dir()}: `./dev test` installs it")
    fake.script = lambda request: text("All done.")
    workspace = workspace_for(tmp_path, harness.skills_dir)
    etc = tmp_path / "etc"
    for relative, content in managed(cli, sys.executable, str(workspace)).items():
        (etc / relative).parent.mkdir(parents=True, exist_ok=True)
        (etc / relative).write_text(content)
        assert f"/etc/{relative}" in harness.machine_config
    run = invocation_for(cli, str(binary.path))
    base = fake.url if run.provider == "anthropic" else fake.openai_base_url
    command = harness.command(run)
    argv = [a.replace(run.endpoint, base) for a in command.argv]
    env = {k: v.replace(run.endpoint, base) for k, v in {**harness.env, **command.env}.items()}
    home = tmp_path / "home"
    harness.prepare_home(home, run)
    masks = ["bwrap", "--dev-bind", "/", "/", "--tmpfs", "/etc"]
    for entry in sorted(os.listdir("/etc")):
        masks += ["--ro-bind-try", f"/etc/{entry}", f"/etc/{entry}"]
    for top in sorted(etc.iterdir()):
        masks += ["--ro-bind", str(top), f"/etc/{top.name}"]
    path = ":".join([*(str(d) for d in binary.path_dirs), "/usr/local/bin:/usr/bin:/bin"])
    subprocess.run(
        [*masks, "--chdir", str(workspace), "--", *argv],
        input=command.stdin,
        env={**env, "HOME": str(home), "PATH": path, "TMPDIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    started = sorted(p.name for p in (workspace / PLANTED).glob("marker-*"))
    assert started, f"{cli} read none of {sorted(managed(cli, '', ''))}"


def invocation_for(cli: str, binary: str) -> Invocation:
    provider = "openai" if cli == "codex" else "anthropic"
    model = MODELS[cli].split("/", 1)[1]
    return Invocation(
        binary=binary, provider=provider, model=model, prompt="Say hello.", max_turns=2,
        trigger=False, sandboxed=True, base_url="http://127.0.0.1:1", token="x",
    )  # fmt: skip


async def test_managed_configuration_of_the_machine_makes_the_cli_an_error_that_names_it(
    fake: FakeLLM, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The file stands for `/etc/claude-code/managed-mcp.json`, which this test cannot write.
    managed = tmp_path / "etc/claude-code/managed-mcp.json"
    managed.parent.mkdir(parents=True)
    managed.write_text('{"mcpServers": {}}')
    monkeypatch.setattr(ClaudeCode, "machine_config", (str(managed),))
    suite, case = suite_and_case(make_repo(tmp_path / "repo", {"evals.json": TASK}))
    model = MODELS["claude"]
    environ = {"ANTHROPIC_API_KEY": REAL["anthropic"], "EVOLVE_CLI_DIR": str(cli_dir())}
    environ |= {"ANTHROPIC_BASE_URL": fake.anthropic_base_url, "PATH": os.environ["PATH"]}
    async with open_cli_harness(
        [model], keys={}, environ=environ, cache_dir=None, limiters={}
    ) as harness:
        with pytest.raises(AgentError) as raised:
            spec = RunSpec(suite, case, model, Side.HEAD, 1)
            await harness.run(spec, tmp_path / "ws", max_turns=2, timeout_s=60, network=False)
    assert raised.value.kind is ErrorKind.HARNESS
    assert str(managed) in raised.value.message and "harness: sdk" in raised.value.message
    assert not fake.requests  # the CLI never started
