"""The cost projection and the budget's ceiling against agents that spend differently, run
the Actions way (`INPUT_*`, an event file, the GitHub and LLM fakes, the real process).

For each of three agents (few turns and short answers, the typical three turns, many turns
and long answers; `tests/fakes/behaviours.py`), on a cold first push (under a budget far
above its cost, so that it runs in two waves and cuts nothing):
- the cost the job made falls inside the range it projected before its first call;
- the projection it printed after the first wave is within a quarter of that cost;
- the comment's footer shows the projection's range;
and with `max-cost-usd` at a third of that cost, on a fresh cache: the job spends at most
the budget plus what its runs cost beyond the estimates they were admitted at (the bound of
docs/usage.md, which the comment states when the spend went past), no base/head pair is
split, the check is neutral, and the comment names what was cut.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_pull_request import REPO, container_env, make_repo, outputs, run_container
from tests.fakes.behaviours import BEHAVIOURS, Behaviour
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import FakeLLM

RANGE = re.compile(r"Projected cost: \$([0-9.]+) .*?; between \$([0-9.,]+) and \$([0-9.,]+)")
AGAIN = re.compile(r"After the first wave \(.*?\): .*? so \$([0-9.,]+) in all")
OVER = re.compile(r"runs already started cost \$([0-9.,]+) beyond the estimates")
PAIRED = ("greet", "bye")  # the cases both sides hold
ROOMY = "1000"


def _usd(text: str) -> float:
    return float(text.replace(",", ""))


@pytest.fixture(params=BEHAVIOURS, ids=lambda b: b.name)
def served(request: pytest.FixtureRequest) -> Iterator[tuple[Behaviour, FakeLLM, GitHubFake]]:
    behaviour: Behaviour = request.param
    with FakeLLM(behaviour) as llm, GitHubFake() as gh:
        yield behaviour, llm, gh
        assert not llm.script_errors, llm.script_errors


def _job(
    tmp: Path, root: Path, llm: FakeLLM, gh: GitHubFake, sides: tuple[str, str], **inputs: str
) -> tuple[str, list[dict[str, object]]]:
    tmp.mkdir(parents=True, exist_ok=True)
    env = {**container_env(root, tmp, llm, gh, *sides), "INPUT_RUNS": "3"}
    env.update({f"INPUT_{k.upper().replace('_', '-')}": v for k, v in inputs.items()})
    done = run_container(env, root)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    runs = json.loads((tmp / "results/results.json").read_text())["runs"]
    return done.stdout, runs


def _paid(runs: list[dict[str, object]]) -> float:
    return sum(float(r["cost_usd"] or 0.0) for r in runs if not r["cached"])  # type: ignore[arg-type]


def test_a_cold_push_costs_inside_the_range_and_the_second_projection_is_within_a_quarter(
    served: tuple[Behaviour, FakeLLM, GitHubFake], tmp_path: Path
) -> None:
    _, llm, gh = served
    root, base, head = make_repo(tmp_path)
    # A budget far above the cost: the first wave, and the projection after it, without a cut.
    out, runs = _job(tmp_path / "cold", root, llm, gh, (base, head), max_cost_usd=ROOMY)
    actual = _paid(runs)
    found = RANGE.search(out)
    assert found, out[-3000:]
    low, high = _usd(found.group(2)), _usd(found.group(3))
    assert low <= actual <= high, (low, actual, high)
    again = AGAIN.search(out)
    assert again, out[-3000:]
    assert abs(_usd(again.group(1)) / actual - 1) <= 0.25, (again.group(0), actual)
    assert float(outputs(tmp_path / "cold/output")["cost-usd"]) == pytest.approx(actual, abs=1e-3)
    (comment,) = gh.comments[(REPO, 7)]  # the footer shows the range, not a point alone
    assert re.search(r"📐 projected \S+ \(\S+ to \$[0-9.,]+\)", comment["body"]), comment["body"]


def test_a_budget_of_a_third_is_a_ceiling_cut_in_whole_pairs_and_named(
    served: tuple[Behaviour, FakeLLM, GitHubFake], tmp_path: Path
) -> None:
    _, llm, gh = served
    root, base, head = make_repo(tmp_path)
    _, cold = _job(tmp_path / "cold", root, llm, gh, (base, head))
    limit = _paid(cold) / 3
    gh.comments.clear()
    gh.check_runs.clear()
    out, runs = _job(tmp_path / "cut", root, llm, gh, (base, head), max_cost_usd=f"{limit:.6f}")
    spent = _paid(runs)
    over = OVER.search(out)
    bound = limit + (_usd(over.group(1)) if over else 0.0)
    assert spent <= bound + 1e-6, (spent, limit, out[-3000:])
    made: dict[tuple[object, ...], set[object]] = {}
    for r in runs:
        if r["case_id"] in PAIRED:
            made.setdefault((r["suite"], r["case_id"], r["model"], r["repetition"]), set()).add(
                r["side"]
            )
    assert all(sides == {"base", "head"} for sides in made.values()), made
    (comment,) = gh.comments[(REPO, 7)]
    assert "Cut by max-cost-usd: evals/" in comment["body"]
    assert "incomplete" in comment["body"]
    (check,) = gh.check_runs
    assert check["conclusion"] == "neutral", check
