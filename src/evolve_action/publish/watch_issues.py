"""Watch's findings as issues: one per skill that dropped significantly, updated while the drop
lasts and closed with a comment when it recovers. Never a red check: a model moving under a
skill is not the fault of the last commit.

An issue is ours when its body carries the hidden marker of its suite and our bot opened it
(`Publisher.bot_logins`): an issue anyone else writes, marker pasted in or not, is never
edited or closed. Only significant drops open one (the pull request's verdict decides, at its
`alpha`); a suite that was compared again and did not drop closes its open issue; a suite not
compared this time (outside the sample, or every run errored) leaves it as it is.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evolve_action.publish.github_api import Publisher, github_error, retrying

if TYPE_CHECKING:
    from github.Issue import Issue

log = logging.getLogger(__name__)

LABEL_TITLE = "evolve watch"


def marker(suite: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "/._-" else "_" for ch in suite)
    return f"<!-- evolve:watch suite={safe} -->"


@dataclass(frozen=True, slots=True)
class CaseDrop:
    case_id: str
    model: str
    then: tuple[int, int]  # graded passes, runs in the baseline job
    then_when: str  # when the baseline job ran, and its commit
    now: tuple[int, int]
    adjusted_p: float | None
    regressed: bool  # significant alone (else it fell, counted in the skill's drop)


@dataclass(frozen=True, slots=True)
class Drop:
    """One skill's evidence."""

    suite: str
    cases: tuple[CaseDrop, ...]
    changes: tuple[str, ...]  # what moved besides time (snapshots, CLI, prices)
    snapshots: Mapping[str, str]
    reproduce: str
    run_url: str = ""


def _rate(counts: tuple[int, int]) -> str:
    passed, runs = counts
    return f"{passed}/{runs} ({passed / runs:.0%})" if runs else "no graded run"


def body(drop: Drop) -> str:
    lines = [
        marker(drop.suite),
        f"Watch found a significant drop in `{drop.suite}` on the default branch. The tree is the"
        " same as in the baseline run, so the change is the model's or the agent's.",
        "",
        "| case | model | then | now | adjusted p |",
        "|---|---|---|---|---|",
    ]
    for c in drop.cases:
        p = f"{c.adjusted_p:.4f}" if c.adjusted_p is not None else "—"
        mark = " (significant)" if c.regressed else ""
        lines.append(
            f"| `{c.case_id}` | `{c.model}` | {_rate(c.then)}, {c.then_when} | {_rate(c.now)}"
            f" | {p}{mark} |"
        )
    lines += ["", "**What changed besides time:**"]
    lines += [f"- {c}" for c in drop.changes] or ["- nothing reported: same snapshots, CLI, prices"]
    served = ", ".join(f"`{m}` → `{s}`" for m, s in sorted(drop.snapshots.items()) if s)
    if served:
        lines += ["", f"Snapshots serving this run: {served}."]
    lines += ["", "To reproduce:", "", "```sh", drop.reproduce, "```"]
    if drop.run_url:
        lines += ["", f"Run: {drop.run_url}"]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Synced:
    opened: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    closed: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()  # why a write did not happen


def sync(
    publisher: Publisher, drops: Sequence[Drop], recovered: Sequence[str], *, run_url: str = ""
) -> Synced:
    """Open or update an issue per drop; close the open issue of each recovered suite."""
    done: dict[str, list[str]] = {"opened": [], "updated": [], "closed": [], "failed": []}
    try:
        ours = _open_issues(publisher)
    except github_error() as exc:
        return Synced(failed=(f"cannot list the open issues: {exc}",))
    for drop in drops:
        try:
            what, url = _open_or_update(publisher, ours.get(marker(drop.suite)), drop)
            done[what].append(url)
        except Exception as exc:  # one skill's issue must not stop the others
            done["failed"].append(f"{drop.suite}: {exc}")
    for suite in recovered:
        issue = ours.get(marker(suite))
        if issue is None:
            continue
        note = f"Recovered: watch compared `{suite}` again and found no significant drop."
        note += f" Run: {run_url}" if run_url else ""
        try:
            done["closed"].append(_close(issue, note))
        except Exception as exc:
            done["failed"].append(f"{suite}: {exc}")
    return Synced(*(tuple(done[k]) for k in ("opened", "updated", "closed", "failed")))


def _open_or_update(publisher: Publisher, issue: Issue | None, drop: Drop) -> tuple[str, str]:
    text = body(drop)
    if issue is None:
        title = f"{LABEL_TITLE}: `{drop.suite}` dropped"
        made = retrying("opening an issue", lambda: publisher.repo.create_issue(title, text))
        return "opened", made.html_url or f"#{made.number}"
    open_issue = issue
    retrying("updating an issue", lambda: open_issue.edit(body=text))
    return "updated", issue.html_url or f"#{issue.number}"


def _close(issue: Issue, note: str) -> str:
    retrying("commenting on an issue", lambda: issue.create_comment(note))
    retrying("closing an issue", lambda: issue.edit(state="closed", state_reason="completed"))
    return issue.html_url or f"#{issue.number}"


def _open_issues(publisher: Publisher) -> dict[str, Issue]:
    """Our open watch issues by marker (pull requests and other authors' issues left out)."""
    logins = publisher.bot_logins()
    found: dict[str, Issue] = {}
    for issue in publisher.repo.get_issues(state="open"):
        if issue.pull_request is not None or issue.user.login not in logins:
            continue
        text = issue.body or ""
        start = text.find("<!-- evolve:watch suite=")
        if start >= 0:
            found.setdefault(text[start : text.find("-->", start) + 3], issue)
    return found
