"""The agent CLIs `harness: cli` can run: one line each. A new CLI is one module (a
`contract.Harness`) and its line here; its npm package goes into `npm/package.json` and the
lock (`npm install --package-lock-only` in that folder).

Which CLI runs a model: the first registered harness that names the model's provider first
among its `providers` (its own vendor's), else the first that can run that provider at all.
"""

from __future__ import annotations

from evolve_action.execute.harness.claude import ClaudeCode
from evolve_action.execute.harness.codex import Codex
from evolve_action.execute.harness.contract import Harness

HARNESSES: dict[str, Harness] = {h.name: h for h in (ClaudeCode(), Codex())}


def for_provider(provider: str) -> Harness | None:
    """The CLI that runs this provider's models, None when no registered CLI can."""
    own = [h for h in HARNESSES.values() if h.providers[:1] == (provider,)]
    able = [h for h in HARNESSES.values() if provider in h.providers]
    found = own or able
    return found[0] if found else None


def providers() -> set[str]:
    """Every provider some CLI can run."""
    return {p for h in HARNESSES.values() for p in h.providers}
