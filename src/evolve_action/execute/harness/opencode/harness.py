"""OpenCode as a harness: `opencode_launch`'s facts and `opencode_events`' reader on the
`Harness` contract.

It runs Anthropic or OpenAI models through its provider configuration
(`OPENCODE_CONFIG_CONTENT`, given to the relay like every CLI's key), pointed at the
credential proxy's route for the model's provider. Its start-up question to the npm
registry goes to the proxy's own port, which answers it with an error at once. It is chosen
with the `agent` input. Its skill tool runs `rg` (ripgrep), which must be on the job's
PATH: without it the skill cannot load, so the runs are errors that say what to install.

It has no turn cap of its own (the proxy refuses the call past the cap) and no option for
extra system text: a case's `system` is put before the prompt, said as such.
"""

from __future__ import annotations

from types import MappingProxyType

from evolve_action.execute.harness import mcp_servers
from evolve_action.execute.harness.contract import CliSpec, Command, Harness, Invocation
from evolve_action.execute.harness.copilot import with_system
from evolve_action.execute.harness.events import CliOutcome
from evolve_action.execute.harness.opencode import events as opencode_events
from evolve_action.execute.harness.opencode import launch as opencode_launch


class OpenCode(Harness):
    name = opencode_launch.NAME
    cli = CliSpec(opencode_launch.NAME, opencode_launch.PACKAGE, opencode_launch.native)
    providers = opencode_launch.PROVIDERS
    skills_dir = opencode_launch.SKILLS_DIR
    home_dirs = (".local/share/opencode", ".local/state/opencode", ".config/opencode")
    env = MappingProxyType(dict(opencode_launch.ENV))
    caps_turns = False
    needs_on_path = opencode_launch.NEEDS_ON_PATH
    machine_config = opencode_launch.MACHINE_CONFIG

    def command(self, run: Invocation) -> Command:
        argv = opencode_launch.command(run.binary, provider=run.provider, model=run.model)
        env = opencode_launch.environment(
            run.provider,
            run.endpoint,
            run.token,
            npm_registry=f"{run.base_url}/npm/",
            mcp=mcp_servers.opencode(run.mcp),
        )
        return Command(argv, env, stdin=with_system(run))

    def parse(self, stdout: str, *, exit_code: int, stderr: str = "") -> CliOutcome:
        return opencode_events.parse(stdout, exit_code=exit_code, stderr=stderr)
