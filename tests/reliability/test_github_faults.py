"""GitHub answering 502 and secondary rate limits (403 "You have exceeded a secondary rate
limit" with `retry-after`) on the comment writes, POST (the in-progress comment) and PATCH
(the final edit), through the whole CLI as the container runs it.

The comment ends up posted and then edited to the final report, the results are written,
and the exit code is the gate's (1: the head regressed), not a publishing failure. The
waits are the server's `retry-after: 1` and one 1 s backoff: seconds, not minutes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.publish.render.escape import marker
from tests.fakes.llm_server import FakeLLM
from tests.reliability.helpers import (
    BAD_GATEWAY,
    CASES,
    PR,
    REPO,
    SECONDARY_LIMIT,
    FaultyGitHub,
    actions_env,
    agent,
    case,
    make_repo,
    outputs,
    results_runs,
    run_cli,
)

COMMENTS = f"/repos/{REPO}/issues/{PR}/comments"
EDITS = f"/repos/{REPO}/issues/comments/"


@pytest.fixture
def fakes() -> Iterator[tuple[FakeLLM, FaultyGitHub]]:
    with FakeLLM(agent) as llm, FaultyGitHub() as gh:
        yield llm, gh
        assert not llm.script_errors, llm.script_errors


def setup_run(tmp_path: Path, llm: FakeLLM, gh: FaultyGitHub) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "repo"
    # `hello` passes on base and fails on head; `bye` fails on both.
    base, head = make_repo(root, cases=(CASES[0], case("bye", "^Bye$")), head_msg="HELLO ADA")
    env = actions_env(root, tmp_path, (llm.anthropic_base_url, llm.openai_base_url), gh.url,
                      base, head)  # fmt: skip
    env.update({"INPUT_MODELS": "anthropic", "INPUT_RUNS": "4"})
    return root, env


def test_github_faults__comment_posted_and_edited_through_502s_and_secondary_limits(
    tmp_path: Path, fakes: tuple[FakeLLM, FaultyGitHub]
) -> None:
    llm, gh = fakes
    root, env = setup_run(tmp_path, llm, gh)
    gh.fail_with("POST", COMMENTS, [BAD_GATEWAY, SECONDARY_LIMIT])
    gh.fail_with("PATCH", EDITS, [BAD_GATEWAY, SECONDARY_LIMIT])

    done = run_cli(["run"], env, root)

    assert done.returncode == 1, done.stdout + done.stderr  # the gate: `hello` regressed
    assert "Traceback" not in done.stderr, done.stderr
    assert all(not entry[2] for entry in gh.replies)  # every injected fault was served
    statuses = [
        (method, path)
        for method, path, _ in gh.requests
        if method in ("POST", "PATCH") and "/comments" in path
    ]
    assert statuses.count(("POST", COMMENTS)) == 3  # 502, 403, then created
    assert sum(m == "PATCH" for m, _ in statuses) == 3  # 502, 403, then edited
    (comment,) = gh.comments[(REPO, PR)]
    body = comment["body"]
    assert body.startswith(marker("default"))
    assert "regressed" in body.split("\n", 3)[1] and "`hello`" in body
    assert "running" not in body.split("\n", 3)[1].lower()  # the final report, not in-progress

    out = outputs(tmp_path / "output")
    assert out["conclusion"] == "failure"
    assert out["comment-url"].endswith(f"#issuecomment-{comment['id']}")
    (check,) = gh.check_runs
    assert check["status"] == "completed" and check["conclusion"] == "failure"
    assert len(results_runs(tmp_path / "results")) == 16  # 2 cases x 4 runs x 2 sides


def test_github_faults__an_outage_that_outlasts_the_retries_loses_no_results(
    tmp_path: Path, fakes: tuple[FakeLLM, FaultyGitHub]
) -> None:
    """Every comment write fails: the job still writes results, summary and outputs, says
    what failed, and exits with the gate's code."""
    llm, gh = fakes
    root, env = setup_run(tmp_path, llm, gh)
    gh.fail_with("POST", COMMENTS, [BAD_GATEWAY] * 40)

    done = run_cli(["run"], env, root)

    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert gh.comments.get((REPO, PR), []) == []
    assert "posting the PR comment failed" in done.stdout + done.stderr
    data = json.loads((tmp_path / "results/results.json").read_text())
    assert len(data["runs"]) == 16
    assert outputs(tmp_path / "output")["conclusion"] == "failure"
    assert "`hello`" in (tmp_path / "summary").read_text()
    (check,) = gh.check_runs
    assert check["conclusion"] == "failure"
