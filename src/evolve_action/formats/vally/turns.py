"""A Vally stimulus's user turns, and the turn a grader reads.

A stimulus gives its task as one `prompt` or as `turns`, a list of user messages: the agent
answers the first, then gets the second in the same conversation, and so on (Vally 0.9's
multi-turn stimuli; microsoft/hve-core launches an agent file in turn 0 and asks its question
in turn 1). The first turn is the case's prompt and the rest are its `follow_ups`, which the
agent loop sends one by one.

A grader may name the `turn` it reads (0-based). The graders that read an answer or its time
(`output-*`, `exit-success`, `completed`, `wall-time`, `prompt`) then read that turn's; the
others read the workspace or the whole trajectory, which a run here has only as it is after
the last turn, so a `turn` before the last is warned about there.
"""

from __future__ import annotations

from typing import Any

from evolve_action.formats.base import Problems
from evolve_action.formats.graders.fields import At, strings, text

PER_TURN_KINDS = frozenset(
    {"output-contains", "output-not-contains", "output-matches", "output-not-matches"}
    | {"exit-success", "completed", "wall-time", "prompt"}
)


def user_turns(problems: Problems, at: At, raw: dict[str, Any]) -> tuple[str, ...] | None:
    """The stimulus's user messages in order (one for a `prompt`), or None when invalid."""
    if raw.get("prompt") is not None:
        if raw.get("turns") is not None:
            problems.error((*at, "turns"), "give either prompt or turns, not both")
        said = text(problems, (*at, "prompt"), raw["prompt"])
        return None if said is None else (said,)
    turns = raw.get("turns")
    if turns is None:
        problems.error(at, "a stimulus needs a prompt (or turns)")
        return None
    said_all = strings(problems, (*at, "turns"), turns)
    if not said_all:
        if said_all == []:
            problems.error((*at, "turns"), "must hold at least one user message")
        return None
    return tuple(said_all)


def grader_turn(problems: Problems, at: At, value: Any, turns: int, kind: str) -> int | bool | None:
    """The user turn (0-based) a grader reads; None for the run as a whole (a single turn,
    or a grader of the end state); False when `value` is no turn of this stimulus."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < turns:
        last = "can only be 0" if turns == 1 else f"must be a turn from 0 to {turns - 1}"
        problems.error(at, f"this stimulus has {turns} turn(s), so `turn` {last}, not {value!r}")
        return False
    if turns == 1:
        return None
    if kind not in PER_TURN_KINDS:
        if value != turns - 1:
            problems.warn(
                at,
                f"{kind} is graded on the run as it is after the last turn; evolve-action does"
                " not keep the workspace of each turn",
            )
        return None
    return value
