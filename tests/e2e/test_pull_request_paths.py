"""The PR bot's other paths, end to end and run as the container runs it (see
test_pull_request.py for the compare path): a fork PR without secrets, pull_request_target,
and the two-stage pattern where a `workflow_run` job posts the results a `pull_request` job
wrote. Every request the bot sends to GitHub must be valid for GitHub's OpenAPI description.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.actions import pull_request_event
from tests.e2e import openapi_check
from tests.e2e.test_pull_request import (
    REPO,
    agent,
    container_env,
    git,
    make_repo,
    outputs,
    put,
    run_container,
)
from tests.e2e.test_pull_request import (
    repo as repo,  # the fixture: base and head commits of a real repository
)
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import FakeLLM

FORK = "someone/skills"
NO_SECRETS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")


@pytest.fixture
def fakes() -> Iterator[tuple[FakeLLM, GitHubFake]]:
    with FakeLLM(agent) as llm, GitHubFake() as gh:
        yield llm, gh
        assert not llm.script_errors, llm.script_errors
        if gh.requests and openapi_check.available():
            openapi_check.assert_valid(gh.requests)


def pr_event(tmp: Path, base: str, head: str, *, head_repo: str = REPO) -> str:
    return str(pull_request_event(tmp / "event.json", base, head, head_repo=head_repo))


def workflow_run_event(tmp: Path, head: str, *, prs: list[int]) -> str:
    path = tmp / "workflow_run.json"
    path.write_text(json.dumps({
        "action": "completed",
        "workflow_run": {
            "id": 99, "event": "pull_request", "conclusion": "success", "head_sha": head,
            "head_branch": "feature", "head_repository": {"full_name": FORK},
            "pull_requests": [{"number": n} for n in prs],
        },
    }))  # fmt: skip
    return str(path)


def cli(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evolve_action", *args],
        env=env, cwd=cwd, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def writes(gh: GitHubFake) -> list[tuple[str, str, object]]:
    return [r for r in gh.requests if r[0] != "GET"]


# --- (a) a fork pull_request: no secrets, a read-only token --------------------------------


def fork_env(
    root: Path, tmp: Path, llm: FakeLLM, gh: GitHubFake, base: str, head: str
) -> dict[str, str]:
    env = container_env(root, tmp, llm, gh, base, head)
    env["GITHUB_EVENT_PATH"] = pr_event(tmp, base, head, head_repo=FORK)
    for name in NO_SECRETS:
        del env[name]
    return env


def test_fork_pr__validates_and_leaves_a_neutral_check_saying_how_to_run_the_evals(
    repo: tuple[Path, str, str], fakes: tuple[FakeLLM, GitHubFake], tmp_path: Path
) -> None:
    root, base, head = repo
    llm, gh = fakes
    done = run_container(fork_env(root, tmp_path, llm, gh, base, head), root)

    assert done.returncode == 0, done.stdout + done.stderr
    assert llm.requests == []  # no provider call
    (check,) = gh.check_runs
    assert (check["head_sha"], check["status"], check["conclusion"]) == (
        head, "completed", "neutral"
    )  # fmt: skip
    assert "2 of 2 eval files are valid" in check["output"]["summary"]
    assert "a maintainer can" in check["output"]["summary"]
    assert gh.comments == {}  # nothing to compare: no PR comment
    assert outputs(tmp_path / "output")["conclusion"] == "neutral"
    assert "a maintainer can" in (tmp_path / "summary").read_text()
    assert not (tmp_path / "results/results.json").exists()


def test_fork_pr__an_invalid_eval_file_fails_the_job_and_is_annotated(
    repo: tuple[Path, str, str], fakes: tuple[FakeLLM, GitHubFake], tmp_path: Path
) -> None:
    root, base, _ = repo
    llm, gh = fakes
    put(root, "evals/farewell/evals.json", '{"evals": [{"id": "bye", "prompt": 3}]}\n')
    git(root, "commit", "-q", "-am", "break an eval file")
    head = git(root, "rev-parse", "HEAD")
    done = run_container(fork_env(root, tmp_path, llm, gh, base, head), root)

    assert done.returncode == 1, done.stdout + done.stderr
    assert llm.requests == []
    (check,) = gh.check_runs
    assert check["conclusion"] == "neutral"
    assert "1 of 2 eval files are valid" in check["output"]["summary"]
    assert {a["path"] for a in check["annotations"]} == {"evals/farewell/evals.json"}
    assert "::warning file=evals/farewell/evals.json,line=1" in done.stdout


def test_fork_pr__read_only_token_writes_only_the_job_summary(
    repo: tuple[Path, str, str], fakes: tuple[FakeLLM, GitHubFake], tmp_path: Path
) -> None:
    root, base, head = repo
    llm, gh = fakes
    gh.read_only = True  # 403 to every write, like a fork PR's GITHUB_TOKEN
    done = run_container(fork_env(root, tmp_path, llm, gh, base, head), root)

    assert done.returncode == 0, done.stdout + done.stderr
    assert llm.requests == [] and gh.check_runs == [] and gh.statuses == []
    assert {r[1] for r in writes(gh)} == {
        f"/repos/{REPO}/check-runs",
        f"/repos/{REPO}/statuses/{head}",
    }  # fmt: skip  (tried, refused)
    summary = (tmp_path / "summary").read_text()
    assert "evals not run (fork PR without secrets)" in summary
    assert "could not write" not in summary  # a read-only token is expected here, not a fault
    assert "::error" not in done.stdout


# --- (b) pull_request_target --------------------------------------------------------------


def target_env(
    root: Path, tmp: Path, llm: FakeLLM, gh: GitHubFake, base: str, head: str
) -> dict[str, str]:
    env = container_env(root, tmp, llm, gh, base, head)
    env["GITHUB_EVENT_NAME"] = "pull_request_target"
    env["GITHUB_EVENT_PATH"] = pr_event(tmp, base, head, head_repo=FORK)
    env["GITHUB_SHA"] = base  # the default branch's commit, since 2025-12
    return env


def test_pull_request_target__refused_without_allow_untrusted_code(
    repo: tuple[Path, str, str], fakes: tuple[FakeLLM, GitHubFake], tmp_path: Path
) -> None:
    root, base, head = repo
    llm, gh = fakes
    done = run_container(target_env(root, tmp_path, llm, gh, base, head), root)

    assert done.returncode == 2, done.stdout + done.stderr
    assert "::error title=evolve%3A refusing pull_request_target::" in done.stdout
    assert "allow-untrusted-code: true" in done.stdout
    assert llm.requests == [] and writes(gh) == []
    assert not (tmp_path / "results").exists()  # no eval file loaded, no case run
    assert not (tmp_path / "cache").exists()


def test_pull_request_target__runs_with_allow_untrusted_code(
    repo: tuple[Path, str, str], fakes: tuple[FakeLLM, GitHubFake], tmp_path: Path
) -> None:
    root, base, head = repo
    llm, gh = fakes
    env = target_env(root, tmp_path, llm, gh, base, head)
    env["INPUT_ALLOW-UNTRUSTED-CODE"] = "true"
    env["INPUT_MODELS"] = "anthropic"
    env["INPUT_RUNS"] = "1"  # one run a side: nothing could be flagged, so no verdict
    done = run_container(env, root)

    assert done.returncode == 0, done.stdout + done.stderr
    assert llm.requests  # the evals ran, base and head
    (comment,) = gh.comments[(REPO, 7)]
    assert "`greet`" in comment["body"] and "`new`" in comment["body"]
    assert "too few runs to tell" in comment["body"].split("\n", 2)[1]
    (check,) = gh.check_runs
    assert check["head_sha"] == head  # the PR head, not GITHUB_SHA (the default branch)
    assert check["conclusion"] == "neutral"  # it tested nothing: not a green light


# --- (c) two stages: pull_request writes results, workflow_run posts them -------------------


@pytest.fixture(scope="module")
def stage_one(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Stage one, once for the module: a `pull_request` job with keys but no token writes
    the results directory (the workflow uploads it as an artifact). Returns it and the head."""
    tmp = tmp_path_factory.mktemp("stage1")
    root, base, head = make_repo(tmp)
    with FakeLLM(agent) as llm, GitHubFake() as gh:
        env = container_env(root, tmp, llm, gh, base, head)
        env["INPUT_GITHUB-TOKEN"] = ""
        env["INPUT_MODELS"] = "anthropic"
        env["INPUT_RUNS"] = "4"
        done = run_container(env, root)
        assert done.returncode == 1, done.stdout + done.stderr  # greeter regressed
        assert llm.requests and not llm.script_errors
        assert gh.requests == []  # no token: the unprivileged job posts nothing
    return tmp / "results", head


@pytest.fixture
def artifact(stage_one: tuple[Path, str], tmp_path: Path) -> tuple[Path, str]:
    """Stage two's download of the artifact (a fresh copy per test), and the trusted head."""
    results, head = stage_one
    downloaded = tmp_path / "artifact"
    shutil.copytree(results, downloaded)
    return downloaded, head


def report_env(tmp: Path, gh: GitHubFake, head: str, *, prs: list[int]) -> dict[str, str]:
    """Stage two: the default branch's workflow, with a write token and no API key."""
    (tmp / "output").write_text("")
    (tmp / "summary").write_text("")
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp),
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "workflow_run",
        "GITHUB_EVENT_PATH": workflow_run_event(tmp, head, prs=prs),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_SHA": "d" * 40,  # the default branch
        "GITHUB_RUN_ID": "4343",
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_API_URL": gh.url,
        "GITHUB_OUTPUT": str(tmp / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp / "summary"),
        "INPUT_GITHUB-TOKEN": "ghs_fake",
        "INPUT_RESULTS-DIR": str(tmp / "merged"),
    }


def test_two_stage__workflow_run_posts_the_artifact_on_the_confirmed_head(
    fakes: tuple[FakeLLM, GitHubFake], artifact: tuple[Path, str], tmp_path: Path
) -> None:
    artifact_dir, head = artifact
    llm, gh = fakes
    gh.add_pull(REPO, 7, head)  # a fork PR: `pull_requests` is empty, the artifact says #7
    done = cli(report_env(tmp_path, gh, head, prs=[]), tmp_path, "report", str(artifact_dir))

    assert done.returncode == 1, done.stdout + done.stderr  # the regression gate, as in stage 1
    assert llm.requests == []  # no provider call, no PR code: the artifact is data
    (comment,) = gh.comments[(REPO, 7)]
    assert comment["body"].startswith("<!-- evolve:sticky key=default -->")
    assert "`greet`" in comment["body"] and "regressed" in comment["body"]
    (check,) = gh.check_runs
    assert check["head_sha"] == head and check["conclusion"] == "failure"
    assert outputs(tmp_path / "output")["comment-url"].endswith(f"#issuecomment-{comment['id']}")
    assert (tmp_path / "merged/results.json").is_file()

    # `run` under workflow_run dispatches to the report: the same comment is kept, not doubled.
    env = report_env(tmp_path, gh, head, prs=[7])
    env["INPUT_RESULTS-DIR"] = str(artifact_dir)
    again = cli(env, tmp_path, "run")
    assert again.returncode == 1, again.stdout + again.stderr
    assert len(gh.comments[(REPO, 7)]) == 1 and len(gh.check_runs) == 2


def test_two_stage__a_tampered_results_file_is_rejected(
    fakes: tuple[FakeLLM, GitHubFake], artifact: tuple[Path, str], tmp_path: Path
) -> None:
    artifact_dir, head = artifact
    _, gh = fakes
    gh.add_pull(REPO, 7, head)
    doc = json.loads((artifact_dir / "results.json").read_text())
    doc["runs"][0]["status"] = "$(curl evil)"  # not one of the schema's statuses
    (artifact_dir / "results.json").write_text(json.dumps(doc))
    done = cli(report_env(tmp_path, gh, head, prs=[]), tmp_path, "report", str(artifact_dir))

    assert done.returncode == 2, done.stdout + done.stderr
    assert "::error title=evolve%3A cannot read results::" in done.stdout
    assert "results.json" in done.stdout
    assert writes(gh) == []  # nothing posted from a file that fails the schema


def test_two_stage__an_artifact_naming_a_pr_with_another_head_gets_no_comment(
    fakes: tuple[FakeLLM, GitHubFake], artifact: tuple[Path, str], tmp_path: Path
) -> None:
    artifact_dir, head = artifact
    _, gh = fakes
    gh.add_pull(REPO, 7, "e" * 40)  # PR #7's head is another commit: the claim is false
    done = cli(report_env(tmp_path, gh, head, prs=[]), tmp_path, "report", str(artifact_dir))

    assert done.returncode == 1, done.stdout + done.stderr
    assert "::warning title=evolve%3A PR not confirmed::results name PR #7" in done.stdout
    assert gh.comments == {}
    assert all(run["head_sha"] == head for run in gh.check_runs)  # only the trusted sha


def test_two_stage__the_default_branch_config_decides_not_the_artifact(
    fakes: tuple[FakeLLM, GitHubFake], artifact: tuple[Path, str], tmp_path: Path
) -> None:
    artifact_dir, head = artifact
    _, gh = fakes
    gh.add_pull(REPO, 7, head)
    checkout = tmp_path / "checkout"  # actions/checkout of the default branch: trusted
    put(checkout, ".evolve.yaml", "fail_on_regression: false\n")
    env = report_env(tmp_path, gh, head, prs=[7]) | {"GITHUB_WORKSPACE": str(checkout)}
    done = cli(env, tmp_path, "report", str(artifact_dir))

    assert done.returncode == 0, done.stdout + done.stderr  # regressed, but not a failure here
    (check,) = gh.check_runs
    assert check["conclusion"] == "success"
    assert (
        "::warning title=evolve%3A settings::the results were decided with fail-on-regression"
        " true; this report applies false"
    ) in done.stdout
    merged = json.loads((tmp_path / "merged/results.json").read_text())["settings"]
    assert merged["fail_on_regression"] is False and merged["pr_number"] == 7


# --- the OpenAPI check itself ---------------------------------------------------------------


def test_openapi_check__rejects_what_github_would() -> None:
    openapi_check.require_description()
    sha = "a" * 40
    good = [
        ("POST", f"/repos/{REPO}/check-runs", {"name": "evolve", "head_sha": sha}),
        ("PATCH", f"/repos/{REPO}/check-runs/1", {"status": "completed", "conclusion": "neutral"}),
        ("GET", f"/repos/{REPO}/issues/7/comments", None),
    ]
    assert openapi_check.validate(good) == []
    bad = [
        ("PATCH", f"/repos/{REPO}/check-runs/1", {"conclusion": "passed"}),
        ("POST", f"/repos/{REPO}/statuses/{sha}", {"state": "neutral", "context": "evolve"}),
        ("POST", f"/repos/{REPO}/issues/7/comments", {}),
        ("GET", f"/repos/{REPO}/issues/seven/comments", None),
        (
            "POST",
            f"/repos/{REPO}/pulls/7/reviews",
            {"comments": [{"path": "a", "line": "3", "body": "x"}]},
        ),
        ("POST", f"/repos/{REPO}/no-such-thing", {}),
    ]
    problems = openapi_check.validate(bad)
    assert len(problems) == len(bad), problems
    assert "checks/update" in problems[0] and "'passed' is not one of" in problems[0]
    assert "'neutral' is not one of" in problems[1]
    assert "'body' is a required property" in problems[2]
    assert "issue_number='seven' is not an integer" in problems[3]
    assert "'3' is not of type 'integer'" in problems[4]
    assert "no operation of GitHub's REST API matches" in problems[5]


# --- review comments -------------------------------------------------------------------------


def pull_files(root: Path, base: str, head: str) -> list[dict[str, object]]:
    """What the PR files API answers: each changed file with its unified-diff `patch`."""
    names = git(root, "diff", "--name-only", base, head).splitlines()
    out: list[dict[str, object]] = []
    for name in names:
        diff = git(root, "diff", "--unified=3", base, head, "--", name)
        patch = diff[diff.index("@@") :] if "@@" in diff else ""
        out.append({"sha": "0" * 40, "filename": name, "status": "modified", "patch": patch})
    return out


def test_review_comments__on_the_changed_line_of_the_regressed_case_then_kept_on_rerun(
    repo: tuple[Path, str, str], fakes: tuple[FakeLLM, GitHubFake], tmp_path: Path
) -> None:
    root, base, _ = repo
    llm, gh = fakes
    evals_json = root / "evals/greeter/evals.json"
    # Touch the case's lines, not its task: a reworded prompt would be another case, not
    # compared with base's (issue 26).
    text = evals_json.read_text().replace(
        '"prompt": "Write the message for Ada (greet)',
        '"prompt":  "Write the message for Ada (greet)',
    )
    assert text != evals_json.read_text()
    evals_json.write_text(text)
    git(root, "commit", "-q", "-am", "touch the greet case")
    head = git(root, "rev-parse", "HEAD")
    gh.pull_files[(REPO, 7)] = pull_files(root, base, head)
    env = container_env(root, tmp_path, llm, gh, base, head)
    env.update({"INPUT_REVIEW-COMMENTS": "true", "INPUT_MODELS": "anthropic", "INPUT_RUNS": "4"})
    done = run_container(env, root)

    assert done.returncode == 1, done.stdout + done.stderr  # greet regressed
    (review,) = gh.reviews[(REPO, 7)]
    assert review["commit_id"] == head and "<!-- evolve:review key=default -->" in review["body"]
    (comment,) = gh.review_comments
    line = comment["line"]
    assert comment["path"] == "evals/greeter/evals.json" and comment["side"] == "RIGHT"
    assert "`greet` regressed" in comment["body"]
    sticky = gh.comments[(REPO, 7)][0]["body"]
    assert f"/blob/{head}/evals/greeter/evals.json#L{line}" in sticky  # the case's own line

    writes_before = len(writes(gh))
    again = run_container(env, root)  # the same head: cached, and the review is left alone
    assert again.returncode == 1, again.stdout + again.stderr
    assert len(gh.reviews[(REPO, 7)]) == 1 and len(gh.review_comments) == 1
    review_writes = [w for w in writes(gh)[writes_before:] if "/pulls/" in w[1]]
    assert review_writes == []
