"""Gemini CLI: its launch facts (`launch.py`), its event reader (`events.py`) and its
contract (`harness.py`)."""

from __future__ import annotations

from evolve_action.execute.harness.gemini.harness import Gemini

__all__ = ["Gemini"]
