"""Which suites run on each side, and which part of the plan this shard takes.

In: the suites loaded from both trees and what the change touched (`Sides`); out: the suites
to run on head and on base (`Selection`), and, under `shard`, a stable part of the plan that
every shard of the job computes alike without talking to the others.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from evolve_action.model.evals import Format, Suite
from evolve_action.plan.changes import affected
from evolve_action.plan.planning import Plan
from evolve_action.plan.sides import Sides
from evolve_action.settings.inputs import Mode, Shard


def inherit_trigger_models(suites: Sequence[Suite]) -> list[Suite]:
    """A trigger set runs on the models its sibling evals file allows, as in evolve."""
    evals_models = {
        PurePosixPath(s.rel).parent: s.models for s in suites if s.format is Format.EVOLVE
    }
    out = []
    for suite in suites:
        sibling = evals_models.get(PurePosixPath(suite.rel).parent)
        if suite.format is Format.TRIGGERS and not suite.models and sibling:
            suite = replace(suite, models=sibling)
        out.append(suite)
    return out


@dataclass
class Selection:
    head: list[Suite]
    base: list[Suite]
    removed: list[str]  # eval files the change deleted


def select(head: Sequence[Suite], base: Sequence[Suite], sides: Sides, mode: Mode) -> Selection:
    """The suites to run on each side: all of them, or those the change touched."""
    if sides.base_root is None:
        return Selection(list(head), [], [])
    head_rels = {s.rel for s in head}
    everything = mode is not Mode.CHANGED  # `calibrate` runs every eval too
    chosen = list(head) if everything else affected(head, sides.head_root, sides.changed)
    rels = {s.rel for s in chosen}
    removed = [
        s.rel for s in base if s.rel not in head_rels and (everything or s.rel in sides.changed)
    ]
    # A deleted eval file still runs on base: its cases are listed as removed, with their
    # last base pass rate, never dropped silently.
    kept = rels | set(removed)
    return Selection(chosen, [s for s in base if s.rel in kept], removed)


def shard_plan(plan: Plan, shard: Shard) -> Plan:
    """A stable part of the plan: every run lands in exactly one of `count` shards."""
    if shard.count == 1:
        return plan
    keep = [
        r
        for r in plan.runs
        if int(hashlib.sha256(r.key.encode()).hexdigest()[:8], 16) % shard.count == shard.index - 1
    ]
    return Plan(keep, plan.skipped)
