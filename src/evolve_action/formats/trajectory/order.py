"""Order checks over a trajectory: strict, in order with gaps, any order, with partial credit.

- `strict`: the calls are exactly the expected ones, in order, nothing else. Credit: the
  longest matched prefix over the longer of the two sequences.
- `in_order`: the expected calls appear in that order, others allowed between. Credit: the
  longest common subsequence of expected and observed over the expected length (an
  expected step out of place costs that step only).
- `any_order`: each expected call is matched by a distinct call, in any order. Credit: the
  expected calls matched over the expected length.

Each passes only at full credit. The evidence shows the expected sequence, the observed one
and where they part: "expected: Read → Edit → Bash; observed: Read → Bash → Edit; parted
at step 2: expected Edit, saw Bash".
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from enum import StrEnum

from evolve_action.formats.trajectory.wants import Outcome, Want
from evolve_action.model.trajectory import CONCLUSIONS, OBSERVED, ToolStep

SHOWN = 12  # steps of a sequence the evidence lists; the rest are counted
ARROW = " → "
PARTED, MISSING = CONCLUSIONS  # the evidence's conclusion follows one of them
# The LCS table is expected × observed cells; past this the in-order credit falls back to
# the greedy matched prefix, which is a lower bound of it.
MAX_CELLS = 200_000


class Order(StrEnum):
    STRICT = "strict"
    IN_ORDER = "in_order"
    ANY_ORDER = "any_order"


def check_order(wants: Sequence[Want], steps: Sequence[ToolStep], order: Order) -> Outcome:
    if order is Order.STRICT:
        return strict(wants, steps)
    if order is Order.IN_ORDER:
        return in_order(wants, steps)
    return any_order(wants, steps)


def strict(wants: Sequence[Want], steps: Sequence[ToolStep]) -> Outcome:
    prefix = 0
    while prefix < min(len(wants), len(steps)) and wants[prefix](steps[prefix]):
        prefix += 1
    longest = max(len(wants), len(steps))
    held = prefix == len(wants) == len(steps)
    score = prefix / longest if longest else 1.0
    head = _head("expected exactly", wants, steps, at=prefix)
    if held:
        return Outcome(True, 1.0, head)
    if prefix == len(wants):
        part = f"{len(steps) - prefix} extra call(s) after step {prefix}: saw {steps[prefix].label}"
    elif prefix == len(steps):
        part = f"the run stopped at step {prefix}; expected {wants[prefix].label} next"
    else:
        part = f"expected {wants[prefix].label}, saw {steps[prefix].label}"
    return Outcome(False, score, f"{head}{PARTED}step {prefix + 1}: {part}")


def in_order(wants: Sequence[Want], steps: Sequence[ToolStep]) -> Outcome:
    matched: list[int] = []  # greedy: the step index each want was met at
    at = 0
    for want in wants:
        found = next((i for i in range(at, len(steps)) if want(steps[i])), None)
        if found is None:
            break
        matched.append(found)
        at = found + 1
    head = _head("expected in order", wants, steps, at=matched[-1] + 1 if matched else 0)
    if len(matched) == len(wants):
        return Outcome(True, 1.0, head)
    score = _common(wants, steps) / len(wants)
    missed = wants[len(matched)]
    if not matched:
        part = f"no {missed.label} call at all"
        return Outcome(False, score, f"{head}{PARTED}expected step 1: {part}")
    last = matched[-1]
    after = steps[last + 1].label if last + 1 < len(steps) else "nothing"
    part = f"expected {missed.label} after call {last + 1} ({steps[last].label}), saw {after}" + (
        "" if any(map(missed, steps)) else f"; {missed.label} is never called"
    )
    return Outcome(False, score, f"{head}{PARTED}expected step {len(matched) + 1}: {part}")


def any_order(wants: Sequence[Want], steps: Sequence[ToolStep]) -> Outcome:
    met = _matched(wants, steps)
    missing = [wants[w].label for w in range(len(wants)) if w not in met]
    score = len(met) / len(wants) if wants else 1.0
    head = _head("expected in any order", wants, steps)
    if not missing:
        return Outcome(True, 1.0, head)
    return Outcome(False, score, f"{head}{MISSING}{', '.join(missing)}")


def _matched(wants: Sequence[Want], steps: Sequence[ToolStep]) -> set[int]:
    """The wants met, each by a distinct step: a maximum matching, so one broad want does not
    take the only step a narrow one could use. A greedy pass first (each want the first free
    step it tests), then augmenting paths (Kuhn's, breadth first) within MAX_CELLS edge
    visits. Past MAX_CELLS want × step tests the greedy matching stands: a lower bound."""
    owner: dict[int, int] = {}  # step → the want it meets
    owned: dict[int, int] = {}  # want → its step
    if len(wants) * len(steps) > MAX_CELLS:
        for w, want in enumerate(wants):
            free = next((i for i, s in enumerate(steps) if i not in owner and want(s)), None)
            if free is not None:
                owner[free], owned[w] = w, free
        return set(owned)
    edges = [[i for i, s in enumerate(steps) if want(s)] for want in wants]
    for w, mine in enumerate(edges):
        free = next((i for i in mine if i not in owner), None)
        if free is not None:
            owner[free], owned[w] = w, free
    budget = MAX_CELLS
    for w in range(len(wants)):
        if w in owned or len(owner) == len(steps) or budget <= 0:
            continue
        budget -= _augment(w, edges, owner, owned)
    return set(owned)


def _augment(w: int, edges: list[list[int]], owner: dict[int, int], owned: dict[int, int]) -> int:
    """Find a path from want `w` to a free step and shift the wants along it; the number of
    edges visited, found or not."""
    reached: dict[int, int] = {}  # step → the want whose edge reached it
    queue: deque[int] = deque([w])
    visits = 0
    while queue:
        u = queue.popleft()
        for i in edges[u]:
            visits += 1
            if i in reached:
                continue
            reached[i] = u
            if i not in owner:
                _shift(i, reached, owner, owned)
                return visits
            queue.append(owner[i])
    return visits


def _shift(
    step: int, reached: dict[int, int], owner: dict[int, int], owned: dict[int, int]
) -> None:
    """Each want on the path takes the step it reached; the step it held goes to the want
    that reached that one, back to the want the path started from (which held none)."""
    while True:
        want = reached[step]
        held = owned.get(want)
        owner[step], owned[want] = want, step
        if held is None:
            return
        step = held


def _common(wants: Sequence[Want], steps: Sequence[ToolStep]) -> int:
    """The longest common subsequence of wants and steps (a want meets a step it tests)."""
    if len(wants) * len(steps) > MAX_CELLS:
        at = met = 0
        for want in wants:
            found = next((i for i in range(at, len(steps)) if want(steps[i])), None)
            if found is None:
                break
            met, at = met + 1, found + 1
        return met
    row = [0] * (len(steps) + 1)
    for want in wants:
        prev = row[:]
        for j, step in enumerate(steps, 1):
            row[j] = prev[j - 1] + 1 if want(step) else max(prev[j], row[j - 1])
    return row[-1]


def _head(said: str, wants: Sequence[Want], steps: Sequence[ToolStep], at: int = 0) -> str:
    expected = sequence([w.label for w in wants])
    return f"{said}: {expected}{OBSERVED}{sequence([s.label for s in steps], at)}"


def sequence(labels: Sequence[str], around: int = 0) -> str:
    """The labels joined by arrows; a long one shows a window near `around` and counts the
    rest, so the evidence stays short whatever the run did."""
    if not labels:
        return "(no tool calls)"
    if len(labels) <= SHOWN:
        return ARROW.join(labels)
    start = max(0, min(around - SHOWN // 2, len(labels) - SHOWN))
    shown = ARROW.join(labels[start : start + SHOWN])
    before = f"… {start} earlier{ARROW}" if start else ""
    rest = len(labels) - start - SHOWN
    after = f"{ARROW}… {rest} more" if rest > 0 else ""
    return f"{before}{shown}{after}"
