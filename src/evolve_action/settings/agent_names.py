"""The names a workflow may give an agent CLI, and the one the comment shows.

An agent is named by its registered harness name (`claude`, `codex`, `copilot`, `opencode`,
the names of `execute.harness.registry.HARNESSES`), or by the product's own name where people
write that (`claude-code`). Settings are parsed before any stage is imported, so the known
names arrive as a parameter (`inputs.AGENTS`, which a test keeps equal to the registry).
"""

from __future__ import annotations

import difflib
from collections.abc import Collection

from evolve_action.model.lanes import DISPLAY as DISPLAY
from evolve_action.model.lanes import display as display
from evolve_action.settings.parsers import SettingsError

# Other spellings of an agent's name → its registered name.
ALIASES = {
    "claude-code": "claude",
    "claudecode": "claude",
    "codex-cli": "codex",
    "copilot-cli": "copilot",
    "github-copilot": "copilot",
    "gemini-cli": "gemini",
    "open-code": "opencode",
}


def canonical(name: str, raw: str, known: Collection[str]) -> str:
    """`raw`'s registered agent name, or a `SettingsError` naming the closest one."""
    value = raw.strip().lower()
    value = ALIASES.get(value, value)
    if value in known:
        return value
    spellings = sorted({*known, *(a for a, n in ALIASES.items() if n in known)})
    close = difflib.get_close_matches(value, spellings, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise SettingsError(
        f"input {name}: {raw.strip()!r} is not an agent CLI; write one of"
        f" {', '.join(sorted(known))} (`claude-code` is accepted for claude){hint}"
    )


def parse_list(name: str, raw: str, known: Collection[str]) -> tuple[str, ...]:
    """A comma list of agents, each once, in the order written."""
    parts = [p for p in raw.replace("\n", ",").split(",") if p.strip()]
    return tuple(dict.fromkeys(canonical(name, p, known) for p in parts))
