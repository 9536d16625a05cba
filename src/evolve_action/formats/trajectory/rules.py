"""The non-order trajectory checks: called, not called, count bounds, max turns.

`called(want, low, high)` covers "called", "not called" (`high=0`), "called with arguments
matching" (the want tests them) and count bounds. These are pass/fail (credit 1 or 0); the
order checks (`order.py`) give partial credit.
"""

from __future__ import annotations

from collections.abc import Sequence

from evolve_action.formats.trajectory.order import sequence
from evolve_action.formats.trajectory.wants import Outcome, Want
from evolve_action.model.trajectory import OBSERVED, ToolStep, Trajectory


def called(want: Want, steps: Sequence[ToolStep], low: int = 1, high: int | None = None) -> Outcome:
    """`want` met by between `low` and `high` calls (no upper bound when None)."""
    hits = [s.index for s in steps if want(s)]
    inside = len(hits) >= low and (high is None or len(hits) <= high)
    wanted = bounds(low, high)
    where = f" (call {', '.join(map(str, hits[:8]))}{', …' if len(hits) > 8 else ''})"
    said = f"{want.label}: {len(hits)} matching call(s){where if hits else ''}, wanted {wanted}"
    return Outcome(inside, 1.0 if inside else 0.0, f"{said}{OBSERVED}{_observed(steps)}")


def not_called(want: Want, steps: Sequence[ToolStep]) -> Outcome:
    return called(want, steps, 0, 0)


def all_called(wants: Sequence[Want], steps: Sequence[ToolStep]) -> Outcome:
    """Each want met by at least one call (the same call may meet several)."""
    missing = [w.label for w in wants if not any(map(w, steps))]
    held = not missing
    said = f"never called: {', '.join(missing)}" if missing else "all called"
    return Outcome(held, 1.0 if held else 0.0, f"{said}{OBSERVED}{_observed(steps)}")


def none_called(wants: Sequence[Want], steps: Sequence[ToolStep]) -> Outcome:
    used = [w.label for w in wants if any(map(w, steps))]
    held = not used
    said = f"called: {', '.join(used)}" if used else "none called"
    return Outcome(held, 1.0 if held else 0.0, f"{said}{OBSERVED}{_observed(steps)}")


def max_turns(run: Trajectory, limit: int) -> Outcome:
    held = run.turns <= limit
    return Outcome(held, 1.0 if held else 0.0, f"{run.turns} turn(s), at most {limit} allowed")


def bounds(low: int, high: int | None) -> str:
    if high is None:
        return f"at least {low}"
    if high == low:
        return f"exactly {low}"
    return f"{low} to {high}"


def _observed(steps: Sequence[ToolStep]) -> str:
    return sequence([s.label for s in steps])
