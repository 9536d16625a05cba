"""`/evolve run` on a fork's pull request, end to end (issue 28).

Each test drives the product as GitHub starts it (`evolve-action run` with the Actions
environment of an `issue_comment` or `pull_request_target` event) against the loopback
GitHub and LLM fakes, with a real base repository holding the fork's commits under
`refs/pull/7/head` only (`fork_command_repo`). Every request to GitHub is checked against
GitHub's OpenAPI description where it is installed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e import openapi_check
from tests.e2e.fork_command_repo import FORK, command_env, make_forked, pending_env, push
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import Answer, FakeLLM, Request
from tests.gitrepo import git
from tests.reliability.helpers import PR, REPO, agent, outputs, results_runs, run_cli

PENDING = "Waiting for a maintainer's `/evolve run`"


@pytest.fixture
def gh() -> Iterator[GitHubFake]:
    with GitHubFake() as fake:
        fake.permissions.update({"ada": "write", "max": "maintain", "eve": "read"})
        yield fake
        if fake.requests and openapi_check.available():  # absent: test_pull_request_paths says so
            openapi_check.assert_valid(fake.requests)


def comment(gh: GitHubFake, body: str, login: str = "ada") -> int:
    """The command comment as GitHub stores it; its id."""
    gh.add_comment(REPO, PR, body, {"login": login, "type": "User"})
    return int(gh.comments[(REPO, PR)][-1]["id"])


def replies(gh: GitHubFake) -> list[str]:
    """Comments evolve wrote (not the command, not the sticky report)."""
    return [
        c["body"]
        for c in gh.comments.get((REPO, PR), [])
        if c["user"]["login"] == "github-actions[bot]" and "<!-- evolve" not in c["body"]
    ]


def sticky(gh: GitHubFake) -> str:
    (body,) = [c["body"] for c in gh.comments[(REPO, PR)] if "<!-- evolve" in c["body"]]
    return str(body)


def test_allowed_command_runs_the_head_and_replaces_the_pending_check(
    tmp_path: Path, gh: GitHubFake
) -> None:
    forked = make_forked(tmp_path)
    gh.add_pull(REPO, PR, forked.head, head_repo=FORK, base_sha=forked.main)

    # pull_request_target with pending-check: the check waits on the fork's head.
    done = run_cli(["run"], pending_env(tmp_path, gh.url, head=forked.head, base=forked.main),
                   tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (pending,) = gh.check_runs
    assert pending["head_sha"] == forked.head and pending["status"] == "queued"
    assert pending["output"]["title"] == PENDING and "conclusion" not in pending
    assert gh.comments.get((REPO, PR)) is None  # the pending job writes nothing else

    cid = comment(gh, "/evolve run")
    with FakeLLM(agent) as llm:
        urls = (llm.anthropic_base_url, llm.openai_base_url)
        env = command_env(forked, tmp_path, urls, gh.url, body="/evolve run", cid=cid)
        done = run_cli(["run"], env, forked.checkout)
        assert not llm.script_errors, llm.script_errors
    assert done.returncode == 1, done.stdout + done.stderr  # the gate: `hello` regressed
    assert "Traceback" not in done.stderr

    (check,) = gh.check_runs  # the pending check itself, now completed
    assert check["id"] == pending["id"] and check["head_sha"] == forked.head
    assert check["status"] == "completed" and check["conclusion"] == "failure"
    assert check["details_url"].endswith("/actions/runs/4343")
    assert "regressed" in sticky(gh) and f"`{forked.head[:7]}" in sticky(gh)
    (reply,) = replies(gh)
    assert "@ada asked for an evolve run" in reply and forked.head[:12] in reply
    assert "head of this pull request when you asked" in reply and "🚀 Done" in reply
    assert "Stale" not in reply
    assert gh.reactions[cid] == ["eyes", "rocket"]
    data = json.loads((tmp_path / "results/results.json").read_text())
    assert data["settings"]["head_sha"] == forked.head
    assert data["settings"]["base_sha"] == forked.main
    assert {r["side"] for r in results_runs(tmp_path / "results")} == {"base", "head"}
    assert outputs(tmp_path / "output")["conclusion"] == "failure"
    # The fork's commit came in as data: no branch or tag of the checkout names it.
    refs = (forked.checkout / ".git" / "packed-refs").read_text()
    assert forked.head not in refs

    # A new push: the pending check comes back for the new head; the old head keeps its result.
    new_head = push(forked, tmp_path)
    gh.set_head(REPO, PR, new_head)
    env = pending_env(tmp_path, gh.url, head=new_head, base=forked.main)
    assert run_cli(["run"], env, tmp_path).returncode == 0
    assert [c["status"] for c in gh.checks_on(new_head)] == ["queued"]
    assert [c["conclusion"] for c in gh.checks_on(forked.head)] == ["failure"]
    # The same event again (a re-run, a reopen) does not stack a second pending check.
    assert run_cli(["run"], env, tmp_path).returncode == 0
    assert len(gh.checks_on(new_head)) == 1


@pytest.mark.parametrize(
    ("login", "shown"), [("eve", "`read`"), ("mallory", "`none`")], ids=["read", "stranger"]
)
def test_a_user_without_write_permission_gets_one_polite_reply_and_nothing_runs(
    tmp_path: Path, gh: GitHubFake, login: str, shown: str
) -> None:
    forked = make_forked(tmp_path)
    gh.add_pull(REPO, PR, forked.head, head_repo=FORK, base_sha=forked.main)
    cid = comment(gh, "/evolve run", login=login)
    with FakeLLM(agent) as llm:
        urls = (llm.anthropic_base_url, llm.openai_base_url)
        env = command_env(forked, tmp_path, urls, gh.url, body="/evolve run", cid=cid,
                          login=login)  # fmt: skip
        done = run_cli(["run"], env, forked.checkout)
        assert llm.requests == []
    assert done.returncode == 0, done.stdout + done.stderr
    (reply,) = replies(gh)
    assert f"@{login}" in reply and "write, maintain or admin" in reply and shown in reply
    assert gh.check_runs == [] and cid not in gh.reactions
    assert not (tmp_path / "results").exists()
    # The payload's author_association was never the judge: the permission API was asked.
    asked = [p for m, p, _ in gh.requests if m == "GET" and p.endswith("/permission")]
    assert asked == [f"/repos/{REPO}/collaborators/{login}/permission"]


def test_a_sha_that_is_not_the_head_is_refused_and_says_which_is(
    tmp_path: Path, gh: GitHubFake
) -> None:
    forked = make_forked(tmp_path)
    gh.add_pull(REPO, PR, forked.head, head_repo=FORK, base_sha=forked.main)
    body = f"/evolve run {forked.main[:10]}"  # an older commit, reviewed before a push
    cid = comment(gh, body, login="max")
    with FakeLLM(agent) as llm:
        urls = (llm.anthropic_base_url, llm.openai_base_url)
        env = command_env(forked, tmp_path, urls, gh.url, body=body, cid=cid, login="max")
        done = run_cli(["run"], env, forked.checkout)
        assert llm.requests == []
    assert done.returncode == 0, done.stdout + done.stderr
    (reply,) = replies(gh)
    assert f"`{forked.main[:10]}` is not the head" in reply and forked.head[:12] in reply
    assert gh.reactions[cid] == ["eyes", "confused"]
    assert gh.check_runs == []


def test_a_push_during_the_run_posts_the_result_for_the_commit_that_ran_marked_stale(
    tmp_path: Path, gh: GitHubFake
) -> None:
    forked = make_forked(tmp_path)
    gh.add_pull(REPO, PR, forked.head, head_repo=FORK, base_sha=forked.main)
    moved = "c0ffee" + "0" * 34
    body = f"/evolve run {forked.head[:9]} runs=2"

    def pushing_agent(request: Request) -> Answer:
        gh.set_head(REPO, PR, moved)  # the fork pushes while the runs are under way
        return agent(request)

    cid = comment(gh, body)
    with FakeLLM(pushing_agent) as llm:
        urls = (llm.anthropic_base_url, llm.openai_base_url)
        env = command_env(forked, tmp_path, urls, gh.url, body=body, cid=cid)
        done = run_cli(["run"], env, forked.checkout)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    (check,) = gh.check_runs
    assert check["head_sha"] == forked.head and check["status"] == "completed"
    text = sticky(gh)
    assert "Stale" in text and moved[:12] in text and "running" not in text.split("\n", 3)[1]
    (reply,) = replies(gh)
    assert "the one you named" in reply and "runs=2" in reply
    assert f"head moved to `{moved[:12]}`" in reply
    assert gh.reactions[cid] == ["eyes", "rocket"]
    runs = results_runs(tmp_path / "results")
    assert {r["repetition"] for r in runs} <= {0, 1, 2}  # runs=2 from the command


def test_comments_that_are_no_command_do_nothing(tmp_path: Path, gh: GitHubFake) -> None:
    forked = make_forked(tmp_path)
    gh.add_pull(REPO, PR, forked.head, head_repo=FORK, base_sha=forked.main)
    cases = [("LGTM, thanks!", False), ("/evolve run", True)]  # the second is on an issue
    for body, on_issue in cases:
        env = command_env(forked, tmp_path, ("", ""), gh.url, body=body, cid=1, on_issue=on_issue)
        done = run_cli(["run"], env, forked.checkout)
        assert done.returncode == 0 and "nothing to do" in done.stdout, done.stdout + done.stderr
    assert gh.requests == []


def test_a_malformed_command_from_a_maintainer_gets_the_usage(
    tmp_path: Path, gh: GitHubFake
) -> None:
    forked = make_forked(tmp_path)
    gh.add_pull(REPO, PR, forked.head, head_repo=FORK, base_sha=forked.main)
    body = "/evolve run fail-on-regression=false"
    cid = comment(gh, body)
    env = command_env(forked, tmp_path, ("", ""), gh.url, body=body, cid=cid)
    done = run_cli(["run"], env, forked.checkout)
    assert done.returncode == 0, done.stdout + done.stderr
    (reply,) = replies(gh)
    assert "`fail-on-regression=` is not a flag" in reply and "Usage:" in reply
    assert gh.reactions[cid] == ["confused"] and gh.check_runs == []


def test_a_same_repository_pull_request_reruns_its_head_on_command(
    tmp_path: Path, gh: GitHubFake
) -> None:
    """E.g. after a provider outage: the same commit runs again, no empty commit needed. The
    `pull_request` job's completed check stays; the command's run adds its own result."""
    forked = make_forked(tmp_path)
    gh.add_pull(REPO, PR, forked.head, base_sha=forked.main)  # head repository: this one
    earlier = {"name": "evolve", "head_sha": forked.head, "status": "completed"}
    gh.check_runs.append({**earlier, "id": 1, "conclusion": "failure", "annotations": []})
    cid = comment(gh, "/evolve run runs=2")
    with FakeLLM(agent) as llm:
        urls = (llm.anthropic_base_url, llm.openai_base_url)
        env = command_env(forked, tmp_path, urls, gh.url, body="/evolve run runs=2", cid=cid)
        done = run_cli(["run"], env, forked.checkout)
        assert llm.requests, "the runs happened"
    assert done.returncode in (0, 1), done.stdout + done.stderr
    first, second = gh.checks_on(forked.head)
    assert first["id"] == 1 and second["status"] == "completed"
    assert second["details_url"].endswith("/actions/runs/4343")
    assert gh.reactions[cid] == ["eyes", "rocket"]
    data = json.loads((tmp_path / "results/results.json").read_text())
    assert data["settings"]["event"] == "issue_comment" and data["settings"]["runs"] == 2


def test_the_pending_check_leaves_same_repository_prs_to_their_pull_request_job(
    tmp_path: Path, gh: GitHubFake
) -> None:
    env = pending_env(tmp_path, gh.url, head="a" * 40, base="b" * 40, head_repo=REPO)
    done = run_cli(["run"], env, tmp_path)
    assert done.returncode == 0 and "same-repository" in done.stdout, done.stdout + done.stderr
    assert gh.requests == []


def test_a_checkout_of_anything_but_the_default_branch_is_refused(
    tmp_path: Path, gh: GitHubFake
) -> None:
    """A workflow that checks out the PR would let it choose the settings: nothing runs."""
    forked = make_forked(tmp_path)
    gh.add_pull(REPO, PR, forked.head, head_repo=FORK, base_sha=forked.main)
    git(forked.checkout, "fetch", "-q", "origin", f"refs/pull/{PR}/head")
    git(forked.checkout, "checkout", "-q", "--detach", forked.head)
    cid = comment(gh, "/evolve run")
    with FakeLLM(agent) as llm:
        urls = (llm.anthropic_base_url, llm.openai_base_url)
        env = command_env(forked, tmp_path, urls, gh.url, body="/evolve run", cid=cid)
        done = run_cli(["run"], env, forked.checkout)
        assert llm.requests == []
    assert done.returncode == 2, done.stdout + done.stderr
    (reply,) = replies(gh)
    assert "is not the default branch's commit" in reply and "without `ref:`" in reply
    assert gh.reactions[cid] == ["eyes", "confused"] and gh.check_runs == []
