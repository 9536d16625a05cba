"""OpenCode, headless: where it is installed, its command line and its environment.

Found by running `opencode-ai` 1.18.33 (its linux-x64 build) against the loopback fakes
(`tests/integration/test_cli_opencode_fake.py`):

- The native binary is in the platform package (`opencode-linux-x64/bin/opencode`, a Bun
  executable); no Node.js is needed.
- `opencode run --format json --auto --title evolve -m PROVIDER/MODEL`, the prompt on
  stdin. `--auto` approves every tool call. `--title` names the session: without it
  OpenCode asks a small model (Claude Haiku for Anthropic) for a title, one more model
  call, of another model, on every run.
- Its provider settings come as JSON in `OPENCODE_CONFIG_CONTENT`:
  `provider.<id>.options.baseURL` and `apiKey`. The Anthropic base URL includes `/v1`
  (`<base>/v1/messages`); OpenAI models go through the Responses API
  (`<base>/responses`). `OPENCODE_PURE=1` leaves out external plugins (which it would
  install with npm first), `OPENCODE_DISABLE_MODELS_FETCH=1`,
  `OPENCODE_DISABLE_AUTOUPDATE=1` and `OPENCODE_DISABLE_LSP_DOWNLOAD=1` keep it off the
  network. Even so it asks the npm registry about `@opencode-ai/plugin` when it starts
  (caching the answer in `~/.npm`); it honours `npm_config_registry`, so `npm_registry`
  sends that question to a loopback address that refuses it (the run goes on), never to
  the network.
- Skills are read from `.opencode/skills/<name>/SKILL.md` in the working directory (and
  from `.claude/skills` and `.agents/skills`, not `.github/skills` nor `.gemini/skills`),
  listed in its system prompt and loaded by its `skill` tool, which finds the skill's files with
  `rg`: without ripgrep on PATH the tool fails ("ripgrep execution failed").
- What reaches a run: `OPENCODE_DISABLE_PROJECT_CONFIG=1` leaves the project's
  `opencode.json` and `.opencode/` (its MCP servers, plugins, agents, commands) unread, which
  also drops the project's skill folders; `skills.paths` names ours again (relative to the
  working directory). Its global config is `~/.config/opencode`, in the run's fresh HOME;
  `/etc/opencode` is the machine's (`machine_config`). The case's MCP servers are the
  config's `mcp` key, and nothing else is.
- Its home: `~/.local/share/opencode` (opencode.db, log/), `~/.local/state/opencode`,
  `~/.config/opencode`, `~/.cache/opencode`, `~/.npm`. A failed call is an `error` event
  (`error.data.statusCode`) and exit code 1.
"""

from __future__ import annotations

import json

NAME = "opencode"
PACKAGE = "opencode-ai"
VERSION = "1.18.33"
SKILLS_DIR = ".opencode/skills"
# Where else it finds skills (seen: a skill in each folder, listed to the model or not).
ALSO_READS = (".claude/skills", ".agents/skills")
PROVIDERS = ("anthropic", "openai")
SKILL_TOOL = "skill"
SHELL_TOOL = "bash"
TITLE = "evolve"
NEEDS_ON_PATH = ("rg",)

ENV = {
    "OPENCODE_PURE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_PROJECT_CONFIG": "1",
}
# Read in every session, whatever the variables say.
MACHINE_CONFIG = ("/etc/opencode/opencode.json", "/etc/opencode/opencode.jsonc")


def native(system: str, arch: str, libc: str) -> tuple[str, str]:
    """The lock entry holding this platform's binary, and the binary inside it (the shape
    of `install.CliSpec.native`). Only the linux-x64 build is pinned so far."""
    name = {"win32": "windows"}.get(system, system)
    suffix = "-musl" if system == "linux" and libc == "musl" else ""
    return f"node_modules/opencode-{name}-{arch}{suffix}", "bin/opencode"


def command(binary: str, *, provider: str, model: str) -> list[str]:
    """The command line; the prompt goes on stdin."""
    if provider not in PROVIDERS:
        raise ValueError(f"OpenCode is run with {' or '.join(PROVIDERS)} models, not {provider!r}")
    argv = [binary, "run", "--format", "json", "--auto", "--title", TITLE]
    return [*argv, "-m", f"{provider}/{model}"]


def config(
    provider: str, api_base: str, token: str, mcp: dict[str, object] | None = None
) -> dict[str, object]:
    """Its configuration: one provider, pointed at `api_base` (the proxy's
    `<proxy>/<provider>` in a run, the fake's `anthropic_base_url` or `openai_base_url` in
    a test) with a placeholder key; the skills' folders; `mcp`, the case's servers."""
    base = f"{api_base}/v1" if provider == "anthropic" else api_base
    options = {"baseURL": base, "apiKey": token}
    return {
        "$schema": "https://opencode.ai/config.json",
        "provider": {provider: {"options": options}},
        "skills": {"paths": [SKILLS_DIR, *ALSO_READS]},
        "mcp": mcp or {},
    }


def endpoint(
    provider: str, api_base: str, token: str, mcp: dict[str, object] | None = None
) -> dict[str, str]:
    """The variable that holds the placeholder key (through the relay, like the other CLIs')."""
    return {"OPENCODE_CONFIG_CONTENT": json.dumps(config(provider, api_base, token, mcp))}


def environment(
    provider: str,
    api_base: str,
    token: str,
    *,
    npm_registry: str | None = None,
    mcp: dict[str, object] | None = None,
) -> dict[str, str]:
    """Everything it needs besides PATH, HOME and TMPDIR (the confinement's).
    `npm_registry`: where its start-up plugin check goes (the proxy's own address in a run,
    which answers it with an error at once)."""
    env = {**ENV, **endpoint(provider, api_base, token, mcp)}
    if npm_registry:
        env["npm_config_registry"] = npm_registry
    return env


def home_files() -> dict[str, str]:
    """Files its home needs before a run, by path under HOME: none (the variables do)."""
    return {}
