"""What triggered the job, read once from the Actions environment and the event payload.

Only the facts the pipeline needs are kept, in a typed `Event`. The decision of what to do
for an event (run base vs head, refuse, validate only) lives in `decide()`, a pure function
that tests can table-drive.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any


class EventError(ValueError):
    """The event payload is missing or not what its name says."""


class Action(StrEnum):
    COMPARE = "compare"  # run base and head, comment, check
    VALIDATE_ONLY = "validate-only"  # a fork PR without secrets: lint and explain, neutral check
    REFUSE = "refuse"  # pull_request_target without allow-untrusted-code
    REPORT = "report"  # workflow_run: post results from an artifact
    COMMAND = "command"  # issue_comment: a maintainer's `/evolve run` on a PR
    PENDING = "pending"  # pull_request_target with pending-check: the check waits for it


@dataclass(frozen=True, slots=True)
class Event:
    name: str  # GITHUB_EVENT_NAME, or "local"
    repo: str = ""  # owner/name
    pr_number: int | None = None
    base_sha: str = ""  # for a PR: base.sha (the merge-base is computed later)
    base_ref: str = ""
    head_sha: str = ""
    head_repo: str = ""
    fork: bool = False
    server_url: str = "https://github.com"
    api_url: str = "https://api.github.com"
    run_url: str = ""
    sha: str = ""  # GITHUB_SHA (for a PR, the synthetic merge commit: never a check target)

    @property
    def is_pr(self) -> bool:
        return self.pr_number is not None

    def blob_url(self, sha: str, path: str, line: int | None) -> str:
        if not self.repo:
            return ""
        anchor = f"#L{line}" if line else ""
        return f"{self.server_url}/{self.repo}/blob/{sha}/{path}{anchor}"


def from_environ(environ: Mapping[str, str]) -> Event:
    name = environ.get("GITHUB_EVENT_NAME", "") or "local"
    payload: dict[str, Any] = {}
    event_path = environ.get("GITHUB_EVENT_PATH", "")
    if event_path:
        try:
            loaded = json.loads(Path(event_path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise EventError(f"cannot read the event payload {event_path}: {exc}") from exc
        payload = loaded if isinstance(loaded, dict) else {}
    server = environ.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    repo = environ.get("GITHUB_REPOSITORY", "")
    run_id = environ.get("GITHUB_RUN_ID", "")
    sha = environ.get("GITHUB_SHA", "")
    event = Event(
        name=name,
        repo=repo,
        server_url=server,
        api_url=environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/"),
        run_url=f"{server}/{repo}/actions/runs/{run_id}" if repo and run_id else "",
        sha=sha,
        head_sha=sha,
    )
    pr = payload.get("pull_request")
    if name in ("pull_request", "pull_request_target") and isinstance(pr, dict):
        return _pull_request(event, pr)
    run = payload.get("workflow_run")
    if name == "workflow_run" and isinstance(run, dict):
        return _workflow_run(event, run)
    if name == "push":
        before = str(payload.get("before") or "")
        return replace(event, base_sha="" if set(before) <= {"0"} else before)
    return event


def _pull_request(event: Event, pr: dict[str, Any]) -> Event:
    base = pr.get("base") or {}
    head = pr.get("head") or {}
    base_repo = ((base.get("repo") or {}).get("full_name")) or ""
    head_repo = ((head.get("repo") or {}).get("full_name")) or ""
    number = pr.get("number")
    if not isinstance(number, int) or not head.get("sha"):
        raise EventError("the pull_request payload has no number or head sha")
    return replace(
        event,
        pr_number=number,
        base_sha=str(base.get("sha") or ""),
        base_ref=str(base.get("ref") or ""),
        head_sha=str(head["sha"]),
        head_repo=head_repo,
        # A deleted fork has no head repo: treat it as a fork, the safe side.
        fork=head_repo != base_repo or not head_repo,
    )


def _workflow_run(event: Event, run: dict[str, Any]) -> Event:
    """The run that produced the artifact. Its `head_sha` is trusted (GitHub sets it); the
    PR number is only known for same-repository PRs (`pull_requests` is empty for forks)."""
    head_repo = str((run.get("head_repository") or {}).get("full_name") or "")
    prs = [p for p in run.get("pull_requests") or [] if isinstance(p, dict)]
    number = prs[0].get("number") if prs else None
    return replace(
        event,
        head_sha=str(run.get("head_sha") or ""),
        head_repo=head_repo,
        fork=bool(head_repo) and head_repo != event.repo,
        pr_number=number if isinstance(number, int) else None,
    )


def decide(
    event: Event, *, has_secrets: bool, allow_untrusted_code: bool, pending_check: bool = False
) -> Action:
    """What to do for this event. PR content is untrusted (docs/design.md §Trust)."""
    if event.name == "workflow_run":
        return Action.REPORT
    if event.name == "issue_comment":
        return Action.COMMAND
    if event.name == "pull_request_target" and pending_check:
        return Action.PENDING  # nothing of the PR is read: only its head sha, for the check
    if event.name == "pull_request_target" and not allow_untrusted_code:
        return Action.REFUSE
    if not has_secrets:  # a fork PR, or no key configured: running would only error
        return Action.VALIDATE_ONLY
    return Action.COMPARE
