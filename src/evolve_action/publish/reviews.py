"""Review comments (input `review-comments`): one pull-request review whose inline comments
sit on the eval-file lines of the cases that regressed.

A comment goes on a case's line in its eval file at the head commit, and only when that
line is part of the pull request's diff (a line the PR files API's `patch` shows on the
head side: GitHub rejects a review comment anywhere else). Cases whose line the PR did not
touch are left to the sticky comment and the check annotations.

Our review is found again by a hidden marker in its body, among reviews by the bot. What
GitHub's REST API allows shapes the update on the next push: a submitted review cannot be
deleted (only a pending one can), gets no new inline comments, and a `COMMENT` review cannot
be dismissed (only approvals and change requests can). So when the wanted comments differ
from the ones our review holds (or the head moved), the old review's inline comments are
deleted (`DELETE /pulls/comments/{id}`), its body is cut to one line saying it was
superseded, without the marker, and a new review is created on the head commit. When
nothing changed, nothing is written. One live review, never a growing pile of comments.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evolve_action.publish.github_api import retrying
from evolve_action.publish.render.build.cases import counts
from evolve_action.publish.render.escape import code
from evolve_action.publish.render.names import CaseIndex
from evolve_action.verdict.significance import Label

if TYPE_CHECKING:
    from github.PullRequest import PullRequest
    from github.PullRequestReview import PullRequestReview

    from evolve_action.publish.github_api import Publisher
    from evolve_action.publish.render.report import ReportInput

log = logging.getLogger(__name__)

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def marker(key: str) -> str:
    safe = "".join(ch for ch in key if ch.isalnum() or ch in "-_.") or "default"
    return f"<!-- evolve:review key={safe} -->"


@dataclass(frozen=True, slots=True, order=True)
class InlineComment:
    """One comment on a line of the head side of the diff."""

    path: str
    line: int
    body: str

    def as_api(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "side": "RIGHT", "body": self.body}


def commentable_lines(patch: str | None) -> set[int]:
    """Head-side line numbers inside the hunks of a unified diff (added or context lines)."""
    lines: set[int] = set()
    number = 0
    for text in (patch or "").splitlines():
        hunk = _HUNK.match(text)
        if hunk:
            number = int(hunk.group(1))
            continue
        if not number or text.startswith("\\"):  # before any hunk, "\ No newline at end"
            continue
        if text.startswith("-"):
            continue
        lines.add(number)
        number += 1
    return lines


def regressed_comments(report: ReportInput) -> list[InlineComment]:
    """One comment per regressed case (its models listed), at its line in the head eval file."""
    origins = {
        (suite.rel, case.id): case.origin for suite in report.head_suites for case in suite.cases
    }
    grouped: dict[tuple[str, str], list[str]] = {}
    for c in report.aggregate.cases:
        origin = origins.get((c.suite, c.case_id))
        if c.label is not Label.REGRESSED or origin is None or not origin.line:
            continue
        text = f"{code(c.model, 60)} ({counts(c.base)} → {counts(c.head)} runs passed)"
        grouped.setdefault((c.suite, c.case_id), []).append(text)
    index = CaseIndex.of(report)  # the case's one name, as the comment writes it
    out = []
    for (rel, case_id), models in grouped.items():
        origin = origins[(rel, case_id)]
        assert origin.line is not None
        body = (
            f"**evolve**: {index.named(rel, case_id)} regressed on {', '.join(models)},"
            " base → head."
            " The PR comment has the failed checks and the judge's evidence."
        )
        out.append(InlineComment(origin.path, origin.line, body))
    return sorted(out)


def on_diff(
    comments: Iterable[InlineComment], changed: Mapping[str, set[int]]
) -> list[InlineComment]:
    """Keep the comments whose line is part of the PR diff; GitHub refuses the others."""
    return [c for c in comments if c.line in changed.get(c.path, set())]


def review_body(key: str, comments: list[InlineComment], head_sha: str) -> str:
    cases = "1 regressed case" if len(comments) == 1 else f"{len(comments)} regressed cases"
    return (
        f"{marker(key)}\n**evolve**: {cases} on lines this pull request changes"
        f" (at {head_sha[:7]}). The sticky PR comment has the full report."
    )


def superseded_body(head_sha: str) -> str:
    return f"<!-- evolve:review-superseded -->\n_evolve: superseded by the run on {head_sha[:7]}._"


def changed_lines(pull: PullRequest) -> dict[str, set[int]]:
    """Per file of the PR (head-side path), the lines a review comment may sit on."""
    return {f.filename: commentable_lines(f.patch) for f in pull.get_files()}


def find_review(pull: PullRequest, key: str, logins: set[str]) -> PullRequestReview | None:
    """Our newest review: the marker in its body and a bot author (the list is paginated)."""
    needle = marker(key)
    found = None
    for review in pull.get_reviews():
        user = review.user  # None for a deleted account ("ghost")
        if needle in (review.body or "") and user is not None and user.login in logins:
            found = review
    return found


def publish_review(
    publisher: Publisher, number: int, head_sha: str, report: ReportInput, *, key: str
) -> str:
    """Create or replace our review; returns its URL ("" when there is none to show)."""
    pull = publisher.repo.get_pull(number)
    wanted = regressed_comments(report)
    previous = find_review(pull, key, publisher.bot_logins())
    if not wanted and previous is None:
        return ""
    wanted = on_diff(wanted, changed_lines(pull)) if wanted else []
    old = list(pull.get_single_review_comments(previous.id)) if previous is not None else []
    if previous is not None:
        review = previous
        held = sorted(InlineComment(c.path, c.original_line, c.body) for c in old)
        if review.commit_id == head_sha and held == wanted:
            return str(review.html_url)  # unchanged: no write
        for comment in old:
            retrying("deleting an old review comment", comment.delete, sleep=publisher.sleep)
        retrying(
            "marking the old review superseded",
            lambda: review.edit(superseded_body(head_sha)),
            sleep=publisher.sleep,
        )
    if not wanted:
        return ""
    from github.Commit import Commit  # PyGithub loads only when something is posted

    commit = Commit(publisher.repo.requester, attributes={"sha": head_sha}, completed=False)
    created = retrying(
        "posting the review",
        lambda: pull.create_review(
            commit=commit,
            body=review_body(key, wanted, head_sha),
            event="COMMENT",
            comments=[c.as_api() for c in wanted],  # type: ignore[misc]
        ),
        sleep=publisher.sleep,
    )
    return str(created.html_url)
