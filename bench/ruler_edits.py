"""A/A pull requests whose checks were edited without weakening them (issue 26), for
`bench/verdict.py`'s `edited` scenario.

Nothing gets worse: base and head runs pass with the same probability under base's checks.
In each simulated PR, every case has its checks edited with probability one half, each edit
stricter or neutral (a tightened regex, an added check, a raised threshold): head's runs under
head's own checks keep each pass with a probability drawn uniformly on [0.3, 1], so they can
only fail more. A fifth of the edited cases is renamed as well (same task, new id). The
product then tests base's ruler (base runs against head runs, both under base's checks) for
every edited case and leaves the case's own two-ruler comparison untested; the unedited cases
are tested as always. A false alarm is any "regressed".

`decide_cells` is what the verdict sees; `through_product` makes the same PR's runs, with
their `RulerGrade`s and `CaseDiff`s, and decides it through `stats.aggregate` and
`verdict.ruler`, the product's own path, so the simulation can check the two agree.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from evolve_action.model.outcomes import RulerGrade, RunResult, Side, Status
from evolve_action.plan.ruler import CaseChange, CaseDiff
from evolve_action.verdict import ruler_cells
from evolve_action.verdict.decide import Cell
from evolve_action.verdict.sequential import CellKey
from evolve_action.verdict.stats import aggregate

EDITED = 0.5  # share of cases whose checks a PR edits
RENAMED = 0.2  # of those, renamed too
STRICTNESS = (0.3, 1.0)  # a head pass survives head's stricter checks with p uniform on this


@dataclass(frozen=True)
class EditedPR:
    cells: dict[CellKey, Cell]  # every case's counts under base's checks, both sides
    own_head: dict[CellKey, int]  # head passes under head's own checks (edited cases)
    diffs: tuple[CaseDiff, ...]


def edit(cells: dict[CellKey, Cell], rng: random.Random) -> EditedPR:
    """Edit the checks of about half the cases of one A/A pull request."""
    diffs: dict[tuple[str, str], CaseDiff] = {}
    for suite, case in dict.fromkeys(key[:2] for key in cells):
        if rng.random() < EDITED:
            renamed = rng.random() < RENAMED
            change = CaseChange.RENAMED if renamed else CaseChange.CHANGED_RULER
            head = f"{case}-renamed" if renamed else case
            diffs[(suite, case)] = CaseDiff(suite, change, case, head, ("regex /a/ → /^a$/",))
    own: dict[CellKey, int] = {}
    for key, c in cells.items():
        if key[:2] in diffs:
            keep = rng.uniform(*STRICTNESS)
            own[key] = sum(rng.random() < keep for _ in range(c.head_passed))
    return EditedPR(cells, own, tuple(diffs.values()))


def decide_cells(pr: EditedPR) -> dict[CellKey, Cell]:
    """The verdict's cells: an edited case's ruler cell in place of its own comparison."""
    edited = {(d.suite, d.base_case): d for d in pr.diffs}
    out: dict[CellKey, Cell] = {}
    for (suite, case, model), c in pr.cells.items():
        diff = edited.get((suite, case))
        out[(suite, ruler_cells.ruler_id(diff), model) if diff else (suite, case, model)] = c
    return out


def _runs(key: CellKey, side: Side, passed: int, total: int) -> list[RunResult]:
    statuses = [Status.PASS] * passed + [Status.FAIL] * (total - passed)
    return [RunResult(*key, side, i + 1, s) for i, s in enumerate(statuses)]


def through_product(pr: EditedPR, alpha: float) -> bool:
    """Whether the product's own path (runs → `stats.aggregate`) flags this pull request."""
    edited = {(d.suite, d.base_case): d for d in pr.diffs}
    runs: list[RunResult] = []
    for key, c in pr.cells.items():
        n = c.base_passed + c.base_failed
        runs += _runs(key, Side.BASE, c.base_passed, n)
        diff = edited.get(key[:2])
        if diff is None:
            runs += _runs(key, Side.HEAD, c.head_passed, n)
            continue
        head_key = (key[0], diff.head_case, key[2])
        own = pr.own_head[key]
        for i in range(n):
            ruled = Status.PASS if i < c.head_passed else Status.FAIL
            status = Status.PASS if i < own else Status.FAIL  # stricter: a subset of passes
            grade = RulerGrade("bench", diff.base_case, ruled)
            runs.append(RunResult(*head_key, Side.HEAD, i + 1, status, ruler=grade))
    agg = aggregate(
        runs,
        alpha=alpha,
        verdict_only=ruler_cells.ruler_runs(runs, pr.diffs),
        not_compared=ruler_cells.not_compared(pr.diffs),
    )
    return agg.verdict.regressed
