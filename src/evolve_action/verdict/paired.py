"""Pass rates that compare like with like: one rule for the comment's headline, the step
outputs and the `min-pass-rate` floor.

Base and head are taken over the same cases, those graded on both sides: a new case would lift
head and a removed one lower base without anything getting better or worse, and a case whose
every head run errored would drop out of head's mean alone. Each rate is the mean of the
cases' own pass rates, so a case with more runs weighs no more than one with fewer. Without a
base (`--base none`) head's rate is over every case graded on head.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from evolve_action.verdict.significance import Label
from evolve_action.verdict.stats import CaseStats

MISSING = (Label.ERROR, Label.NOT_RUN)  # compared, and a side has no graded run
APART = (Label.NEW, Label.REMOVED, Label.NOT_COMPARED)  # never compared: listed on their own


@dataclass(frozen=True, slots=True)
class PairedRates:
    base: float | None
    head: float | None
    paired: tuple[CaseStats, ...]  # the rows both rates are taken over


def mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def paired_rates(rows: Sequence[CaseStats], *, has_base: bool = True) -> PairedRates:
    """Base's and head's rates over the rows graded on both sides (head alone without a base)."""
    if not has_base:
        alone = [c.head.pass_rate for c in rows if c.head and c.head.pass_rate is not None]
        return PairedRates(None, mean(alone), ())
    paired = tuple(
        c
        for c in rows
        if c.label not in APART and c.base and c.head and c.base.graded and c.head.graded
    )
    base = mean([c.base.pass_rate or 0.0 for c in paired if c.base])
    head = mean([c.head.pass_rate or 0.0 for c in paired if c.head])
    return PairedRates(base, head, paired)
