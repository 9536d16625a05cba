"""GitHub Copilot CLI, headless: where it is installed, its command line and its environment.

Found by running `@github/copilot` 1.0.102 against the loopback fakes
(`tests/integration/test_cli_copilot_fake.py`):

- The npm package is a Node.js loader; the work is done by the native binary of the
  platform package (`@github/copilot-linux-x64/copilot`, `…-linuxmusl-…` on musl), which
  needs no Node.js.
- `copilot --output-format json --allow-all --disable-builtin-mcps`, the prompt on stdin
  (without `-p` it reads stdin when stdin is not a terminal). `--allow-all-tools` alone
  refuses a command reading `/proc/self/environ` ("Permission denied because no interactive
  user response was available"). The folder is not trusted (no `--trust-folder`): the
  project's skills load all the same, while its MCP servers (`.mcp.json`,
  `.github/mcp.json`) and hooks do not; `--disable-builtin-mcps` keeps its GitHub MCP
  server off. Its user MCP servers are `~/.copilot/mcp-config.json`, in the run's fresh
  HOME; the case's come in `--additional-mcp-config` (JSON, as `mcp_servers.copilot`).
- A model provider of one's own ("BYOK"): `COPILOT_PROVIDER_TYPE` (`anthropic` or
  `openai`), `COPILOT_PROVIDER_BASE_URL` (the Anthropic origin, or the OpenAI base with its
  `/v1`: it calls `…/v1/messages` or `…/chat/completions`), `COPILOT_PROVIDER_API_KEY`,
  `COPILOT_MODEL`. `COPILOT_OFFLINE=true` keeps it from GitHub's services (no sign-in is
  needed then), `COPILOT_AUTO_UPDATE=false` from updating itself.
- Skills are read from `.github/skills/<name>/SKILL.md` in the working directory (and
  from `.claude/skills` and `.agents/skills`, not `.gemini/skills` nor `.opencode/skills`)
  and loaded by its `skill` tool. With Claude models it offers `bash`, `view`, `create`,
  `edit`, `grep`, `glob`, `skill`, `task`...; with GPT models `apply_patch` (a free-form
  custom tool) replaces `create` and `edit`.
- Its home: `~/.copilot` (config.json, session-state/, session-store.db, logs/), and on
  first start it unpacks its runtime, about 235 MB, into `$COPILOT_PKG_CACHE_HOME/pkg`
  (default `$XDG_CACHE_HOME/copilot`). It runs from a read-only copy unpacked once
  beforehand: `package_cache` points each run at one, so a fresh home does not pay that.
- It masks known secret values in tool output, so a leak test must also look for
  transformed values. A refused key is a `session.error` (`errorType: authentication`)
  after its own three attempts, and exit code 1.
"""

from __future__ import annotations

NAME = "copilot"
PACKAGE = "@github/copilot"
VERSION = "1.0.102"
SKILLS_DIR = ".github/skills"
# Where else it finds skills (seen: a skill in each folder, listed to the model or not).
ALSO_READS = (".claude/skills", ".agents/skills")
PROVIDERS = ("anthropic", "openai", "copilot")
# GitHub's own Copilot API, signed in with a GitHub token (keyless in Actions); the other
# providers are its own-provider ("BYOK") variables.
GITHUB = "copilot"
SKILL_TOOL = "skill"
SHELL_TOOL = "bash"
# Its runtime, in its package cache folder (`COPILOT_PKG_CACHE_HOME`).
RUNTIME = "pkg"

# Variables that are not credentials, so they pass the confinement's environment filter.
ENV = {"COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false"}


def native(system: str, arch: str, libc: str) -> tuple[str, str]:
    """The lock entry holding this platform's binary, and the binary inside it (the shape
    of `install.CliSpec.native`)."""
    flavour = "linuxmusl" if system == "linux" and libc == "musl" else system
    return f"node_modules/@github/copilot-{flavour}-{arch}", "copilot"


def command(binary: str) -> list[str]:
    """The command line; the prompt goes on stdin and the model in `COPILOT_MODEL`."""
    return [binary, "--output-format", "json", "--allow-all", "--disable-builtin-mcps"]


def endpoint(
    provider: str, api_base: str, token: str, *, model: str, github: str = ""
) -> dict[str, str]:
    """The variables that point it at `api_base` with a placeholder key.

    `api_base` is where the provider's API answers as the upstream base URL would: the
    proxy's `<proxy>/<provider>` in a run, the fake's `anthropic_base_url` or
    `openai_base_url` in a test.
    """
    if provider not in PROVIDERS:
        takes = f"{', '.join(PROVIDERS[:-1])} or {PROVIDERS[-1]}"
        raise ValueError(f"Copilot CLI takes {takes} models, not {provider!r}")
    if provider == GITHUB:
        return signed_in(api_base, token, model=model, github=github or f"{api_base}/github")
    return {
        "COPILOT_PROVIDER_TYPE": provider,
        "COPILOT_PROVIDER_BASE_URL": api_base,
        "COPILOT_PROVIDER_API_KEY": token,
        "COPILOT_MODEL": model,
    }


def signed_in(api_base: str, token: str, *, model: str, github: str) -> dict[str, str]:
    """The variables of a run on GitHub's Copilot API, signed in with `token` (the proxy
    session's placeholder: the proxy holds the workflow's GITHUB_TOKEN).

    `COPILOT_API_URL` moves the Copilot API (it calls `<url>/models`, then `<url>/v1/messages`
    for Claude models); `GH_HOST` (whose path it drops: `/copilot_internal/user`,
    `/copilot_internal/managed_settings`, `/copilot/mcp_registry` at its root) and
    `COPILOT_DEBUG_GITHUB_API_URL` (`/copilot_internal/team_customizations`) move the GitHub
    calls it makes besides, which a 404 answers without harm: they reach the proxy, which
    answers them itself, never github.com with a token: `github` is the proxy's own address
    beside the provider's route (`<proxy>/github`), which it does not forward. It is online,
    not offline.
    """
    return {
        "COPILOT_OFFLINE": "false",
        # It refuses a token not shaped as one of GitHub's (the proxy strips the prefix).
        "COPILOT_GITHUB_TOKEN": f"ghs_{token}",
        "COPILOT_API_URL": api_base,
        "GH_HOST": github,
        "COPILOT_DEBUG_GITHUB_API_URL": github,
        "COPILOT_MODEL": model,
    }


def environment(
    provider: str, api_base: str, token: str, *, model: str, package_cache: str | None = None
) -> dict[str, str]:
    """Everything it needs besides PATH, HOME and TMPDIR (the confinement's)."""
    env = {**ENV, **endpoint(provider, api_base, token, model=model)}
    if package_cache:
        env.update(environment_cache(package_cache))
    return env


def environment_cache(package_cache: str) -> dict[str, str]:
    """The variable that has it run from the runtime unpacked in `package_cache/RUNTIME`."""
    return {"COPILOT_PKG_CACHE_HOME": package_cache}


def home_files() -> dict[str, str]:
    """Files its home needs before a run, by path under HOME: none (the variables do)."""
    return {}
