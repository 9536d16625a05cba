"""The no-skill arm end to end, the Actions way (`INPUT_*`, an event file, real git, the
loopback fakes): a pull request adds a skill, so `baseline: auto` runs its cases without it
too. The scripted model does the skill's trick only when the skill is listed in its system
prompt, so the lift is real and the comment shows it with its adjusted p; a check that
passes without the skill and one that fails everywhere are named; a second push that edits
the skill makes no no-skill call (the arm's fingerprint leaves the skill out); and
`baseline: none` makes none at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.model.outcomes import Side
from evolve_action.model.records import run_cost
from evolve_action.publish.results.load import load_results
from evolve_action.publish.results.write import slug
from tests.e2e.test_pull_request import (
    REPO,
    SKILL,
    container_env,
    evals,
    outputs,
    regex_case,
    run_container,
)
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import Answer, FakeLLM, Request, call, text
from tests.fakes.scripts import grading, tool_names
from tests.gitrepo import commit_base, git, put

BENCHMARK_SCHEMA = Path(__file__).parents[1] / "data" / "skill_creator_benchmark.schema.json"


def poem_case() -> dict[str, object]:
    return {
        "id": "poem",
        "prompt": "Write a short poem into poem.txt.",
        "assertions": [
            # Only the skill's instructions lead to this: the lift.
            {"type": "regex", "path": "poem.txt", "pattern": "^ROSES"},
            # Any poem passes this, with or without the skill: it tests nothing the skill adds.
            {"type": "regex", "path": "poem.txt", "pattern": "(?i)are"},
        ],
    }


def broken_case() -> dict[str, object]:
    return {
        "id": "sonnet",
        "prompt": "Write a sonnet into poem.txt.",
        "assertions": [{"type": "regex", "path": "poem.txt", "pattern": "^FOURTEEN LINES$"}],
    }


def make_repo(tmp_path: Path) -> tuple[Path, str, str]:
    """Base: the greeter skill. Head: the same, plus a new skill `poet` and its evals."""
    root = tmp_path / "repo"
    put(root, ".claude-plugin/plugin.json", '{"name": "demo"}')
    put(root, "skills/greeter/SKILL.md", SKILL.format(name="greeter", body="Write `Hello`."))
    put(root, "evals/greeter/evals.json", evals(regex_case("hi", "Hello")))
    base = commit_base(root)
    put(root, "skills/poet/SKILL.md", SKILL.format(name="poet", body="Start with `ROSES`."))
    put(root, "evals/poet/evals.json", evals(poem_case(), broken_case()))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "add poet")
    return root, base, git(root, "rev-parse", "HEAD")


class Poet:
    """The agent: with `poet` listed it loads it and starts with ROSES; without, it writes a
    plain poem. Counts the conversations it starts, with and without the skill."""

    def __init__(self) -> None:
        self.started = {"skill": 0, "no skill": 0}

    def __call__(self, request: Request) -> Answer:
        if "submit_grading" in tool_names(request):
            return grading(request)
        listed = "- poet:" in request.system
        if request.turn == 0:
            self.started["skill" if listed else "no skill"] += 1
            if listed:
                return call("Skill", skill="poet")
            return call("Write", file_path="poem.txt", content="violets are blue\n")
        if request.turn == 1 and listed:
            return call("Write", file_path="poem.txt", content="ROSES are red\n")
        return text("Done.")


@pytest.fixture
def fakes() -> Iterator[tuple[FakeLLM, GitHubFake, Poet]]:
    poet = Poet()
    with FakeLLM(poet) as llm, GitHubFake() as gh:
        yield llm, gh, poet
        assert not llm.script_errors, llm.script_errors


def _env(
    root: Path, tmp: Path, llm: FakeLLM, gh: GitHubFake, base: str, head: str
) -> dict[str, str]:
    env = container_env(root, tmp, llm, gh, base, head)
    env["INPUT_MODELS"] = "anthropic"
    return env


def test_no_skill_arm__new_skill_shows_lift_names_checks_that_cannot_tell_and_caches(
    fakes: tuple[FakeLLM, GitHubFake, Poet], tmp_path: Path
) -> None:
    llm, gh, poet = fakes
    root, base, head = make_repo(tmp_path)
    env = _env(root, tmp_path, llm, gh, base, head)

    first = run_container(env, root)
    # The lift never fails the check by itself; `sonnet` fails on head, a new eval: no verdict.
    assert first.returncode == 0, (first.stdout + first.stderr, gh.check_runs[-1]["output"])
    assert poet.started == {"skill": 8, "no skill": 8}  # 2 cases × 4 runs on each arm

    body = gh.comments[(REPO, 7)][0]["body"]
    assert "| skill | model | base → head | verdict | no skill |" in body
    row = next(line for line in body.splitlines() if line.startswith("| poet |"))
    # Head 50% (poem 4/4, sonnet 0/4), no skill 0%: two new cases, nothing to compare.
    assert "| 50% (new evals only) | 2 new | 0%, lift +50 pts ▲ p = 0.0" in row, row
    assert "its own at 0.05" in body  # the legend: a family of its own
    section = body.split("Checks that cannot tell", 1)[1]
    assert "`poem`" in section and "(?i)are" in section
    assert "passes without the skill: it tests nothing the skill adds" in section
    assert "`sonnet`" in section and "fails everywhere: broken or too strict" in section
    assert "head 4/4 · no skill 4/4" in section and "head 0/4 · no skill 0/4" in section
    assert "cannot tell a good skill from a bad one" in body  # 2 of the skill's 3 checks
    summary = (tmp_path / "summary").read_text()
    assert "| no skill |" in summary and "Checks that cannot tell" in summary
    out = outputs(tmp_path / "output")
    assert out["conclusion"] == "success"

    results = load_results(tmp_path / "results")  # validated against its schema
    doc = results.document
    (skill,) = doc["lift"]["skills"]
    assert (skill["suite"], skill["helps"], skill["lift"]) == ("evals/poet/evals.json", True, 0.5)
    assert skill["adjusted_p"] <= 0.05
    poem = next(c for c in doc["lift"]["cases"] if c["case_id"] == "poem")
    assert poem["helps"] and poem["adjusted_p"] <= 0.05
    findings = {(i["case_id"], i["item_id"]): i["finding"] for i in doc["discrimination"]["items"]}
    assert findings[("poem", "assertions[1]")] == "passes without the skill"
    assert findings[("sonnet", "assertions[0]")] == "fails everywhere"
    assert findings[("poem", "assertions[0]")] == "tells"
    assert sum(r.side.value == "no-skill" for r in results.runs) == 8
    assert doc["aggregate"]["verdict"]["regressed"] is False  # no arm enters the regression
    # The arm's runs are in the spend: the output, and the comment's footer.
    spent = {side: sum(run_cost(r) or 0.0 for r in results.runs if r.side is side) for side in Side}
    assert spent[Side.NO_SKILL] > 0
    assert float(out["cost-usd"]) == pytest.approx(sum(spent.values()), abs=1e-4)
    assert f"💸 this push ${sum(spent.values()):.2f}" in body

    model = "anthropic/claude-sonnet-4-6"
    bench_dir = tmp_path / "results/suites" / slug("evals/poet/evals.json") / slug(model)
    bench = json.loads((bench_dir / "benchmark.json").read_text())
    configurations = {r["configuration"] for r in bench["runs"]}
    assert configurations == {"with_skill", "without_skill"}
    # skill-creator's pass rate is of items per run: 0.5 with the skill, 0.25 without.
    assert bench["run_summary"]["delta"]["pass_rate"] == "+0.25"
    assert (bench_dir / "eval-poem/without_skill/run-1/grading.json").is_file()
    assert not (bench_dir / "benchmark-base.json").exists()  # a new skill: no base runs
    _valid_benchmark(bench)

    # A second push edits the skill: head runs again, the no-skill arm comes from the cache.
    put(root, "skills/poet/SKILL.md", SKILL.format(name="poet", body="Start with `ROSES`!"))
    git(root, "commit", "-q", "-am", "edit poet")
    pushed = git(root, "rev-parse", "HEAD")
    before = dict(poet.started)
    second = run_container(_env(root, tmp_path, llm, gh, base, pushed), root)
    assert second.returncode == 0, second.stdout + second.stderr
    assert poet.started["no skill"] == before["no skill"]  # 0 no-skill calls
    assert poet.started["skill"] == before["skill"] + 8  # head did run again
    again = load_results(tmp_path / "results")
    armed = [r for r in again.runs if r.side.value == "no-skill"]
    assert len(armed) == 8 and all(r.cached for r in armed)
    assert "▲ p = 0.0" in gh.comments[(REPO, 7)][0]["body"]


def test_no_skill_arm__baseline_none_runs_nothing_without_the_skill(
    fakes: tuple[FakeLLM, GitHubFake, Poet], tmp_path: Path
) -> None:
    llm, gh, poet = fakes
    root, base, head = make_repo(tmp_path)
    env = {**_env(root, tmp_path, llm, gh, base, head), "INPUT_BASELINE": "none"}
    done = run_container(env, root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert poet.started == {"skill": 8, "no skill": 0}
    body = gh.comments[(REPO, 7)][0]["body"]
    assert "no skill" not in body and "lift" not in body.lower()
    doc = load_results(tmp_path / "results").document
    assert doc["lift"] is None
    assert all(r["side"] != "no-skill" for r in doc["runs"])


def test_no_skill_arm__its_runs_count_in_max_cost_usd(
    fakes: tuple[FakeLLM, GitHubFake, Poet], tmp_path: Path
) -> None:
    llm, gh, poet = fakes
    root, base, head = make_repo(tmp_path)
    env = _env(root, tmp_path, llm, gh, base, head)
    env |= {"INPUT_MAX-CONCURRENCY": "1", "INPUT_MAX-COST-USD": "0.01"}
    done = run_container(env, root)
    assert done.returncode == 0, done.stdout + done.stderr
    doc = load_results(tmp_path / "results").document
    made = len(doc["runs"])
    assert made < 16 and doc["settings"]["planned_runs"] == 16  # both arms were planned
    assert poet.started["skill"] + poet.started["no skill"] == made  # none after the limit
    assert outputs(tmp_path / "output")["conclusion"] == "neutral"  # runs missing: not green


def _valid_benchmark(doc: object) -> None:
    import jsonschema

    jsonschema.validate(doc, json.loads(BENCHMARK_SCHEMA.read_text()))


def test_no_skill_arm__runs_auto_adds_no_skill_runs_only_where_the_lift_is_open(
    fakes: tuple[FakeLLM, GitHubFake, Poet], tmp_path: Path
) -> None:
    llm, gh, _ = fakes
    root, base, head = make_repo(tmp_path)
    env = {**_env(root, tmp_path, llm, gh, base, head), "INPUT_RUNS": "auto"}
    done = run_container(env, root)
    assert done.returncode == 0, done.stdout + done.stderr
    doc = load_results(tmp_path / "results").document
    armed = {}
    for run in doc["runs"]:
        if run["side"] == "no-skill":
            armed[run["case_id"]] = armed.get(run["case_id"], 0) + 1
    assert armed["sonnet"] == 2  # fails with and without the skill: nothing to learn
    assert armed["poem"] > 2  # open after the start: more runs until it is decided
    (skill,) = doc["lift"]["skills"]
    assert skill["helps"] and skill["adjusted_p"] <= 0.05  # decided sequentially
    assert "▲ p = " in gh.comments[(REPO, 7)][0]["body"]
