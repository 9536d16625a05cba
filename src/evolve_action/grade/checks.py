"""Running deterministic checks: find the kind's function in the registry, run it, contain bugs.

The check kinds themselves live with their format family (`formats/<family>/checks.py`) and
register on import into `model.checking`; `load_all` imports them through the family registry
(`formats.families`). `run_check` turns an unknown kind or an unexpected exception into a
failed item naming it, so one broken check cannot lose a run's other verdicts.
"""

from __future__ import annotations

from evolve_action.formats import families
from evolve_action.model.checking import CheckContext, CheckFn, CommandRunner, registered
from evolve_action.model.evals import Check
from evolve_action.model.outcomes import ItemResult

__all__ = ["CheckContext", "CheckFn", "CommandRunner", "kinds", "load_all", "run_check"]


def load_all() -> None:
    families.load_checks()


def kinds() -> frozenset[str]:
    load_all()
    return frozenset(registered())


async def run_check(check: Check, ctx: CheckContext) -> ItemResult:
    load_all()
    fn = registered().get(check.kind)
    if fn is None:
        return _failed(check, f"unknown check kind: {check.kind}")
    try:
        return await fn(check, ctx)
    except Exception as exc:  # a bug in a check must not lose the run's other verdicts
        return _failed(check, f"internal error in check {check.kind}: {type(exc).__name__}: {exc}")


def _failed(check: Check, evidence: str) -> ItemResult:
    return ItemResult(check.id, check.text, False, evidence, kind=check.kind, source=check.source)
