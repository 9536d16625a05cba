"""A repository on a loopback "GitHub" with a fork's pull request, for `/evolve run` (issue 28).

`origin.git` is the base repository as GitHub holds it: the default branch `main`, and the
fork's commits only under `refs/pull/7/head` (no branch of the base repository has them).
The workflow's checkout is a clone of `main`, nothing more, as actions/checkout of the default
branch makes it. The environments are those GitHub gives the `issue_comment` job and the
`pull_request_target` job that posts the pending check.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tests.actions import pull_request_event, runner_env
from tests.gitrepo import git, put
from tests.reliability.helpers import PR, REPO, SKILL, base_env, case, evals

FORK = "eve/skills"
# `hello` regresses on the fork's head (it writes "HELLO ADA"), `bye` fails on both sides.
CASES = (case("hello", "^Hello, Ada!$"), case("bye", "^Bye$"))
DEFAULT_CONFIG = "fail_on_regression: true\n"


@dataclass(frozen=True)
class Forked:
    origin: Path  # the base repository on "GitHub"
    checkout: Path  # the workflow's checkout of the default branch
    main: str  # the default branch's commit (GITHUB_SHA of an issue_comment event)
    head: str  # the fork PR's head


def make_forked(tmp: Path, *, fork_files: dict[str, str] | None = None) -> Forked:
    """`main` with the skill and the default branch's config; the fork's head changes the
    skill (and writes `fork_files`). Returns the base repository, the checkout, both shas."""
    src = tmp / "author"
    put(src, ".claude-plugin/plugin.json", '{"name": "demo"}')
    put(src, "skills/greeter/SKILL.md", SKILL.format(msg="Hello, Ada!"))
    put(src, "evals/greeter/evals.json", evals(*CASES))
    put(src, ".evolve.yaml", DEFAULT_CONFIG)
    git(src, "init", "-q", "-b", "main")
    git(src, "add", "-A")
    git(src, "commit", "-q", "-m", "base")
    main = git(src, "rev-parse", "HEAD")
    git(src, "checkout", "-q", "-b", "fork")
    put(src, "skills/greeter/SKILL.md", SKILL.format(msg="HELLO ADA") + "\nBe brief.\n")
    for rel, body in (fork_files or {}).items():
        put(src, rel, body)
    git(src, "add", "-A")
    git(src, "commit", "-q", "-m", "the fork's change")
    head = git(src, "rev-parse", "HEAD")
    git(src, "checkout", "-q", "main")  # the base repository's HEAD: its default branch
    origin = tmp / "origin.git"
    git(tmp, "clone", "-q", "--bare", str(src), str(origin))
    git(origin, "update-ref", f"refs/pull/{PR}/head", head)
    git(origin, "branch", "-q", "-D", "fork")
    checkout = tmp / "checkout"
    # Through git's transport (not a local copy of every object): only `main`'s commits come.
    git(tmp, "clone", "-q", "--no-local", str(origin), str(checkout))
    return Forked(origin, checkout, main, head)


def push(forked: Forked, tmp: Path, *, msg: str = "Hello again, Ada!") -> str:
    """A new commit on the fork's branch, as GitHub updates `refs/pull/7/head`; its sha."""
    src = tmp / "author"
    git(src, "checkout", "-q", "fork")
    put(src, "skills/greeter/SKILL.md", SKILL.format(msg=msg))
    git(src, "commit", "-q", "-am", "another push")
    sha = git(src, "rev-parse", "HEAD")
    git(src, "push", "-q", str(forked.origin), f"{sha}:refs/pull/{PR}/head", "--force")
    return sha


def command_env(
    forked: Forked, tmp: Path, llm_urls: tuple[str, str], gh_url: str, *, body: str, cid: int,
    login: str = "ada", on_issue: bool = False,
) -> dict[str, str]:  # fmt: skip
    """The `issue_comment` job's environment: comment `cid` saying `body` by `login` on PR 7."""
    issue: dict[str, object] = {"number": PR}
    if not on_issue:
        issue["pull_request"] = {"url": f"{gh_url}/repos/{REPO}/pulls/{PR}"}
    event = tmp / "comment-event.json"
    event.write_text(json.dumps({
        "action": "created",
        "issue": issue,
        "comment": {
            "id": cid, "body": body, "author_association": "CONTRIBUTOR",
            "user": {"login": login, "type": "User"},
        },
        "repository": {"full_name": REPO, "default_branch": "main"},
    }))  # fmt: skip
    return {**_actions(tmp, gh_url, event, "issue_comment", forked.main, forked.checkout),
            **base_env(tmp, llm_urls),
            "INPUT_MODELS": "anthropic", "INPUT_JUDGE-MODEL": "anthropic", "INPUT_RUNS": "4",
            "INPUT_CACHE-DIR": str(tmp / "cache"), "INPUT_RESULTS-DIR": str(tmp / "results"),
            "INPUT_ALLOW-UNCONFINED": "true"}  # fmt: skip


def pending_env(
    tmp: Path, gh_url: str, *, head: str, base: str, head_repo: str = FORK
) -> dict[str, str]:
    """The `pull_request_target` job with `pending-check`: no checkout, no model key."""
    event = pull_request_event(tmp / "target-event.json", base, head, head_repo=head_repo)
    empty = tmp / "empty-workspace"
    empty.mkdir(exist_ok=True)
    env = _actions(tmp, gh_url, event, "pull_request_target", base, empty)
    return {**env, "PATH": base_env(tmp, ("", ""))["PATH"], "HOME": str(tmp),
            "INPUT_PENDING-CHECK": "true"}  # fmt: skip


def _actions(
    tmp: Path, gh_url: str, event: Path, name: str, sha: str, workspace: Path
) -> dict[str, str]:
    return runner_env(
        tmp, event_name=name, event=event, workspace=workspace, sha=sha, api_url=gh_url,
        run_id="4343",
    )  # fmt: skip
