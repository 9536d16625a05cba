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
trigger runs offer `Skill` and `Read`. Its runtime (about 235 MB), which it would unpack
into each run's fresh home on first start, is unpacked once per job beside the staged CLIs
(`prepare_job`), where the runs may read it but not change it, and `COPILOT_PKG_CACHE_HOME`
points every run there: it runs from that read-only copy (the in-use lock it tries to write
there is not needed).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path
from types import MappingProxyType

from evolve_action.execute.harness import mcp_servers
from evolve_action.execute.harness.contract import CliSpec, Command, Harness, Invocation
from evolve_action.execute.harness.copilot import events as copilot_events
from evolve_action.execute.harness.copilot import launch as copilot_launch
from evolve_action.execute.harness.events import CliOutcome
from evolve_action.util.files import readable_by_all

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

    def prepare_job(self, binary: Path, directory: Path) -> dict[str, str]:
        """Its runtime unpacked into `directory` once (a start that needs no model), in a
        private folder first, then renamed into place: a cut-short unpack is never used."""
        if not (directory / copilot_launch.RUNTIME).is_dir():
            work = Path(tempfile.mkdtemp(prefix=".unpack-", dir=directory.parent))
            try:
                env = {**copilot_launch.ENV, "HOME": str(work / "home"), "PATH": "/usr/bin:/bin"}
                env.update(copilot_launch.environment_cache(str(work)))
                try:
                    done = subprocess.run(
                        [str(binary), "--version"], env=env, capture_output=True, timeout=300
                    )
                except subprocess.TimeoutExpired as exc:
                    raise RuntimeError("`copilot --version` took over 300 s to unpack") from exc
                if done.returncode != 0 or not (work / copilot_launch.RUNTIME).is_dir():
                    said = done.stderr.decode(errors="replace").strip()[-300:]
                    raise RuntimeError(f"`copilot --version` did not unpack its runtime: {said}")
                shutil.rmtree(work / "home", ignore_errors=True)
                readable_by_all(work)
                work.rename(directory)
            finally:
                shutil.rmtree(work, ignore_errors=True)
        return copilot_launch.environment_cache(str(directory))

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
