"""GitHub Copilot CLI: its launch facts (`launch.py`), its event reader (`events.py`) and its
contract (`harness.py`)."""

from __future__ import annotations

from evolve_action.execute.harness.copilot.harness import TRIGGER_TOOLS, Copilot, with_system

__all__ = ["TRIGGER_TOOLS", "Copilot", "with_system"]
