"""Gemini CLI, headless: where it is installed, its command line, environment and home files.

Found by running `@google/gemini-cli` 0.61.0 against the loopback fake of the Gemini API
(`tests/fakes/gemini_wire.py`, `tests/integration/test_cli_gemini_fake.py`):

- It is a Node.js program (`bundle/gemini.js`, Node 20 or newer): unlike the other CLIs it
  has no native build, so `node` must be on PATH where it runs.
- `node gemini.js --output-format stream-json --approval-mode yolo -m MODEL`, the prompt on
  stdin (read when stdin is not a terminal). `yolo` approves every tool call. It may call
  another model than the one named: `-m gemini-3-pro-preview` called
  `gemini-3.1-pro-preview` (`gemini-2.5-flash` and `gemini-3-flash-preview` as named), so
  the model to price is the one in the request path, not the one asked for.
- `GOOGLE_GEMINI_BASE_URL` moves its endpoint (a path below the origin is kept:
  `<base>/v1beta/models/MODEL:streamGenerateContent?alt=sse`), `GEMINI_API_KEY` is sent as
  `x-goog-api-key`. `GEMINI_CLI_TRUST_WORKSPACE=true` trusts the working directory (without
  it: exit 55), and `~/.gemini/settings.json` must select the key as its way to sign in
  (`security.auth.selectedType: "gemini-api-key"`; without it: "Invalid auth method
  selected.", exit 41). The same file turns off its usage statistics (sent to Google by
  default), telemetry and update checks. `GEMINI_CLI_NO_RELAUNCH=true` keeps it from
  starting a second Node.js process with a larger heap.
- Skills are read from `.gemini/skills/<name>/SKILL.md` in the working directory (and
  from `.agents/skills`, not `.claude/skills`, `.github/skills` nor `.opencode/skills`) and
  loaded by its `activate_skill` tool; its shell tool is `run_shell_command`, which refuses
  command substitution (`$(...)`).
- Its home: `~/.gemini` (settings.json, installation_id, projects.json, history/,
  tmp/<project>/chats/). An API error also writes a report to `$TMPDIR`
  (`gemini-client-error-*.json`, /tmp by default): TMPDIR must be inside the run's
  workspace. A failed call ends with a non-zero exit code (144 and 145 seen) and a `result`
  whose status is `error`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

NAME = "gemini"
PACKAGE = "@google/gemini-cli"
VERSION = "0.61.0"
SKILLS_DIR = ".gemini/skills"
# Where else it finds skills (seen: a skill in each folder, listed to the model or not).
ALSO_READS = (".agents/skills",)
PROVIDERS = ("gemini",)
SKILL_TOOL = "activate_skill"
SHELL_TOOL = "run_shell_command"
MIN_NODE = 20

ENV = {"GEMINI_CLI_TRUST_WORKSPACE": "true", "GEMINI_CLI_NO_RELAUNCH": "true"}

SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
}


def entry(_system: str = "", _arch: str = "", _libc: str = "") -> tuple[str, str]:
    """The lock entry of the package and the script inside it, the same on every platform
    (the shape of `install.CliSpec.native`); it is started with `node`."""
    return f"node_modules/{PACKAGE}", "bundle/gemini.js"


def command(node: str, script: str, *, model: str) -> list[str]:
    """The command line; the prompt goes on stdin."""
    return [node, script, "--output-format", "stream-json", "--approval-mode", "yolo", "-m", model]


def endpoint(api_base: str, token: str) -> dict[str, str]:
    """The variables that point it at `api_base` (the proxy's `<proxy>/gemini` in a run,
    the fake's `gemini_base_url` in a test) with a placeholder key."""
    return {"GOOGLE_GEMINI_BASE_URL": api_base, "GEMINI_API_KEY": token}


def environment(api_base: str, token: str) -> dict[str, str]:
    """Everything it needs besides PATH, HOME and TMPDIR (the confinement's)."""
    return {**ENV, **endpoint(api_base, token)}


# Machine-wide settings outrank the user's and no option turns them off: where one exists,
# the harness refuses to run (`Harness.machine_config`).
MACHINE_CONFIG = ("/etc/gemini-cli/settings.json", "/etc/gemini-cli/system-defaults.json")


def home_files(mcp: Mapping[str, Any] | None = None) -> dict[str, str]:
    """Files its home needs before a run, by path under HOME: the settings, with the case's
    MCP servers and an allow-list of exactly those (`harness.mcp_servers.gemini`)."""
    settings = {**SETTINGS, **(mcp or {"mcpServers": {}, "mcp": {"allowed": []}})}
    return {".gemini/settings.json": json.dumps(settings, indent=2) + "\n"}


def node_version_ok(version_output: str) -> bool:
    """Whether `node --version` (e.g. "v20.20.2") names a Node.js it runs on."""
    text = version_output.strip().removeprefix("v")
    major = text.split(".", 1)[0]
    return major.isdigit() and int(major) >= MIN_NODE
