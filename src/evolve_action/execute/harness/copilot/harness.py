"""GitHub Copilot CLI as a harness: `copilot_launch`'s facts and `copilot_events`' reader on
the `Harness` contract.

It runs Anthropic or OpenAI models through its own-provider variables
(`COPILOT_PROVIDER_*`), pointed at the credential proxy's route for the model's provider:
the Anthropic origin (it calls `<base>/v1/messages`) or the OpenAI base (the proxy's
`/openai` is the upstream's `/v1`; it calls `<base>/chat/completions`). It is chosen with
the `agent` input; by default Anthropic models run on Claude Code and OpenAI models on
Codex, their vendors' own CLIs.

It has no turn cap of its own (the proxy refuses the call past the cap), and no option for
extra system text: a case's `system` is put before the prompt, said as such. A trigger case
offers only its skill tool and its file reader (`--available-tools`), as Claude Code's
trigger runs offer `Skill` and `Read`. Its runtime is unpacked into the run's fresh home on
first start (`~/.cache/copilot`, about 235 MB): each run pays that, and the workspace's
removal deletes it.
"""

from __future__ import annotations

from types import MappingProxyType

from evolve_action.execute.harness import mcp_servers
from evolve_action.execute.harness.contract import CliSpec, Command, Harness, Invocation
from evolve_action.execute.harness.copilot import events as copilot_events
from evolve_action.execute.harness.copilot import launch as copilot_launch
from evolve_action.execute.harness.events import CliOutcome

# A trigger case's tools: load the skill, or read a file (Claude Code's `Skill` and `Read`).
TRIGGER_TOOLS = (copilot_launch.SKILL_TOOL, "view")


def with_system(run: Invocation) -> str:
    """The prompt, with the case's system text before it when the CLI takes none apart."""
    if not run.system:
        return run.prompt
    return f"System instructions for this task:\n{run.system}\n\nTask:\n{run.prompt}"


class Copilot(Harness):
    name = copilot_launch.NAME
    cli = CliSpec(copilot_launch.NAME, copilot_launch.PACKAGE, copilot_launch.native)
    providers = copilot_launch.PROVIDERS
    skills_dir = copilot_launch.SKILLS_DIR
    home_dirs = (".copilot", ".cache")
    env = MappingProxyType(dict(copilot_launch.ENV))
    caps_turns = False

    def command(self, run: Invocation) -> Command:
        env = copilot_launch.endpoint(
            run.provider, run.endpoint, run.token, model=run.model, github=f"{run.base_url}/github"
        )
        argv = copilot_launch.command(run.binary)
        if run.mcp:
            argv += ["--additional-mcp-config", mcp_servers.copilot(run.mcp)]
        if run.trigger:
            argv += ["--available-tools", *TRIGGER_TOOLS]
        return Command(argv, env, stdin=with_system(run))

    def parse(self, stdout: str, *, exit_code: int, stderr: str = "") -> CliOutcome:
        return copilot_events.parse(stdout, exit_code=exit_code, stderr=stderr)
