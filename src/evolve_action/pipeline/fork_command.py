"""`/evolve run` on a pull request, and the pending check that waits for it.

The `issue_comment` workflow is the default branch's, its checkout is the default branch, and
so are the settings `run` read from it (the repository config, every verdict setting). What a
command may change is `runs=` and `models=`, as a maintainer typed them. The flow:

1. no command, not on a PR, or written by a bot: nothing happens;
2. the author's permission is read through the API; below write, one polite reply and the end;
3. 👀 on the comment; the PR is read now: its head is the commit that runs. A sha in the
   command must be that head (or its prefix), else the reply says so and nothing runs: a
   maintainer reviews the head, and an older commit is no longer what would be merged;
4. the reply records the commit; that commit is fetched by sha as data (`pr_fetch`) and run
   as a pull request's head, against its merge-base, with the default branch's settings;
5. the result goes on that commit (the pending check is taken over); if the head moved
   meanwhile, the result says it is stale. 🚀 when the run finished, 😕 when it could not.

Under `pull_request_target` with `pending-check`, `post_pending` only writes the waiting check
on a fork PR's head; it reads nothing of the PR but its number and sha.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from evolve_action.execute.sandbox.confine import unconfined_refusal
from evolve_action.model.outcomes import RunResult
from evolve_action.pipeline.job import JobSetup
from evolve_action.pipeline.request import Request
from evolve_action.plan.changes import GitError
from evolve_action.plan.planning import RunSpec
from evolve_action.plan.pr_fetch import auth_environ, checkout_is, fetch_pull_commit
from evolve_action.plan.sides import Sides, event_sides
from evolve_action.publish import command_replies as say
from evolve_action.publish.actions_io import RunnerFiles
from evolve_action.publish.command_api import ALLOWED, CommandPublisher, PullRequest
from evolve_action.publish.github_api import GitHubWriteError, make_client
from evolve_action.settings.command import (
    Command,
    CommandError,
    CommentEvent,
    comment_event,
    parse,
)
from evolve_action.settings.config import RepoConfig
from evolve_action.settings.events import Event
from evolve_action.settings.inputs import Settings, SettingsError
from evolve_action.settings.layering import layer

log = logging.getLogger(__name__)

Finish = Callable[[JobSetup, Sides], int]  # runs the job on the sides, closes them: exit code
OnDone = Callable[[RunSpec, RunResult], None] | None  # each run as it ends (the log line)


@dataclass(frozen=True)
class Context:
    """What the flow needs from the job around it."""

    request: Request
    settings: Settings
    config: RepoConfig
    event: Event  # the `issue_comment` event: repository, URLs, GITHUB_SHA
    files: RunnerFiles
    has_secrets: bool


def publisher_for(settings: Settings, event: Event) -> CommandPublisher | None:
    if not (settings.github_token and event.repo):
        return None
    return CommandPublisher(make_client(settings.github_token, api_url=event.api_url), event.repo)


def run_command(
    ctx: Context,
    environ: Mapping[str, str],
    *,
    finish: Finish,
    publisher: CommandPublisher | None,
    on_done: OnDone = None,
) -> int:
    comment = comment_event(environ)
    if comment is None:
        print("evolve: the issue_comment payload has no comment or issue; nothing to do")
        return 2
    if comment.action != "created" or not comment.on_pull_request or comment.from_bot:
        print("evolve: not a new comment by a person on a pull request; nothing to do")
        return 0
    try:
        command: Command | None = parse(comment.body)
        problem = ""
    except CommandError as exc:
        command, problem = None, str(exc)
    if command is None and not problem:
        print("evolve: the comment is no `/evolve` command; nothing to do")
        return 0
    if publisher is None:
        print("evolve: `/evolve run` needs the github-token input and GITHUB_REPOSITORY")
        return 2
    try:
        return _answer(ctx, comment, command, problem, publisher, finish, on_done)
    except GitHubWriteError as exc:
        print(f"evolve: {exc}", file=sys.stderr)
        _react(publisher, comment, "confused")
        return 2


def _answer(
    ctx: Context,
    comment: CommentEvent,
    command: Command | None,
    problem: str,
    gh: CommandPublisher,
    finish: Finish,
    on_done: OnDone,
) -> int:
    login, number = comment.login, comment.number
    permission = gh.permission(login)
    if permission not in ALLOWED:
        print(f"evolve: @{login} has {permission} permission; a run needs write or more")
        gh.reply(number, say.not_allowed(login, permission))
        return 0
    if command is None:
        gh.reply(number, say.bad_command(login, problem))
        _react(gh, comment, "confused")
        return 0
    _react(gh, comment, "eyes")
    pr = gh.pull(number)
    refusal, code = _refusal(ctx, command, pr, login)
    if refusal:
        print(f"evolve: not running: {refusal}")
        gh.reply(number, refusal)
        _react(gh, comment, "confused")
        return code
    try:
        settings = layer({**ctx.request.values, **command.inputs()}, ctx.config)
    except SettingsError as exc:
        gh.reply(number, say.bad_command(login, str(exc)))
        _react(gh, comment, "confused")
        return 0
    sha = pr.head_sha
    ack = say.running(
        login, sha, asked=command.sha, flags=command.describe(), run_url=ctx.event.run_url
    )
    reply_id = gh.reply(number, ack)
    stale: list[str] = []
    code = 2
    try:
        code = _run(ctx, settings, pr, gh, finish, on_done, stale)
    finally:
        _react(gh, comment, "rocket" if code != 2 else "confused")
        done = say.finished(ack, sha, exit_code=code, stale_head=stale[0] if stale else "")
        try:
            gh.edit_reply(number, reply_id, done)
        except GitHubWriteError as exc:
            log.error("%s", exc)
    return code


def _refusal(ctx: Context, command: Command, pr: PullRequest, login: str) -> tuple[str, int]:
    """Why this command must not run (the reply) and the exit code; ("", 0) when it may.
    A refused request ends green (the reply is the answer); a broken workflow ends red."""
    if pr.state != "open":
        return say.not_open(login, pr.state), 0
    if command.sha and not pr.head_sha.startswith(command.sha):
        return say.not_head(login, command.sha, pr.head_sha), 0
    if not ctx.has_secrets:
        return say.cannot_run(login, "the workflow has no model API key (see the README)."), 2
    root, trusted = ctx.request.root, ctx.event.sha
    if trusted and not checkout_is(root, trusted):
        # The settings must be the default branch's: a checkout of anything else (the PR's
        # head, above all) would let the pull request choose them.
        return say.cannot_run(
            login,
            f"the workflow's checkout ({root.name}) is not the default branch's commit"
            f" {trusted[:12]} that the workflow runs at; check out the default branch only"
            " (actions/checkout without `ref:`), the pull request is fetched by evolve.",
        ), 2
    unconfined = unconfined_refusal(ctx.settings.allow_unconfined)
    if unconfined is not None:
        return say.cannot_run(login, unconfined), 2
    return "", 0


def _run(
    ctx: Context,
    settings: Settings,
    pr: PullRequest,
    gh: CommandPublisher,
    finish: Finish,
    on_done: OnDone,
    stale: list[str],
) -> int:
    root: Path = ctx.request.root
    event = Event(
        name=ctx.event.name,
        repo=ctx.event.repo,
        pr_number=pr.number,
        base_sha=pr.base_sha,
        base_ref=pr.base_ref,
        head_sha=pr.head_sha,
        head_repo=pr.head_repo,
        fork=pr.fork,
        server_url=ctx.event.server_url,
        api_url=ctx.event.api_url,
        run_url=ctx.event.run_url,
        sha=ctx.event.sha,
    )
    try:
        auth = auth_environ(ctx.event.server_url, ctx.settings.github_token)
        fetch_pull_commit(root, pr.number, pr.head_sha, auth=auth)
        sides = event_sides(root, event)
    except GitError as exc:
        print(f"evolve: {exc}", file=sys.stderr)
        return 2

    def late_notices() -> tuple[str, ...]:
        now = gh.current_head(pr.number)
        if now and now != pr.head_sha:
            stale.append(now)
            return (say.stale(pr.head_sha, now),)
        return ()

    setup = JobSetup(
        ctx.request, settings, ctx.config, event, publisher=gh, files=ctx.files,
        stream=sys.stdout, on_done=on_done, late_notices=late_notices,
    )  # fmt: skip
    return finish(setup, sides)


def _react(gh: CommandPublisher, comment: CommentEvent, content: str) -> None:
    """Reactions are an acknowledgement: one that fails is logged, never fatal."""
    try:
        gh.react(comment.number, comment.comment_id, content)
    except GitHubWriteError as exc:
        log.warning("%s", exc)


def post_pending(settings: Settings, event: Event, publisher: CommandPublisher | None) -> int:
    """The check of a fork PR's new head, waiting for a maintainer's `/evolve run`."""
    if not event.is_pr or not event.head_sha:
        print("evolve: pending-check needs a pull_request_target event")
        return 2
    if not event.fork:
        print("evolve: a same-repository pull request: its pull_request job posts the check")
        return 0
    if publisher is None:
        print("evolve: pending-check needs the github-token input and GITHUB_REPOSITORY")
        return 2
    try:
        done = publisher.post_pending(
            settings.check_name,
            event.head_sha,
            summary=say.PENDING_SUMMARY,
            details_url=event.run_url or None,
        )
    except GitHubWriteError as exc:
        print(f"evolve: {exc}", file=sys.stderr)
        return 2
    print(f"evolve: the {settings.check_name} check on {event.head_sha[:12]}: {done}")
    return 0
