"""OpenCode: its launch facts (`launch.py`), its event reader (`events.py`) and its contract
(`harness.py`)."""

from __future__ import annotations

from evolve_action.execute.harness.opencode.harness import OpenCode

__all__ = ["OpenCode"]
