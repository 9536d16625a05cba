"""Every scenario of the verdict table (docs/verdict.md, "What it measured") through the
public path: runs → `stats.aggregate` → `gate.evaluate` → the comment, so the rows, the
headline, the check's conclusion, the exit code and the `regressions` output agree."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from evolve_action.model.evals import Suite
from evolve_action.model.outcomes import RunResult
from evolve_action.publish.render.build.assemble import build_view
from evolve_action.publish.render.comment import render
from evolve_action.settings.inputs import Settings
from evolve_action.verdict.gate import evaluate
from evolve_action.verdict.significance import Label
from tests.fakes.reports import M1, M2, make_report, make_suite, outcome

Counts = tuple[int, int]  # (passed, failed)
CellSpec = tuple[str, str, str, Counts, Counts, int]  # skill, case, model, base, head, errored


@dataclass
class Scenario:
    name: str
    cells: list[CellSpec]
    conclusion: str
    regressed: set[str] = field(default_factory=set)  # cases whose rows are regressed
    skills: set[str] = field(default_factory=set)  # skills regressed as a whole
    says: tuple[str, ...] = ()  # in the rendered comment

    def runs(self) -> tuple[list[Suite], list[RunResult]]:
        skills: dict[str, list[str]] = {}
        for skill, case, *_ in self.cells:
            skills.setdefault(skill, [])
            if case not in skills[skill]:
                skills[skill].append(case)
        suites = {
            s: make_suite(s, [(c, 10 + 5 * i) for i, c in enumerate(cases)])
            for s, cases in skills.items()
        }
        runs: list[RunResult] = []
        for skill, case, model, base, head, errored in self.cells:
            runs += outcome(suites[skill], case, model, base=base, head=head, errored=errored)
        return list(suites.values()), runs


def both(
    skill: str, case: str, base: Counts, head: Counts, models: tuple[str, ...] = (M1, M2)
) -> list[CellSpec]:
    return [(skill, case, m, base, head, 0) for m in models]


SCENARIOS = [
    Scenario(
        "status-file 4/4 → 0/4 and farewell 0/4 → 4/4 on 2 models",
        both("greeter", "status-file", (4, 0), (0, 4)) + both("farewell", "bye", (0, 4), (4, 0)),
        "failure",
        {"status-file"},
        says=(
            "❌ evolve: 1 eval regressed",
            "**▲ Improved:** farewell / `bye` on both models (0/4 → 4/4)",
        ),
    ),
    Scenario(
        "the same on 1 model",
        both("greeter", "status-file", (4, 0), (0, 4), (M1,))
        + both("farewell", "bye", (0, 4), (4, 0), (M1,)),
        "failure",
        {"status-file"},
    ),
    Scenario(
        "5/5 → 0/5 on model A and 0/5 → 5/5 on model O, one case",
        [("greeter", "flip", M1, (5, 0), (0, 5), 0), ("greeter", "flip", M2, (0, 5), (5, 0), 0)],
        "failure",
        {"flip"},
    ),
    Scenario(
        "5/5 → 0/5 among 12 flaky cases, 1 model",
        [("greeter", "broken", M1, (5, 0), (0, 5), 0)]
        + [
            ("greeter", f"flaky-{i}", M1, (2, 3), (3, 2) if i % 2 else (2, 3), 0) for i in range(12)
        ],
        "failure",
        {"broken"},
    ),
    Scenario(
        "3 skills × 5 cases × 2 models, one case 5/5 → 0/5",
        [
            cell
            for s in range(3)
            for c in range(5)
            for cell in both(
                f"skill-{s}", f"s{s}-c{c}", (5, 0), (0, 5) if (s, c) == (1, 2) else (5, 0)
            )
        ],
        "failure",
        {"s1-c2"},
    ),
    Scenario(
        "5/5 → 0/5 on 2 models while 10 cases rise 0/5 → 5/5",
        both("greeter", "broken", (5, 0), (0, 5))
        + [cell for i in range(10) for cell in both("greeter", f"up-{i}", (0, 5), (5, 0))],
        "failure",
        {"broken"},
    ),
    Scenario(
        "8 cases 5/5 → 3/5, 1 model",
        [("greeter", f"c{i}", M1, (5, 0), (3, 2), 0) for i in range(8)],
        "failure",
        skills={"greeter"},
        says=("❌ evolve: 1 skill regressed (many small drops)", "fell together", "Dropped, not"),
    ),
    Scenario(
        "20 cases 9/10 → 7/10 on 2 models",
        [cell for i in range(20) for cell in both("greeter", f"c{i}", (9, 1), (7, 3))],
        "failure",
        skills={"greeter"},
    ),
    Scenario(
        "4/4 → 0/2 graded, 2 runs errored, on 2 models",
        [("greeter", "c", m, (4, 0), (0, 2), 2) for m in (M1, M2)],
        "failure",
        {"c"},
        says=("0/2 +2 errored",),
    ),
    Scenario(
        "20 cases, identical counts",
        [cell for i in range(20) for cell in both("greeter", f"c{i}", (3, 2), (3, 2))],
        "success",
    ),
    Scenario(
        "only improvements (0/5 → 5/5)",
        both("greeter", "c", (0, 5), (5, 0)),
        "success",
        says=("✅ evolve: 1 eval improved",),
    ),
    Scenario(
        "3/3 → 0/3 and 0/3 → 3/3 on 1 model, N=3",
        [
            ("greeter", "status-file", M1, (3, 0), (0, 3), 0),
            ("greeter", "farewell", M1, (0, 3), (3, 0), 0),
        ],
        "neutral",
        says=(
            "too few runs to tell (2 evals; 4 runs per side would do)",
            "**Too few runs to tell:** `status-file`, `farewell`: with 3 graded runs per side,"
            " even 3/3 → 0/3 could not be flagged among the 2 evals compared here;"
            " 4 runs per side would do.",
            "**▽ Dropped, not significant**",
        ),
    ),
]


@pytest.mark.parametrize("s", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_scenario_gets_its_verdict(s: Scenario) -> None:
    suites, runs = s.runs()
    report = make_report(suites, runs)
    agg = report.aggregate
    gate = evaluate(agg, Settings())
    assert (gate.conclusion, gate.exit_code) == (s.conclusion, int(s.conclusion == "failure"))
    rows = {c.case_id for c in agg.cases if c.label is Label.REGRESSED}
    assert rows == s.regressed
    skills = {suite.skill.name for suite in suites if suite.rel in agg.verdict.broad_suites}
    assert skills == s.skills
    assert gate.regressions == len(s.regressed) + len(s.skills)
    text = render(build_view(report))
    for phrase in s.says:
        assert phrase in text
    # One decision everywhere: no "Regressed" heading without a failing gate, and no
    # "within noise" anywhere.
    assert ("**▼ Regressed**" in text) == (s.conclusion == "failure")
    assert "within noise" not in text
