"""OpenAI's Codex CLI: its contract (`harness.py`)."""

from __future__ import annotations

from evolve_action.execute.harness.codex.harness import Codex, parse

__all__ = ["Codex", "parse"]
