"""Which environment variable names carry a credential (docs/design.md §Trust).

Read by the confinement (`execute/sandbox/env.py`), which never passes such a variable to a
command, and by the loaders of MCP server declarations (`formats/mcp_servers.py`), which
warn about a server that needs one before any run starts.
"""

from __future__ import annotations

import re

_SECRET_PREFIXES = ("GITHUB_", "INPUT_", "ACTIONS_", "RUNNER_", "ANTHROPIC_", "OPENAI_", "AWS_")
_SECRET_WORDS = frozenset(
    {"KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "PAT"}
    | {"CREDENTIAL", "CREDENTIALS", "AUTH", "COOKIE", "PRIVATE", "SESSION"}
)


def is_secret_name(name: str) -> bool:
    """Whether an environment variable name looks like it carries a credential."""
    upper = name.upper()
    if upper.startswith(_SECRET_PREFIXES):
        return True
    words = re.split(r"[^A-Z0-9]+", upper)
    return any(w in _SECRET_WORDS or w.endswith(("KEY", "TOKEN", "SECRET")) for w in words)
