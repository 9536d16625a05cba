"""Evals that cannot tell: what each check item did across the runs already made.

No model is called: every graded run of every arm (base, head, no skill) already holds each
item's verdict. Per item of a case (pooled over models), the runs where it passed and failed
on each arm give one record:

- `passes without the skill`: it passed on every run, with and without the skill, so it tests
  nothing the skill adds (said only when the no-skill arm ran);
- `fails everywhere`: it failed on every run of every arm: broken, or too strict;
- `unstable`: on one arm, where the code and the skill do not change, it passed on some runs
  and failed on others;
- `tells`: none of those (what an item should do), or `passes everywhere` when it passed on
  every run and no run without the skill can say whether the skill matters.

A skill most of whose items cannot tell says so near the top of the comment.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from evolve_action.model.outcomes import RunResult, Side, Status

MOSTLY = 0.5  # a skill is flagged when more than this share of its items cannot tell


class Discrimination(StrEnum):
    NOTHING_ADDED = "passes without the skill"
    BROKEN = "fails everywhere"
    UNSTABLE = "unstable"
    PASSES_EVERYWHERE = "passes everywhere"  # no no-skill arm to tell what the skill adds
    TELLS = "tells"

    @property
    def cannot_tell(self) -> bool:
        return self in _CANNOT_TELL

    @property
    def why(self) -> str:
        return _WHY[self]


_CANNOT_TELL = frozenset(
    {Discrimination.NOTHING_ADDED, Discrimination.BROKEN, Discrimination.UNSTABLE}
)
_WHY = {
    Discrimination.NOTHING_ADDED: "passes without the skill: it tests nothing the skill adds",
    Discrimination.BROKEN: "fails everywhere: broken or too strict",
    Discrimination.UNSTABLE: "unstable: passes on some runs and fails on others of the same code",
    Discrimination.PASSES_EVERYWHERE: "passes on every run (no run without the skill to compare)",
    Discrimination.TELLS: "",
}


@dataclass(frozen=True, slots=True)
class ArmCounts:
    passed: int = 0
    failed: int = 0

    @property
    def mixed(self) -> bool:
        return self.passed > 0 and self.failed > 0


@dataclass(frozen=True, slots=True)
class ItemRecord:
    """One check item of one case, over every graded run of every arm and model."""

    suite: str
    case_id: str
    item_id: str
    text: str
    kind: str  # the check kind, or "judge"
    arms: Mapping[Side, ArmCounts]  # only the arms it was graded on
    finding: Discrimination
    unstable_on: tuple[Side, ...] = ()  # the arms it both passed and failed on

    @property
    def passed(self) -> int:
        return sum(c.passed for c in self.arms.values())

    @property
    def failed(self) -> int:
        return sum(c.failed for c in self.arms.values())


@dataclass(frozen=True, slots=True)
class SkillShare:
    """How many of a skill's items cannot tell; `mostly` puts a line near the top."""

    suite: str
    items: int
    cannot_tell: int

    @property
    def mostly(self) -> bool:
        return self.items > 0 and self.cannot_tell / self.items > MOSTLY


def classify(arms: Mapping[Side, ArmCounts]) -> tuple[Discrimination, tuple[Side, ...]]:
    graded = {side: c for side, c in arms.items() if c.passed + c.failed}
    if not graded:
        return Discrimination.TELLS, ()
    if all(c.passed == 0 for c in graded.values()):
        return Discrimination.BROKEN, ()
    if all(c.failed == 0 for c in graded.values()):
        if Side.NO_SKILL in graded and len(graded) > 1:
            return Discrimination.NOTHING_ADDED, ()
        return Discrimination.PASSES_EVERYWHERE, ()
    mixed = tuple(side for side, c in graded.items() if c.mixed)
    return (Discrimination.UNSTABLE, mixed) if mixed else (Discrimination.TELLS, ())


def records(runs: Iterable[RunResult]) -> tuple[ItemRecord, ...]:
    """One record per (suite, case, item), by suite, case and the item's place in its case
    (the same whatever order the runs come in: a merged report lists them as one job does)."""
    counts: dict[tuple[str, str, str], dict[Side, list[int]]] = {}
    about: dict[tuple[str, str, str], tuple[str, str, int]] = {}
    for run in runs:
        if run.status is Status.ERROR:
            continue
        for place, item in enumerate(run.items):
            if item.passed is None:
                continue
            key = (run.suite, run.case_id, item.item_id)
            known = about.get(key)
            if known is None or place < known[2]:
                about[key] = (item.text, item.kind, place)
            tally = counts.setdefault(key, {}).setdefault(run.side, [0, 0])
            tally[0 if item.passed else 1] += 1
    out = []
    for key in sorted(counts, key=lambda k: (k[0], k[1], about[k][2], k[2])):
        by_side = counts[key]
        arms = {side: ArmCounts(*by_side[side]) for side in Side if side in by_side}
        finding, unstable_on = classify(arms)
        text, kind, _ = about[key]
        out.append(ItemRecord(*key, text, kind, arms, finding, unstable_on))
    return tuple(out)


def shares(found: Iterable[ItemRecord]) -> tuple[SkillShare, ...]:
    per: dict[str, list[bool]] = {}
    for record in found:
        per.setdefault(record.suite, []).append(record.finding.cannot_tell)
    return tuple(SkillShare(s, len(v), sum(v)) for s, v in per.items())
