"""AgentV's check kinds: the answer rules and `code_judge` (`rules`), `field_accuracy`
(`fields`), the trace's tool trajectory, metrics and skill use (`trace`); importing the package
registers them all."""

from __future__ import annotations

from evolve_action.formats.agentv.checks import fields, rules, trace

__all__ = ["fields", "rules", "trace"]
