"""The regression verdict: one family of decisions for the whole pull request.

`decide(cells, alpha)` is a pure function of pass/fail/error counts per (suite, case, model)
and `alpha`, the chance of a false "regressed" the check allows per pull request however
many skills, cases and models it has. Everything the reader and the branch rule see (the rows
of the table, the headline, the check, the outputs, the exit code) is read from its result.

The rule (docs/verdict.md has the simulation behind it):

1. Per case, pooled over its models, a one-sided exact test of a drop (`tails.tail`). When two
   or more of its models are informative, each (case, model) cell is tested as well, so a drop
   on one model cannot hide behind a rise on another.
2. Discrete Holm over all of those at 0.8·alpha: a case whose runs could never reach the
   critical value (it passed every run on both sides, say) spends nothing.
3. Per suite with two or more informative cases, the same test over all its cells; discrete
   Holm over suites at 0.2·alpha. This catches many small drops that no case shows alone.
4. Something regressed iff step 2 or 3 names it. Improvements never enter a drop test, so a
   case that rose cannot offset one that fell.

The shares depend on the margins only (runs per side, passes on both sides), on which every
test here is conditioned, so the split can follow them without losing the guarantee: when no
suite test could reach 0.2·alpha at these margins, the cases get all of alpha. Each adjusted
p-value is on the pull request's scale (already divided by its share), so a row regressed
exactly when its adjusted p-value is at most alpha.

"Improved" is decided by the mirror image of the same rule (the failures' drop), at alpha; it
never changes the check. A case is *undetectable* when even the most extreme outcome its runs
allow (every base run passed, every head run failed, on every model) could not be flagged
next to this pull request's other cases: the comment then says so, with `runs_needed`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import lru_cache

from evolve_action.verdict.budget import SUITE_SHARE, TIE, CaseKey, Detector, at_level, share_for
from evolve_action.verdict.sequential import CellKey  # (suite, case id, model)
from evolve_action.verdict.tails import (
    Margins,
    Tail,
    discrete_holm,
    informative,
    surely_above,
    tail,
)


class Finding(StrEnum):
    REGRESSED = "regressed"
    DROPPED = "dropped"  # fell, but not significantly once the whole PR is accounted for
    IMPROVED = "improved"
    UNCHANGED = "unchanged"


@dataclass(frozen=True, slots=True)
class Cell:
    """One case on one model: graded runs per side (errors apart, never passes or failures)."""

    base_passed: int
    base_failed: int
    head_passed: int
    head_failed: int
    base_errored: int = 0
    head_errored: int = 0

    @property
    def runs(self) -> tuple[int, int]:
        """Graded runs (head, base)."""
        return self.head_passed + self.head_failed, self.base_passed + self.base_failed

    @property
    def margins(self) -> Margins:
        return (*self.runs, self.head_passed + self.base_passed)

    @property
    def compared(self) -> bool:
        return all(self.runs)

    @property
    def shift(self) -> float:
        """Head pass rate minus base pass rate (0 when a side has no graded run)."""
        head, base = self.runs
        return self.head_passed / head - self.base_passed / base if head and base else 0.0

    def mirrored(self) -> Cell:
        """Passes and failures swapped: a rise of this cell is a drop of the mirror."""
        return Cell(self.base_failed, self.base_passed, self.head_failed, self.head_passed)


@dataclass(frozen=True, slots=True)
class Decision:
    finding: Finding
    adjusted_p: float | None = None  # drop's for regressed/dropped, rise's otherwise


@dataclass(frozen=True, slots=True)
class CaseVerdict:
    finding: Finding
    adjusted_p: float | None
    rows: Mapping[str, Decision]  # model → its row in the table
    detectable: bool = True  # a complete break of this case could be flagged here
    runs_needed: int | None = None  # graded runs per side that would make it detectable
    runs: int = 0  # fewest graded runs on one side of one of its models
    errored: int = 0  # its runs that errored, both sides


@dataclass(frozen=True, slots=True)
class SuiteVerdict:
    finding: Finding
    adjusted_p: float | None
    cases: int  # informative cases its pooled test covered


@dataclass(frozen=True)
class Verdict:
    alpha: float
    case_share: float = 1.0  # of alpha; the rest goes to the suites
    cases: Mapping[CaseKey, CaseVerdict] = field(default_factory=dict)
    suites: Mapping[str, SuiteVerdict] = field(default_factory=dict)

    @property
    def regressed_cases(self) -> list[CaseKey]:
        return [k for k, c in self.cases.items() if c.finding is Finding.REGRESSED]

    @property
    def regressed_suites(self) -> list[str]:
        return [k for k, s in self.suites.items() if s.finding is Finding.REGRESSED]

    @property
    def broad_suites(self) -> list[str]:
        """Regressed suites that say more than their regressed cases do: some of the cases
        that fell are not significant alone (often none is)."""
        dropped = {k[0] for k, c in self.cases.items() if c.finding is Finding.DROPPED}
        return [s for s in self.regressed_suites if s in dropped]

    @property
    def regressed(self) -> bool:
        return bool(self.regressed_cases or self.regressed_suites)

    @property
    def too_few_runs(self) -> list[CaseKey]:
        return [k for k, c in self.cases.items() if not c.detectable]

    def row(self, key: CellKey) -> Decision | None:
        case = self.cases.get((key[0], key[1]))
        return case.rows.get(key[2]) if case is not None else None


@dataclass
class _Direction:
    """One direction's tests (drops, or the mirror's drops = rises) and adjusted p-values."""

    share: float
    case: dict[CaseKey, float]
    cell: dict[CellKey, float]
    suite: dict[str, float]
    tails: list[tuple[CaseKey, Tail]]  # the case family, by owner
    floors: dict[str, dict[CaseKey, float]]  # suite → informative case → its smallest p


@lru_cache(maxsize=262_144)
def _tests(
    cells: tuple[tuple[Margins, int], ...],
) -> tuple[Tail, tuple[tuple[int, Tail], ...], tuple[tuple[Margins, int], ...]] | None:
    """One case's tests from its cells' (margins, head passes), in model order: the pooled
    test, the per-model tests (when two or more models are informative, by model index), and
    the informative cells. None when no cell is informative. Cached: cases repeat."""
    used = [(i, m, h) for i, (m, h) in enumerate(cells) if informative(m)]
    if not used:
        return None
    pooled = tail([m for _, m, _ in used], sum(h for *_, h in used))
    per_model = tuple((i, tail([m], h)) for i, m, h in used) if len(used) >= 2 else ()
    return pooled, per_model, tuple((m, h) for _, m, h in used)


def _direction(
    cases: Mapping[CaseKey, Mapping[str, Cell]], alpha: float, fast: bool, fixed: float | None
) -> _Direction:
    owned: list[tuple[CaseKey, str | None, Tail]] = []
    floors: dict[str, dict[CaseKey, float]] = {}
    pooled: dict[str, list[tuple[Margins, int]]] = {}
    for key, cells in cases.items():
        models = list(cells)
        tests = _tests(tuple((c.margins, c.head_passed) for c in cells.values()))
        if tests is None:
            continue
        case_tail, cell_tails, used = tests
        owned.append((key, None, case_tail))
        owned += [(key, models[i], t) for i, t in cell_tails]
        floors.setdefault(key[0], {})[key] = case_tail.floor
        pooled.setdefault(key[0], []).extend(used)
    strata = {
        s: ([m for m, _ in cells], sum(h for _, h in cells))
        for s, cells in pooled.items()
        if len(floors[s]) >= 2
    }
    share = fixed if fixed is not None else share_for(floors, alpha)
    adjusted = discrete_holm([t for *_, t in owned], stop_above=share * alpha if fast else 1.0)
    case: dict[CaseKey, float] = {}
    cell: dict[CellKey, float] = {}
    for (key, model, _), a in zip(owned, adjusted, strict=True):
        p = min(1.0, a / share)
        if model is None:
            case[key] = p
        else:
            cell[(*key, model)] = p
    tails = [(key, t) for key, _, t in owned]
    return _Direction(share, case, cell, _suites(strata, alpha, fast), tails, floors)


def _suites(
    strata: Mapping[str, tuple[list[Margins], int]], alpha: float, fast: bool
) -> dict[str, float]:
    """Adjusted p-values of the suite family. A fast decision convolves only the suites whose
    p-value could be at most the suites' level; unless one is, nothing there can be rejected."""
    level = SUITE_SHARE * alpha
    if fast:
        open_ = {s: tail(*v) for s, v in strata.items() if not surely_above(*v, level * (1 + TIE))}
        if not any(at_level(t.p, level) for t in open_.values()):
            return dict.fromkeys(strata, 1.0)
        tails = {s: open_.get(s) or tail(*v) for s, v in strata.items()}
    else:
        tails = {s: tail(*v) for s, v in strata.items()}
    adjusted = discrete_holm(list(tails.values()), stop_above=level if fast else 1.0)
    return {s: min(1.0, a / SUITE_SHARE) for s, a in zip(tails, adjusted, strict=True)}


def decide(
    cells: Mapping[CellKey, Cell],
    alpha: float,
    *,
    detail: bool = True,
    case_share: float | None = None,
) -> Verdict:
    """The verdict on these counts.

    `detail=False` decides only what regressed, for simulations: the same decisions, but
    `cases` holds only the regressed ones, nothing is labelled "improved", nothing is checked
    for detectability, and adjusted p-values above alpha are only lower bounds. `case_share`
    fixes the cases' share of alpha (0.8 is the reference rule of verdict.md); by default it
    is 0.8, or all of alpha when no suite test could reach its own share at these margins.
    """
    cases: dict[CaseKey, dict[str, Cell]] = {}
    for (suite, case_id, model), c in cells.items():
        if c.compared:
            cases.setdefault((suite, case_id), {})[model] = c
    drop = _direction(cases, alpha, not detail, case_share)
    rise = None
    if detail:
        mirror = {k: {m: c.mirrored() for m, c in v.items()} for k, v in cases.items()}
        rise = _direction(mirror, alpha, False, case_share)
    if detail:
        verdicts = {k: _case(k, v, drop, rise, alpha) for k, v in cases.items()}
        detector = Detector(drop.tails, drop.floors, alpha, case_share)
        for key, v in verdicts.items():
            if v.finding is not Finding.REGRESSED:
                found, needed = detector.check(key, [c.runs for c in cases[key].values()])
                verdicts[key] = replace(v, detectable=found, runs_needed=needed)
    else:  # only what regressed
        hit = {k[:2] for k, p in drop.cell.items() if at_level(p, alpha)}
        hit |= {k for k, p in drop.case.items() if at_level(p, alpha)}
        verdicts = {k: _case(k, v, drop, None, alpha) for k, v in cases.items() if k in hit}
    suites: dict[str, SuiteVerdict] = {}
    for s, down in drop.suite.items():
        up = rise.suite.get(s) if rise else None
        finding = Finding.REGRESSED if at_level(down, alpha) else Finding.UNCHANGED
        if finding is Finding.UNCHANGED and at_level(up, alpha):
            finding = Finding.IMPROVED
        shown = down if finding is Finding.REGRESSED or up is None or down < up else up
        suites[s] = SuiteVerdict(finding, shown, len(drop.floors[s]))
    return Verdict(alpha, drop.share, verdicts, suites)


def _case(
    key: CaseKey,
    cells: Mapping[str, Cell],
    drop: _Direction,
    rise: _Direction | None,
    alpha: float,
) -> CaseVerdict:
    rows: dict[str, Decision] = {}
    for model, c in cells.items():
        down = drop.cell.get((*key, model), 1.0)
        if c.shift < 0:
            down = min(down, drop.case.get(key, 1.0))
        up = None
        if rise is not None and c.shift > 0:
            up = min(rise.cell.get((*key, model), 1.0), rise.case.get(key, 1.0))
        if at_level(down, alpha):
            rows[model] = Decision(Finding.REGRESSED, down)
        elif c.shift < 0:
            rows[model] = Decision(Finding.DROPPED, down)
        elif at_level(up, alpha):
            rows[model] = Decision(Finding.IMPROVED, up)
        else:
            rows[model] = Decision(Finding.UNCHANGED, up)
    down = min([drop.case.get(key, 1.0), *(drop.cell.get((*key, m), 1.0) for m in cells)])
    return combine(rows, cells, regressed=at_level(down, alpha), down=down)


def combine(
    rows: Mapping[str, Decision], cells: Mapping[str, Cell], *, regressed: bool, down: float
) -> CaseVerdict:
    """One eval's finding from its per-model rows: regressed when a row is, or when the pooled
    test (`regressed`) says so; else dropped, improved or unchanged. `down` is the adjusted p
    shown for a fall. The fixed-N and the sequential verdict both decide an eval this way."""
    findings = {r.finding for r in rows.values()}
    ups = [r.adjusted_p for r in rows.values() if r.finding is Finding.IMPROVED]
    adjusted: float | None
    if Finding.REGRESSED in findings or regressed:
        finding, adjusted = Finding.REGRESSED, down
    elif Finding.DROPPED in findings:
        finding, adjusted = Finding.DROPPED, down
    elif ups:
        finding, adjusted = Finding.IMPROVED, min(p for p in ups if p is not None)
    else:
        finding, adjusted = Finding.UNCHANGED, None
    return CaseVerdict(
        finding,
        adjusted,
        dict(rows),
        runs=min(min(c.runs) for c in cells.values()),
        errored=sum(c.base_errored + c.head_errored for c in cells.values()),
    )
