"""Claude Code: its contract (`harness.py`)."""

from __future__ import annotations

from evolve_action.execute.harness.claude.harness import ClaudeCode, parse

__all__ = ["ClaudeCode", "parse"]
