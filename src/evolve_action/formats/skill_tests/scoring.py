"""A skill-tests case passes as a trigger case does: the skill fired when it should."""

from __future__ import annotations

from evolve_action.formats.evolve.scoring import TriggersPolicy

POLICY = TriggersPolicy()
