"""Publishing a report: the sticky comment, the check run (or a commit status), step outputs,
the job summary and log annotations.

The results exist before anything here runs, so no GitHub failure may lose them or change
the exit code: every write is tried on its own, a failure after retries is logged as an
error and listed in the job summary, and the exit code stays the gate's. The job summary
and the outputs are written last and always, with the full comment (no rows cut) and every
GitHub problem met on the way.

The check run goes on the PR's head commit, never on `GITHUB_SHA` (for a PR the synthetic
merge commit, which a branch rule never looks at). When check runs are not writable (403 or
404, e.g. a token without `checks: write`) a commit status carries the conclusion instead.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from evolve_action.publish import check_output
from evolve_action.publish.actions_io import RunnerFiles, set_outputs, write_summary
from evolve_action.publish.github_api import GitHubWriteError, Publisher, github_error
from evolve_action.publish.html.page import REPORT_FILE
from evolve_action.publish.render.build.assemble import build_view
from evolve_action.publish.render.comment import TemplateProblem, environment, fit_comment, render
from evolve_action.publish.render.report import ReportInput
from evolve_action.publish.render.view import CommentView
from evolve_action.publish.reviews import publish_review
from evolve_action.settings.events import Event
from evolve_action.settings.inputs import CommentMode, Settings

if TYPE_CHECKING:
    from github.CheckRun import CheckRun

log = logging.getLogger(__name__)

T = TypeVar("T")
USER_TEMPLATE = "user.md.j2"  # the name `render.comment.environment` gives a user template


@dataclass
class Published:
    conclusion: str
    exit_code: int
    comment_url: str = ""
    check: str = ""  # "check run", "commit status" or "" (nothing writable)
    problems: list[str] = field(default_factory=list)
    check_run: CheckRun | None = None  # the run opened (or completed): a later write reuses it


def _status_code(exc: BaseException) -> int | None:
    cause = exc.__cause__ if isinstance(exc, GitHubWriteError) else exc
    return cause.status if isinstance(cause, github_error()) else None


def _attempt(what: str, problems: list[str], call: Callable[[], T]) -> T | None:
    """Run one GitHub write; a failure becomes a listed problem, never a crash."""
    try:
        return call()
    except GitHubWriteError as exc:
        problems.append(str(exc))
    except Exception as exc:  # a dropped connection must not lose the results either
        problems.append(f"{what} failed: {type(exc).__name__}: {exc}")
    log.error("%s", problems[-1])
    return None


def head_sha(event: Event, report_head: str) -> str:
    """Where checks go: the PR head commit; outside a PR, the commit that was evaluated."""
    return event.head_sha if event.is_pr else (report_head or event.sha)


def publish_in_progress(report: ReportInput, *, publisher: Publisher | None) -> Published:
    """Open the check run and (sticky mode only) say in the comment that evals are running."""
    result = Published("", 0)
    if publisher is None:
        return result
    settings, event = report.settings, report.event
    sha = head_sha(event, report.head_sha)
    if sha:
        # A 403/404 here is not an error: `publish` falls back to a commit status.
        result.check_run = _start(publisher, settings, event, sha, result.problems)
        result.check = "check run" if result.check_run is not None else ""
    number = event.pr_number
    if number is not None and settings.comment is CommentMode.STICKY:
        body = fit_comment(build_view(report))
        url = _attempt(
            "posting the PR comment",
            result.problems,
            lambda: publisher.post_comment(number, body, key=settings.comment_key),
        )
        result.comment_url = url or ""
    return result


def _start(
    publisher: Publisher, settings: Settings, event: Event, sha: str, problems: list[str]
) -> CheckRun | None:
    try:
        return publisher.start_check(settings.check_name, sha, details_url=event.run_url or None)
    except Exception as exc:
        if _status_code(exc) not in (403, 404):
            problems.append(str(exc))
            log.error("%s", exc)
        return None


def publish(
    report: ReportInput,
    *,
    publisher: Publisher | None,
    files: RunnerFiles,
    started: Published | None = None,
    stream: TextIO = sys.stdout,
) -> Published:
    github = publish_github(report, publisher=publisher, started=started, stream=stream)
    return publish_files(report, github, files=files, stream=stream)


def publish_github(
    report: ReportInput,
    *,
    publisher: Publisher | None,
    started: Published | None = None,
    stream: TextIO = sys.stdout,
) -> Published:
    """The comment, the review comments and the check run (or commit status). `started`:
    what `publish_in_progress` (or an earlier `publish_github`) opened, completed again here."""
    gate = report.gate
    problems: list[str] = []
    result = Published(gate.conclusion, gate.exit_code, problems=problems)
    if publisher is None:
        return result
    view = build_view(report)
    event, settings = report.event, report.settings
    number = event.pr_number
    if number is not None and _superseded(publisher, number, head_sha(event, report.head_sha)):
        # A newer push is being evaluated: its job owns the comment; ours would be stale.
        print(f"evolve: PR #{number} has moved past this commit; comment left to its job",
              file=stream)  # fmt: skip
        number = None
    if number is not None and settings.comment is not CommentMode.OFF:
        body = comment_body(view, settings, problems)
        sticky = settings.comment is CommentMode.STICKY
        url = _attempt(
            "posting the PR comment",
            problems,
            lambda: publisher.post_comment(number, body, key=settings.comment_key, sticky=sticky),
        )
        result.comment_url = url or ""
    sha = head_sha(event, report.head_sha)
    if number is not None and sha and settings.review_comments:
        _attempt(
            "posting the review comments",
            problems,
            lambda: publish_review(publisher, number, sha, report, key=settings.comment_key),
        )
    if sha:
        notes = check_output.notes(report)
        state, description = check_output.status(gate, view.headline)
        result.check_run = started.check_run if started else None
        result.check = conclude(
            publisher,
            settings,
            event,
            sha,
            result,
            conclusion=gate.conclusion,
            title=check_output.title(view),
            summary=check_output.summary(view),
            annotations=check_output.check_annotations(notes),
            status=(state, description),
        )
    return result


def publish_files(
    report: ReportInput, github: Published, *, files: RunnerFiles, stream: TextIO = sys.stdout
) -> Published:
    """The log annotations, step outputs and job summary, with every GitHub problem met;
    written last and always, whatever GitHub did."""
    gate = report.gate
    notes = check_output.notes(report)
    for line in check_output.log_commands(notes, github.problems):
        print(line, file=stream)
    set_outputs(files.output, check_output.outputs(report, gate, github.comment_url))
    markdown = render(build_view(report)) + report_link(report)
    write_summary(files.summary, summary_with_problems(markdown, github.problems))
    return github


def report_link(report: ReportInput) -> str:
    """The job summary's line to report.html, when the job wrote one: the file is in the
    results directory, which the workflow uploads as an artifact of this run."""
    results_dir = report.settings.results_dir
    if not (results_dir / REPORT_FILE).is_file():
        return ""
    # No path: the directory is the job's own (a shard's report job writes elsewhere), and the
    # summary of one report must read the same whichever job made it.
    where = f"`{REPORT_FILE}` in the results directory"
    run_url = report.event.run_url
    if run_url:
        artifacts = f"[this run's artifacts]({run_url}#artifacts)"
        return f"\n\n📊 Charts and each failed run's transcript: {where}, in {artifacts}.\n"
    return f"\n\n📊 Charts and each failed run's transcript: {where}.\n"


def given_up(report: ReportInput, why: str) -> Published:
    """GitHub writes that were still under way when the job had to end."""
    gate = report.gate
    problem = f"the GitHub writes did not finish before the job had to end ({why})"
    log.error("%s", problem)
    return Published(gate.conclusion, gate.exit_code, problems=[problem])


def _superseded(publisher: Publisher, number: int, sha: str) -> bool:
    """True when the PR's head is now another commit (one GET; unknown counts as current)."""
    if not sha:
        return False
    current = publisher.pull_head_sha(number)
    return bool(current) and current != sha


def comment_body(view: CommentView, settings: Settings, problems: list[str]) -> str:
    """The comment through the user's template when one is set; ours when it breaks.

    The check summary and the job summary always use our template: they are the record.
    """
    if settings.template is not None:
        try:
            env = environment(settings.template)
            return fit_comment(view, env=env, name=USER_TEMPLATE)
        except TemplateProblem as exc:
            problems.append(f"{exc}; the comment used the default template")
            log.error("%s", problems[-1])
    return fit_comment(view)


def conclude(
    publisher: Publisher,
    settings: Settings,
    event: Event,
    sha: str,
    result: Published,
    *,
    conclusion: str,
    title: str,
    summary: str,
    annotations: list[dict[str, Any]],
    status: tuple[str, str],
    forbidden_is_expected: bool = False,
) -> str:
    """Complete the check run (`result.check_run`, else a new one, kept there), or fall back
    to a commit status when checks are not writable."""
    problems = result.problems
    try:
        check = result.check_run = result.check_run or publisher.start_check(
            settings.check_name, sha, details_url=event.run_url or None
        )
        publisher.finish_check(
            check, conclusion=conclusion, title=title, summary=summary, annotations=annotations
        )
        return "check run"
    except Exception as exc:
        if _status_code(exc) not in (403, 404):
            problems.append(str(exc))
            log.error("%s", exc)
            return ""
    log.warning("check runs are not writable with this token; setting a commit status instead")
    try:
        publisher.set_status(
            sha,
            state=status[0],
            context=settings.check_name,
            description=status[1],
            target_url=event.run_url or None,
        )
        return "commit status"
    except Exception as exc:
        # A fork PR's read-only token can write nothing; the job summary is all there is.
        if not (forbidden_is_expected and _status_code(exc) in (403, 404)):
            problems.append(str(exc))
            log.error("%s", exc)
        return ""


def summary_with_problems(markdown: str, problems: Sequence[str]) -> str:
    if not problems:
        return markdown
    listed = "\n".join(f"- {p}" for p in problems)
    return f"{markdown}\n\n**⚠️ evolve could not write to GitHub**\n\n{listed}\n"
