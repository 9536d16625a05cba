"""GitHub writes through PyGithub: the sticky comment, the check run, the commit status.

PyGithub retries GET and POST on 5xx but not PATCH, so editing a comment or a check run
goes through our own retry (`_retrying`). A `GITHUB_TOKEN` cannot call `GET /user`; the
bot's comments are recognised by the hidden marker plus a bot author (the workflow token
posts as `github-actions[bot]`; a personal token's own login is used when `/user` answers).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from evolve_action.publish.render.escape import marker

if TYPE_CHECKING:  # PyGithub (0.3 s of imports) loads only when something is posted
    from github import Github, GithubException
    from github.CheckRun import CheckRun
    from github.Issue import Issue
    from github.IssueComment import IssueComment
    from github.Repository import Repository

log = logging.getLogger(__name__)

T = TypeVar("T")

BOT_LOGIN = "github-actions[bot]"
ANNOTATIONS_PER_REQUEST = 50
STATUS_DESCRIPTION_MAX = 140


class GitHubWriteError(RuntimeError):
    """A write to GitHub failed after retries; results already obtained are kept elsewhere."""


def github_error() -> type[GithubException]:
    """PyGithub's exception class, imported on first need (a local run never loads PyGithub)."""
    from github import GithubException

    return GithubException


def make_client(
    token: str, *, api_url: str = "https://api.github.com", throttle: bool = True
) -> Github:
    from github import Auth, Github

    kwargs: dict[str, Any] = {
        "base_url": api_url.rstrip("/"),
        "per_page": 100,
        "timeout": 30,
        "lazy": True,  # no hidden GETs to complete objects: every request is one we chose
    }
    if not throttle:
        kwargs.update(seconds_between_requests=0, seconds_between_writes=0, retry=None)
    return Github(auth=Auth.Token(token), **kwargs)


def _retrying(
    what: str,
    call: Callable[[], T],
    *,
    attempts: int = 4,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Retry 5xx, 429 and secondary-rate-limit 403s with backoff; other errors at once."""
    delay = 1.0
    for attempt in range(1, attempts + 1):
        try:
            return call()
        except github_error() as exc:
            retryable = exc.status >= 500 or exc.status == 429 or _secondary_limit(exc)
            if not retryable or attempt == attempts:
                message = _message(exc)
                raise GitHubWriteError(f"{what} failed ({exc.status}): {message}") from exc
            wait = _retry_after(exc) or delay
            log.warning("%s: GitHub answered %s; retrying in %.1fs", what, exc.status, wait)
            sleep(wait)
            delay = min(delay * 2, 30.0)
    raise AssertionError("unreachable")


retrying = _retrying  # for other writers (reviews.py): the same retry policy


def _secondary_limit(exc: GithubException) -> bool:
    return exc.status == 403 and "secondary rate limit" in _message(exc).lower()


def _retry_after(exc: GithubException) -> float | None:
    headers = exc.headers or {}
    value = headers.get("retry-after") or headers.get("Retry-After")
    try:
        return min(float(value), 120.0) if value is not None else None
    except ValueError:
        return None


def _message(exc: GithubException) -> str:
    data = exc.data
    if isinstance(data, dict) and data.get("message"):
        return str(data["message"])
    return str(data or exc)


@dataclass
class Publisher:
    """Writes for one repository and one pull request (or just a commit)."""

    client: Github
    repo_name: str  # owner/name
    sleep: Callable[[float], None] = time.sleep

    def __post_init__(self) -> None:
        self.repo: Repository = self.client.get_repo(self.repo_name)
        self._login: str | None = None

    def bot_logins(self) -> set[str]:
        if self._login is None:
            try:
                self._login = self.client.get_user().login
            except github_error():
                self._login = ""  # a workflow token: /user is forbidden
        return {BOT_LOGIN, self._login} - {""}

    def pull_head_sha(self, number: int) -> str:
        """The current head commit of a pull request ("" when it cannot be read)."""
        try:
            return str(self.repo.get_pull(number).head.sha)
        except github_error() as exc:
            log.warning("cannot read pull request #%s: %s", number, _message(exc))
            return ""

    # --- the sticky comment ----------------------------------------------------------------

    def find_sticky(self, issue: Issue, key: str) -> IssueComment | None:
        needle = marker(key)
        logins = self.bot_logins()
        for comment in issue.get_comments():  # paginated: every page is read
            if needle in (comment.body or "") and comment.user.login in logins:
                return comment
        return None

    def post_comment(self, number: int, body: str, *, key: str, sticky: bool = True) -> str:
        """Create or edit our comment; returns its URL. An unchanged body is not rewritten."""
        if marker(key) not in body:
            raise ValueError("the comment body lost its marker; refusing to post it")
        issue = self.repo.get_issue(number)
        existing = self.find_sticky(issue, key) if sticky else None
        if existing is None:
            created = _retrying(
                "posting the PR comment", lambda: issue.create_comment(body), sleep=self.sleep
            )
            if not sticky:
                return str(created.html_url)
            # Jobs racing on one PR may each have found no comment and created one. The
            # oldest of ours wins: a newer duplicate deletes itself and edits the oldest, so
            # exactly one remains however the writes interleave (the oldest is never deleted).
            existing = self.find_sticky(issue, key)
            if existing is None or existing.id == created.id:
                return str(created.html_url)
            _retrying("removing a duplicate PR comment", created.delete, sleep=self.sleep)
        if existing.body != body:
            _retrying("editing the PR comment", lambda: existing.edit(body), sleep=self.sleep)
        return str(existing.html_url)

    # --- the check run ---------------------------------------------------------------------

    def start_check(self, name: str, head_sha: str, *, details_url: str | None) -> CheckRun:
        kwargs: dict[str, Any] = {"name": name, "head_sha": head_sha, "status": "in_progress"}
        if details_url:
            kwargs["details_url"] = details_url
        return _retrying(
            "creating the check run", lambda: self.repo.create_check_run(**kwargs), sleep=self.sleep
        )

    def finish_check(
        self,
        check: CheckRun,
        *,
        conclusion: str,
        title: str,
        summary: str,
        annotations: Sequence[dict[str, Any]] = (),
    ) -> None:
        """Complete the run; annotations go 50 per request, as the API requires."""
        output: dict[str, Any] = {"title": title[:255], "summary": summary[:65535]}
        batches = [
            list(annotations[i : i + ANNOTATIONS_PER_REQUEST])
            for i in range(0, len(annotations), ANNOTATIONS_PER_REQUEST)
        ] or [[]]
        for batch in batches[:-1]:
            _retrying(
                "adding check annotations",
                lambda b=batch: check.edit(output={**output, "annotations": b}),  # type: ignore[misc]
                sleep=self.sleep,
            )
        last = {**output, "annotations": batches[-1]} if batches[-1] else output
        _retrying(
            "completing the check run",
            lambda: check.edit(status="completed", conclusion=conclusion, output=last),
            sleep=self.sleep,
        )

    def set_status(
        self, sha: str, *, state: str, context: str, description: str, target_url: str | None
    ) -> None:
        """A commit status, for when check runs are not writable (140-character description)."""
        commit = self.repo.get_commit(sha)
        kwargs: dict[str, Any] = {
            "state": state,
            "context": context,
            "description": description[:STATUS_DESCRIPTION_MAX],
        }
        if target_url:
            kwargs["target_url"] = target_url
        _retrying(
            "setting the commit status", lambda: commit.create_status(**kwargs), sleep=self.sleep
        )
