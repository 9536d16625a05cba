"""What evolve says in reply to `/evolve run`, and in the pending check.

Every reply says what happened, why, and what to do. Text that came from the comment goes
through `inline`/`code` (a reply must not ping anyone but the requester, nor forge markup).
"""

from __future__ import annotations

from evolve_action.publish.render.escape import code, inline
from evolve_action.settings.command import USAGE


def _short(sha: str) -> str:
    return f"`{sha[:12]}`"


def not_allowed(login: str, permission: str) -> str:
    return (
        f"Thanks for the interest, @{login}! Only people with write, maintain or admin"
        f" permission on this repository can start an evolve run (yours: {code(permission)})."
        " A maintainer can review this pull request and comment `/evolve run` to run its evals."
    )


def bad_command(login: str, problem: str) -> str:
    return f"@{login}, evolve did not run: {inline(problem, 400)}\n\nUsage: {USAGE}"


def not_open(login: str, state: str) -> str:
    return (
        f"@{login}, evolve did not run: this pull request is {code(state)}."
        " Reopen it, then comment `/evolve run` again."
    )


def not_head(login: str, asked: str, head: str) -> str:
    return (
        f"@{login}, evolve did not run: {code(asked)} is not the head of this pull request"
        f" ({_short(head)}). A run is bound to the commit you reviewed, and only the current"
        f" head can be that commit. Review the latest push, then comment `/evolve run {head[:12]}`"
        " (or `/evolve run` for whatever the head is then)."
    )


def cannot_run(login: str, why: str) -> str:
    return f"@{login}, evolve could not start the run: {inline(why, 600)}"


def running(login: str, sha: str, *, asked: str, flags: str, run_url: str) -> str:
    which = (
        f"commit {_short(sha)}, the one you named"
        if asked
        else f"commit {_short(sha)}, the head of this pull request when you asked"
    )
    lines = [f"👀 @{login} asked for an evolve run. It runs on {which}."]
    if flags:
        lines.append(f"Flags: {code(flags, 120)}.")
    lines.append(
        "Settings, thresholds and the workflow come from the default branch; the pull"
        " request's files are the data under test, run only inside the confinement."
    )
    if run_url:
        lines.append(f"[The workflow run]({run_url}).")
    return "\n\n".join(lines)


def finished(base: str, sha: str, *, exit_code: int, stale_head: str) -> str:
    if exit_code == 2:
        outcome = "❌ The run could not finish; the workflow log says why."
    else:
        outcome = f"🚀 Done: the result is in the evolve comment and check on {_short(sha)}."
    lines = [base, outcome]
    if stale_head:
        lines.append(stale(sha, stale_head))
    return "\n\n".join(lines)


def stale(sha: str, head: str) -> str:
    return (
        f"Stale: this result is for {_short(sha)}; the pull request's head moved to"
        f" {_short(head)} while it ran. Comment `/evolve run` to run the new head."
    )


PENDING_SUMMARY = """\
This pull request comes from a fork. Its evals run only when a maintainer, having reviewed
the change, comments `/evolve run` on it: the run is bound to the commit they reviewed, uses
the default branch's settings, and runs the pull request's files inside the confinement.
Each new push brings this check back to waiting, for the new commit.
"""
