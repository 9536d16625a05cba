"""Sharding must not change the answer (issue 17): the same pull request, run once as one job
and once as `shard: 1/3`, `2/3`, `3/3` plus a `report` job, ends with the same conclusion,
exit code, outputs, comment, job summary and merged results.json.

The PR touches three skills on two models: `greeter` regresses, `farewell` improves, `counter`
stays as it was (and skips one provider), and a new eval file is invalid. The repository
config sets `alpha` and `min_pass_rate`, which `run` reads from the checkout; `report` reads
them from its own checkout when it has one, and else from what the shards' results record
(the example workflow's report job has no checkout). Each job runs as the container runs it,
against loopback fakes of both LLM providers and GitHub.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import openapi_check
from tests.e2e.test_pull_request import (
    REPO,
    SKILL,
    container_env,
    evals,
    outputs,
    regex_case,
    run_container,
)
from tests.e2e.test_pull_request_paths import cli
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import Answer, FakeLLM, Reply, Request, call, text
from tests.fakes.scripts import grading, tool_names
from tests.gitrepo import commit_base, git, put

SKILLS = ("greeter", "farewell", "counter")
CONFIG = "alpha: 0.1\nmin_pass_rate: 0.8\n"  # head passes 75%: the floor fails the check
USAGE = {
    "input_tokens": 900,
    "output_tokens": 60,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}
RUN_KEY = ("suite", "case_id", "model", "side", "repetition")
TIMINGS = re.compile(r"⏱ [^·\n]*")  # the footer's wall time: the only part allowed to differ


def skill(root: Path, name: str, body: str) -> None:
    put(root, f"skills/{name}/SKILL.md", SKILL.format(name=name, body=body))


def make_repo(tmp: Path) -> tuple[Path, str, str]:
    root = tmp / "repo"
    put(root, ".claude-plugin/plugin.json", '{"name": "demo"}')
    put(root, ".evolve.yaml", CONFIG)
    skill(root, "greeter", "Write `Hello, Ada!`.")
    skill(root, "farewell", "Write `Bye`.")
    skill(root, "counter", "Write `Count: 3`.")
    put(root, "evals/greeter/evals.json", evals(
        regex_case("greet", "^Hello, Ada!$", expectation="The message greets Ada by name."),
        regex_case("old", "Ada"),
    ))  # fmt: skip
    put(root, "evals/farewell/evals.json", evals(regex_case("bye", "^Goodbye, Ada!$")))
    count = regex_case("count", "^Count: 3$") | {"skip_providers": ["openai"]}  # a skip
    put(root, "evals/counter/evals.json", evals(count))
    base = commit_base(root)
    skill(root, "greeter", "SHOUT `HELLO ADA`.")  # regresses
    skill(root, "farewell", "Write `Goodbye, Ada!`.")  # improves
    skill(root, "counter", "Write `Count: 3`, briefly.")  # no change
    put(root, "evals/greeter/evals.json", evals(
        regex_case("greet", "^Hello, Ada!$", expectation="The message greets Ada by name."),
        regex_case("new", "ADA"),
    ))  # fmt: skip
    put(root, "evals/broken/evals.json", '{"evals": [{"id": "x", "prompt": 3}]}\n')  # invalid
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "head")
    return root, base, git(root, "rev-parse", "HEAD")


def agent(request: Request) -> Answer:
    """Loads the one installed skill and writes what it says. Every answer bills the same
    usage: the fake's simulated prompt cache would make a run's cost depend on which job first
    sent its prompt, and the two ways of running must be compared run by run."""
    return replace(answer(request), usage=USAGE)


def answer(request: Request) -> Reply:
    if "submit_grading" in tool_names(request):
        graded = grading(request)
        assert isinstance(graded, Reply)
        return graded
    system = json.dumps(request.body.get("system", "")) + json.dumps(request.messages[:1])
    skill = next(name for name in SKILLS if f"- {name}:" in system)
    if request.turn == 0:
        return call("Skill", skill=skill)
    if request.turn == 1:
        found = re.search(r"(?:Write|SHOUT) `([^`]+)`", " ".join(request.tool_results))
        content = (found.group(1) if found else "?") + "\n"
        return call("Write", file_path="message.txt", content=content)
    return text("Done.")


@dataclass
class Job:
    """What one job left: its exit code and files, and what GitHub received."""

    returncode: int
    stdout: str
    outputs: dict[str, str]
    summary: str
    results: dict[str, Any]
    gh: GitHubFake


def job_env(
    root: Path, job: Path, llm: FakeLLM, gh: GitHubFake, base: str, head: str
) -> dict[str, str]:
    job.mkdir(parents=True)
    env = container_env(root, job, llm, gh, base, head)
    del env["INPUT_FAIL-ON-REGRESSION"]  # only the repository config and the defaults decide
    env["INPUT_RUNS"] = "4"
    return env


def finished(done: Any, job: Path, results: Path, gh: GitHubFake) -> Job:
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return Job(
        done.returncode,
        done.stdout,
        outputs(job / "output"),
        (job / "summary").read_text(),
        json.loads((results / "results.json").read_text()),
        gh,
    )


def report_env(workspace: Path, job: Path, gh: GitHubFake, event: Path) -> dict[str, str]:
    """The example workflow's report job: the docker image, a token, and nothing else set."""
    job.mkdir(parents=True)
    for name in ("output", "summary"):
        (job / name).touch()
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(job),
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_RUN_ID": "4242",
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_API_URL": gh.url,
        "GITHUB_OUTPUT": str(job / "output"),
        "GITHUB_STEP_SUMMARY": str(job / "summary"),
        "INPUT_GITHUB_TOKEN": "ghs_fake",
        "INPUT_RESULTS-DIR": str(job / "merged"),
    }


@dataclass
class Jobs:
    unsharded: Job
    with_checkout: Job  # shards + a report job that checked the repository out
    without_checkout: Job  # the same shards + a report job with an empty workspace
    shard_requests: list[tuple[str, str, Any]]


@pytest.fixture(scope="module")
def jobs(tmp_path_factory: pytest.TempPathFactory) -> Jobs:
    tmp = tmp_path_factory.mktemp("sharding")
    root, base, head = make_repo(tmp)
    with FakeLLM(agent) as llm:
        with GitHubFake() as gh:
            env = job_env(root, tmp / "unsharded", llm, gh, base, head)
            done = run_container(env, root)
            unsharded = finished(done, tmp / "unsharded", tmp / "unsharded/results", gh)
        shards = tmp / "shards"  # as download-artifact lays the shards' artifacts out
        with GitHubFake() as gh:
            for i in (1, 2, 3):
                env = job_env(root, tmp / f"shard{i}", llm, gh, base, head)
                env |= {"INPUT_SHARD": f"{i}/3", "INPUT_COMMENT": "off"}
                done = run_container(env, root)
                assert done.returncode in (0, 1), done.stdout + done.stderr
                shutil.copytree(tmp / f"shard{i}/results", shards / f"evolve-shard-{i}")
            shard_requests = list(gh.requests)
        assert not llm.script_errors, llm.script_errors
    event = tmp / "unsharded/event.json"
    reports = []
    for name, workspace in (("checkout", root), ("empty", tmp / "empty")):
        workspace.mkdir(exist_ok=True)
        job = tmp / f"report-{name}"
        with GitHubFake() as gh:
            done = cli(report_env(workspace, job, gh, event), workspace, "report", str(shards))
            reports.append(finished(done, job, job / "merged", gh))
    return Jobs(unsharded, reports[0], reports[1], shard_requests)


def comparable_text(markdown: str) -> str:
    return TIMINGS.sub("⏱ …", markdown)


def comparable_results(doc: dict[str, Any]) -> dict[str, Any]:
    """results.json without what may differ: when it was written, how long runs took, the
    order runs were listed in, and the merge count a merged file adds."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("duration_s", "time_s")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    out = strip({k: v for k, v in doc.items() if k != "generated_at"})
    out["settings"].pop("merged_from", None)
    out["runs"].sort(key=lambda r: [r[k] for k in RUN_KEY])
    return dict(out)


@pytest.mark.parametrize("variant", ["with_checkout", "without_checkout"])
def test_sharded_report__same_conclusion_exit_code_outputs_comment_and_summary(
    jobs: Jobs, variant: str
) -> None:
    one, sharded = jobs.unsharded, getattr(jobs, variant)
    assert jobs.shard_requests == []  # shards post nothing: only the report job does

    assert sharded.returncode == one.returncode == 1  # greeter regressed
    (check_one,) = one.gh.check_runs
    (check_sharded,) = sharded.gh.check_runs
    assert check_sharded["conclusion"] == check_one["conclusion"] == "failure"
    assert check_sharded["output"]["title"] == check_one["output"]["title"]
    summary_one, summary_sharded = (
        comparable_text(c["output"]["summary"]) for c in (check_one, check_sharded)
    )
    assert summary_sharded == summary_one
    assert check_sharded["annotations"] == check_one["annotations"]

    ((comment_one,),) = one.gh.comments.values()
    ((comment_sharded,),) = sharded.gh.comments.values()
    for job, comment in ((one, comment_one), (sharded, comment_sharded)):
        assert job.outputs["comment-url"].endswith(f"#issuecomment-{comment['id']}")
    local = ("results-dir", "comment-url")  # where each job wrote, and the fake's comment ids
    assert {k: v for k, v in sharded.outputs.items() if k not in local} == {
        k: v for k, v in one.outputs.items() if k not in local
    }
    assert comparable_text(comment_sharded["body"]) == comparable_text(comment_one["body"])
    assert comparable_text(sharded.summary) == comparable_text(one.summary)
    for body in (comment_one["body"], sharded.summary):
        assert "`greet`" in body and "`bye`" in body and "| counter |" in body
        assert "evals/broken/evals.json" in body and "skip_providers lists openai" in body
    if openapi_check.available():
        openapi_check.assert_valid(sharded.gh.requests)


@pytest.mark.parametrize("variant", ["with_checkout", "without_checkout"])
def test_sharded_report__merged_results_json_carries_the_unsharded_fields(
    jobs: Jobs, variant: str
) -> None:
    one, sharded = jobs.unsharded.results, getattr(jobs, variant).results
    settings = one["settings"]
    assert (settings["alpha"], settings["min_pass_rate"]) == (0.1, 0.8)  # the repository config
    assert settings["models"] == ["anthropic/claude-sonnet-4-6", "openai/gpt-5.4"]
    assert (settings["runs"], settings["pr_number"], settings["event"]) == (4, 7, "pull_request")
    assert sharded["settings"]["merged_from"] == 3
    assert comparable_results(sharded) == comparable_results(one)


def test_sharded_report__says_nothing_about_settings_when_the_results_agree(jobs: Jobs) -> None:
    for job in (jobs.with_checkout, jobs.without_checkout):
        assert "evolve%3A settings" not in job.stdout
