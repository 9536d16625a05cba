"""`runs: auto` end to end, as the container runs it, against the loopback fakes (issue 15).

A PR where one case moved gets extra runs on that case only, the comment says where the runs
went, and a second push is served from the cache (the extra base and head runs included).
A PR whose evals did not move spends the start runs and nothing more.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_pull_request import (
    SKILL,
    agent,
    container_env,
    make_repo,
    outputs,
    run_container,
)
from tests.e2e.test_pull_request_paths import cli
from tests.e2e.test_sharded_report import comparable_text, report_env
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import FakeLLM
from tests.gitrepo import git, put

REPO = "acme/skills"
START = 2


@pytest.fixture
def fakes() -> Iterator[tuple[FakeLLM, GitHubFake]]:
    with FakeLLM(agent) as llm, GitHubFake() as gh:
        yield llm, gh
        assert not llm.script_errors, llm.script_errors


def runs_per_cell(results_dir: Path) -> Counter[tuple[str, str, str]]:
    doc = json.loads((results_dir / "results.json").read_text())
    return Counter((r["case_id"], r["model"], r["side"]) for r in doc["runs"])


def test_auto__only_the_moved_case_gets_more_runs_and_the_comment_says_so(
    fakes: tuple[FakeLLM, GitHubFake], tmp_path: Path
) -> None:
    root, base, head = make_repo(tmp_path)
    llm, gh = fakes
    env = container_env(root, tmp_path, llm, gh, base, head) | {"INPUT_RUNS": "auto"}

    first = run_container(env, root)
    assert first.returncode == 1, first.stdout + first.stderr  # `greet` broke on both models

    counts = runs_per_cell(tmp_path / "results")
    moved = {k: n for k, n in counts.items() if k[0] == "greet"}
    assert len(moved) == 4 and all(n > START for n in moved.values()), counts
    assert len(set(moved.values())) == 1  # the same runs on both sides and models
    others = {k: n for k, n in counts.items() if k[0] != "greet"}
    assert others and all(n == START for n in others.values()), counts

    body = gh.comments[(REPO, 7)][0]["body"]
    assert "regressed" in body.split("\n", 3)[1]
    extra = next(iter(moved.values()))
    assert "`runs: auto`: 2 runs per side to start" in body
    assert "1 case got more" in body
    assert " / `greet` | anthropic/" in body and f"| {extra} | {extra} | decided |" in body
    assert "saved" in body  # against every case at the moved one's runs
    assert outputs(tmp_path / "output")["conclusion"] == "failure"
    settings = json.loads((tmp_path / "results/results.json").read_text())["settings"]
    assert settings["runs"] == "auto" and settings["adaptive"]["start"] == START

    calls = len(llm.requests)
    second = run_container(env, root)
    assert second.returncode == 1, second.stdout + second.stderr
    assert len(llm.requests) == calls  # every run, the waves' too, came from the cache
    assert runs_per_cell(tmp_path / "results") == counts


def test_auto__an_unchanged_pr_spends_only_the_start_runs(
    fakes: tuple[FakeLLM, GitHubFake], tmp_path: Path
) -> None:
    root, base, _ = make_repo(tmp_path)
    git(root, "checkout", "-q", "-b", "cosmetic", base)
    body = "Write `Hello, Ada!`.\n\nKeep it short."  # reworded, same behaviour
    put(root, "skills/greeter/SKILL.md", SKILL.format(name="greeter", body=body))
    git(root, "commit", "-q", "-am", "reword")
    head = git(root, "rev-parse", "HEAD")
    llm, gh = fakes
    env = container_env(root, tmp_path, llm, gh, base, head)
    del env["INPUT_RUNS"]  # the default is `auto`

    done = run_container(env, root)
    assert done.returncode == 0, done.stdout + done.stderr

    counts = runs_per_cell(tmp_path / "results")
    assert counts and set(counts.values()) == {START}, counts
    comment = gh.comments[(REPO, 7)][0]["body"]
    assert "every case settled at its 2 start runs per side" in comment
    assert "| base runs |" not in comment  # no case got more, so no table


def test_auto__report_over_the_job_results_says_where_the_runs_went_as_the_job_did(
    fakes: tuple[FakeLLM, GitHubFake], tmp_path: Path
) -> None:
    """The effort of `runs: auto` was only in the one job's comment: `report` over its results
    (a shard's, or a `workflow_run` artifact's) had no word of it. Both reports are made by the
    one `report_input.build` now, and the effort travels in results.json."""
    root, base, head = make_repo(tmp_path)
    llm, gh = fakes
    env = container_env(root, tmp_path, llm, gh, base, head) | {"INPUT_RUNS": "auto"}
    job = run_container(env, root)
    assert job.returncode == 1, job.stdout + job.stderr
    one = gh.comments[(REPO, 7)][0]["body"]
    assert "`runs: auto`: 2 runs per side to start" in one

    empty = tmp_path / "report-workspace"  # the report job has no checkout
    empty.mkdir()
    with GitHubFake() as report_gh:
        env = report_env(empty, tmp_path / "report", report_gh, tmp_path / "event.json")
        done = cli(env, empty, "report", str(tmp_path / "results"))
        assert done.returncode == job.returncode, done.stdout + done.stderr
        merged = report_gh.comments[(REPO, 7)][0]["body"]
        (check,) = report_gh.check_runs
    assert comparable_text(merged) == comparable_text(one)
    (check_one,) = gh.check_runs
    assert check["conclusion"] == check_one["conclusion"] == "failure"
    assert comparable_text(check["output"]["summary"]) == comparable_text(
        check_one["output"]["summary"]
    )
