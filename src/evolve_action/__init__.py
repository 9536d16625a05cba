"""evolve-action: run agent-skill evals on a PR's base and head, and report what changed."""

from __future__ import annotations

__version__ = "0.1.0"
