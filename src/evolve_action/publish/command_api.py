"""The GitHub calls of `/evolve run` and of the pending check, through PyGithub.

`CommandPublisher` is the `Publisher` of a command's run, with what a command needs besides:
who may ask (the permission API, never `author_association`), the pull request as GitHub
sees it now, reactions and plain replies. Two of its answers differ from a `pull_request`
job's, on purpose:

- its check run takes over the pending check that `pending-check` left on the commit (the
  same check run, completed), so a required check shows the run's result, not a second
  entry beside one that waits forever;
- the PR having moved past the commit does not hand the comment to a newer job: for a fork
  PR there is none, and the result says that it is stale instead (`fork_command`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evolve_action.publish.github_api import GitHubWriteError, Publisher, github_error, retrying

if TYPE_CHECKING:
    from github.CheckRun import CheckRun

log = logging.getLogger(__name__)

# The permissions that may start a run. The API's `permission` field says "admin", "write"
# (for the write and maintain roles, and custom roles based on them), "read" (read, triage)
# or "none"; "maintain" is listed should it ever be reported by name.
ALLOWED = frozenset({"admin", "maintain", "write"})
PENDING_TITLE = "Waiting for a maintainer's `/evolve run`"


@dataclass(frozen=True, slots=True)
class PullRequest:
    """A pull request as the API reports it at the moment it is read."""

    number: int
    state: str  # open, closed
    head_sha: str
    head_repo: str  # "" when the fork was deleted
    base_sha: str
    base_ref: str
    base_repo: str

    @property
    def fork(self) -> bool:
        return self.head_repo != self.base_repo or not self.head_repo


def _status(exc: BaseException) -> int | None:
    return exc.status if isinstance(exc, github_error()) else None


class CommandPublisher(Publisher):
    """A `Publisher` for one command's run (or the pending check)."""

    def permission(self, login: str) -> str:
        """The user's permission on the repository; "none" for a stranger (404)."""
        try:
            return retrying(
                f"reading the permission of @{login}",
                lambda: str(self.repo.get_collaborator_permission(login)),
                sleep=self.sleep,
            )
        except GitHubWriteError as exc:
            if _status(exc.__cause__ or exc) == 404:
                return "none"
            raise

    def pull(self, number: int) -> PullRequest:
        """The pull request now (one GET); raises `GitHubWriteError` when it cannot be read."""

        def read() -> PullRequest:
            pr = self.repo.get_pull(number)
            head, base = pr.head, pr.base
            return PullRequest(
                number=number,
                state=str(pr.state),
                head_sha=str(head.sha),
                head_repo=str(head.repo.full_name) if head.repo is not None else "",
                base_sha=str(base.sha),
                base_ref=str(base.ref),
                base_repo=str(base.repo.full_name) if base.repo is not None else self.repo_name,
            )

        return retrying(f"reading pull request #{number}", read, sleep=self.sleep)

    def current_head(self, number: int) -> str:
        """The PR's head as GitHub has it now ("" when it cannot be read)."""
        return super().pull_head_sha(number)

    def pull_head_sha(self, number: int) -> str:
        """Asked by `publish` to leave the comment to a newer job when the PR moved on. A
        command's result answers that command: it is posted, marked stale when it is."""
        return ""

    def react(self, number: int, comment_id: int, content: str) -> None:
        """A reaction on the command's comment (👀 eyes, 🚀 rocket, 😕 confused)."""
        comment = self.repo.get_issue(number).get_comment(comment_id)
        retrying(
            "reacting to the command", lambda: comment.create_reaction(content), sleep=self.sleep
        )

    def reply(self, number: int, body: str) -> int:
        """A new comment on the PR; returns its id (for `edit_reply`)."""
        issue = self.repo.get_issue(number)
        created = retrying(
            "replying to the command", lambda: issue.create_comment(body), sleep=self.sleep
        )
        return int(created.id)

    def edit_reply(self, number: int, comment_id: int, body: str) -> None:
        comment = self.repo.get_issue(number).get_comment(comment_id)
        retrying("editing the reply", lambda: comment.edit(body), sleep=self.sleep)

    # --- the check, pending then taken over ------------------------------------------------

    def checks_on(self, sha: str, name: str) -> list[CheckRun]:
        """The check runs named `name` on a commit, newest first."""
        commit = self.repo.get_commit(sha)
        return retrying(
            f"listing the check runs of {sha[:12]}",
            lambda: list(commit.get_check_runs(check_name=name)),
            sleep=self.sleep,
        )

    def start_check(self, name: str, head_sha: str, *, details_url: str | None) -> CheckRun:
        """The pending check on this commit, now in progress; a new one when there is none."""
        try:
            waiting = [c for c in self.checks_on(head_sha, name) if c.status != "completed"]
        except GitHubWriteError as exc:
            log.warning("%s; a new check run is created", exc)
            waiting = []
        if not waiting:
            return super().start_check(name, head_sha, details_url=details_url)
        check = waiting[0]
        fields: dict[str, Any] = {"status": "in_progress"}
        if details_url:
            fields["details_url"] = details_url
        fields["output"] = {"title": "evals running", "summary": "A maintainer asked for a run."}
        retrying("taking over the pending check", lambda: check.edit(**fields), sleep=self.sleep)
        return check

    def post_pending(self, name: str, sha: str, *, summary: str, details_url: str | None) -> str:
        """The pending check on a new head: "created", or "kept" when the commit has a check
        of that name already (a run's result, or the pending check of an earlier event)."""
        if self.checks_on(sha, name):
            return "kept"
        kwargs: dict[str, Any] = {
            "name": name,
            "head_sha": sha,
            "status": "queued",
            "output": {"title": PENDING_TITLE, "summary": summary},
        }
        if details_url:
            kwargs["details_url"] = details_url
        retrying(
            "creating the pending check",
            lambda: self.repo.create_check_run(**kwargs),
            sleep=self.sleep,
        )
        return "created"
