"""Gemini CLI as a harness: `gemini_launch`'s facts and `gemini_events`' reader on the
`Harness` contract.

It runs Gemini models, its own vendor's, through the credential proxy's Gemini route
(`GOOGLE_GEMINI_BASE_URL` set to `<proxy>/gemini`, the session's dummy key in
`GEMINI_API_KEY`): the native generateContent API, which the proxy forwards with the real
key in `x-goog-api-key`. Unlike the other CLIs it is a Node.js script, so `node` (20 or
newer) must be on the job's PATH; the installed "binary" is its entry script, started as
`node <script>`.

Its home needs `~/.gemini/settings.json` before it starts (the key as its way to sign in;
usage statistics, telemetry and update checks off), and the workspace is trusted through
`GEMINI_CLI_TRUST_WORKSPACE`. It has no turn cap of its own here (the proxy refuses the call
past the cap) and no option that adds system text without replacing its own, so a case's
`system` is put before the prompt, said as such (as for Copilot CLI). A trigger case offers
it all its tools: restricting them is not done yet.

Its MCP servers are the case's (`Invocation.mcp`), written into the fresh home's settings with
an allow-list of exactly their names, which Gemini intersects with every other scope's: a
server the workspace's settings add is blocked. Machine-wide settings cannot be turned off,
so where they exist the run refuses to start (`machine_config`).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from types import MappingProxyType

from evolve_action.execute.harness import mcp_servers
from evolve_action.execute.harness.contract import CliSpec, Command, Harness, Invocation
from evolve_action.execute.harness.copilot import with_system
from evolve_action.execute.harness.events import CliOutcome
from evolve_action.execute.harness.gemini import events as gemini_events
from evolve_action.execute.harness.gemini import launch as gemini_launch

NODE = "node"


class Gemini(Harness):
    name = gemini_launch.NAME
    cli = CliSpec(gemini_launch.NAME, gemini_launch.PACKAGE, gemini_launch.entry)
    providers = gemini_launch.PROVIDERS
    skills_dir = gemini_launch.SKILLS_DIR
    home_dirs = (".gemini",)
    env = MappingProxyType(dict(gemini_launch.ENV))
    caps_turns = False
    needs_on_path = (NODE,)
    machine_config = gemini_launch.MACHINE_CONFIG

    def prepare_home(self, home: Path, run: Invocation) -> None:
        super().prepare_home(home, run)
        for name, text in gemini_launch.home_files(mcp_servers.gemini(run.mcp)).items():
            (home / name).parent.mkdir(parents=True, exist_ok=True)
            (home / name).write_text(text, encoding="utf-8")

    def command(self, run: Invocation) -> Command:
        # The job's `node` (checked when the harness opened), else the relay's PATH finds it.
        argv = gemini_launch.command(run.helpers.get(NODE, NODE), run.binary, model=run.model)
        env = gemini_launch.environment(run.endpoint, run.token)
        return Command(argv, env, stdin=with_system(run))

    def parse(self, stdout: str, *, exit_code: int, stderr: str = "") -> CliOutcome:
        return gemini_events.parse(stdout, exit_code=exit_code, stderr=stderr)

    def unusable(self, found: dict[str, str]) -> str | None:
        """Why the `node` on the job's PATH cannot run it (too old, or does not start)."""
        node = found.get(NODE)
        if node is None:
            return None
        try:
            done = subprocess.run(
                [node, "--version"], capture_output=True, text=True, timeout=30, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"gemini needs Node.js, and {node} --version failed: {exc}"
        if not gemini_launch.node_version_ok(done.stdout):
            return (
                f"gemini needs Node.js {gemini_launch.MIN_NODE} or newer, and {node} is "
                f"{done.stdout.strip() or 'of an unknown version'}; install a newer Node.js"
            )
        return None
