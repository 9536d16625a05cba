"""A format's scoring policy, found through the family registry.

The policies live with their format family (`formats/<family>/scoring.py`, the shared one of
the grader formats in `formats/graders/scoring.py`); the contract is `model.scoring`.
"""

from __future__ import annotations

from evolve_action.formats import families
from evolve_action.model.evals import Format
from evolve_action.model.scoring import Policy, Verdict

__all__ = ["Policy", "Verdict", "policy_for"]


def policy_for(fmt: Format) -> Policy:
    return families.policy(fmt)
