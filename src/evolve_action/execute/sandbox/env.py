"""The environment of a confined command: an allowlist, never a credential (docs/design.md §Trust).

No API key, token, `GITHUB_*`, `INPUT_*` or `ACTIONS_*` value ever reaches a command; HOME and
TMPDIR live inside the workspace, and git works there without any host config.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from evolve_action.util.secret_names import is_secret_name

__all__ = ["DEFAULT_PATH", "HOME_DIR", "TMP_DIR", "is_secret_name", "scrubbed_env"]

HOME_DIR = ".home"
TMP_DIR = ".tmp"
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# Variables passed through unchanged: locale, time zone, terminal, search path, CA bundles.
_ALLOWED = (
    "PATH",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TERM",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
)
# Git works in the workspace repository without any host config and with a fixed identity.
_FIXED = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_AUTHOR_NAME": "evolve",
    "GIT_AUTHOR_EMAIL": "evolve@workspace.invalid",
    "GIT_COMMITTER_NAME": "evolve",
    "GIT_COMMITTER_EMAIL": "evolve@workspace.invalid",
    "USER": "evolve",
    "LOGNAME": "evolve",
    "SHELL": "/bin/sh",
}


def scrubbed_env(
    workspace: Path, extra: Mapping[str, str] | None = None, *, seen_as: str | None = None
) -> dict[str, str]:
    """The environment of a confined command: an allowlist, never a credential.

    HOME and TMPDIR are created in the workspace; `seen_as` is the path under which the
    command sees the workspace (`/workspace` inside bubblewrap). Raises ValueError when
    `extra` names a secret-looking variable: the caller asked for something we never pass.
    """
    root = seen_as or str(workspace)
    for sub in (HOME_DIR, TMP_DIR):
        (workspace / sub).mkdir(parents=True, exist_ok=True)
    env = {k: os.environ[k] for k in _ALLOWED if k in os.environ}
    env.setdefault("PATH", DEFAULT_PATH)
    env.setdefault("LANG", "C.UTF-8")
    env.update(_FIXED)
    env["HOME"] = f"{root}/{HOME_DIR}"
    env["TMPDIR"] = f"{root}/{TMP_DIR}"
    for name, value in (extra or {}).items():
        if is_secret_name(name):
            raise ValueError(
                f"refusing to pass {name!r} to a confined command: it looks like a credential, "
                "and commands from a PR never receive credentials; rename the variable"
            )
        env[name] = value
    return env
