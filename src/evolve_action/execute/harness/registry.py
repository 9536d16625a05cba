"""The agent CLIs `harness: cli` can run: one line each. A new CLI is one module (a
`contract.Harness`) and its line here; its npm package goes into `npm/package.json` and the
lock (`npm install --package-lock-only` in that folder).

Which CLI runs a model: the one the `agent` input names, when it can run the model's
provider; without it, the first registered harness that names the provider first among its
`providers` (its own vendor's), else the first that can run that provider at all.
"""

from __future__ import annotations

from evolve_action.execute.harness.claude import ClaudeCode
from evolve_action.execute.harness.codex import Codex
from evolve_action.execute.harness.contract import Harness
from evolve_action.execute.harness.copilot import Copilot
from evolve_action.execute.harness.gemini import Gemini
from evolve_action.execute.harness.opencode import OpenCode

HARNESSES: dict[str, Harness] = {
    h.name: h for h in (ClaudeCode(), Codex(), Copilot(), OpenCode(), Gemini())
}


def for_provider(provider: str, agent: str = "") -> Harness | None:
    """The CLI that runs this provider's models (the one `agent` names, when given), None
    when no registered CLI can."""
    if agent:
        chosen = HARNESSES.get(agent)
        return chosen if chosen is not None and provider in chosen.providers else None
    own = [h for h in HARNESSES.values() if h.providers[:1] == (provider,)]
    able = [h for h in HARNESSES.values() if provider in h.providers]
    found = own or able
    return found[0] if found else None


def providers(agent: str = "") -> set[str]:
    """Every provider some CLI (or the one `agent` names) can run."""
    chosen = [HARNESSES[agent]] if agent in HARNESSES else HARNESSES.values()
    return {p for h in chosen for p in h.providers}


def cannot_run(provider: str, agent: str) -> str:
    """Why no CLI runs this provider's models, and what to do."""
    if agent and agent in HARNESSES:
        able = ", ".join(HARNESSES[agent].providers)
        return f"the agent {agent} runs {able} models, not {provider}; choose another agent"
    return f"no agent CLI runs {provider} models; run them with `harness: sdk`"
