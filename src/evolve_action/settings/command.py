"""`/evolve run` on a pull request: the comment that asks for a run, read from an
`issue_comment` event.

The command is the first line of the comment: `/evolve run`, then optionally the commit to
run (7 to 40 hex digits) and the flags `runs=`, `models=` and `mode=`. The flags come from a
maintainer whose permission was checked, so they win over the workflow's inputs; every other
setting (and everything that decides the verdict) stays the default branch's. A comment that
does not start with `/evolve` is no command; one that starts with `/evolve` but says
something else gets the usage in its error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evolve_action.settings.inputs import SettingsError, from_values

PREFIX = "/evolve"
USAGE = "`/evolve run [<sha>] [runs=<n>|auto] [models=<model>,<model>] [mode=changed|all]`"
# The inputs a command may set: how much to run, never how to judge it.
FLAGS = ("runs", "models", "mode")
_SHA = re.compile(r"[0-9a-f]{7,40}")


class CommandError(ValueError):
    """The comment starts with `/evolve` but is not a command we can run; says why."""


@dataclass(frozen=True, slots=True)
class Command:
    sha: str = ""  # "" : the PR's head at the moment of the command
    flags: tuple[tuple[str, str], ...] = ()  # (input name, raw value), validated

    def inputs(self) -> dict[str, str]:
        return dict(self.flags)

    def describe(self) -> str:
        """The flags as written, for the reply ("" when none)."""
        return " ".join(f"{name}={value}" for name, value in self.flags)


@dataclass(frozen=True, slots=True)
class CommentEvent:
    """What an `issue_comment` payload says about the comment and where it was made."""

    action: str  # created, edited, deleted
    number: int  # the issue or pull request
    on_pull_request: bool
    comment_id: int
    body: str
    login: str
    user_type: str  # User, Bot, Organization

    @property
    def from_bot(self) -> bool:
        return self.user_type == "Bot" or self.login.endswith("[bot]")


def parse(body: str) -> Command | None:
    """The command in a comment body; None when the comment is no command at all."""
    lines = [line.strip() for line in body.strip().splitlines()]
    first = lines[0] if lines else ""
    words = first.split()
    if not words or words[0] != PREFIX:
        return None
    if len(words) < 2 or words[1] != "run":
        raise CommandError(f"`{first[:80]}` is not a command evolve knows; write {USAGE}")
    sha = ""
    flags: dict[str, str] = {}
    for word in words[2:]:
        name, eq, value = word.partition("=")
        if not eq:
            if sha or not _SHA.fullmatch(word.lower()):
                raise CommandError(
                    f"`{word[:60]}` is neither a commit (7 to 40 hex digits, once) nor a flag;"
                    f" write {USAGE}"
                )
            sha = word.lower()
            continue
        if name not in FLAGS:
            raise CommandError(f"`{name[:40]}=` is not a flag of the command; write {USAGE}")
        if name in flags:
            raise CommandError(f"`{name}=` is given twice; give it once")
        try:
            from_values({name: value})
        except SettingsError as exc:
            raise CommandError(f"{exc}; write {USAGE}") from exc
        if not value.strip():
            raise CommandError(f"`{name}=` has no value; write {USAGE}")
        if name == "mode" and value.strip() == "calibrate":
            raise CommandError(
                "`mode=calibrate` measures the default branch, not a pull request: run it from"
                f" its own workflow (examples/workflows/evolve-calibrate.yml); write {USAGE}"
            )
        flags[name] = value
    return Command(sha=sha, flags=tuple(sorted(flags.items())))


def comment_event(environ: Mapping[str, str]) -> CommentEvent | None:
    """The comment of an `issue_comment` event (None for any other event or payload)."""
    if environ.get("GITHUB_EVENT_NAME") != "issue_comment":
        return None
    path = environ.get("GITHUB_EVENT_PATH", "")
    try:
        payload: Any = json.loads(Path(path).read_text(encoding="utf-8")) if path else {}
    except (OSError, ValueError):
        return None
    if not isinstance(payload, dict):
        return None
    issue = payload.get("issue") or {}
    comment = payload.get("comment") or {}
    user = comment.get("user") or {}
    number, cid = issue.get("number"), comment.get("id")
    if not isinstance(number, int) or not isinstance(cid, int):
        return None
    return CommentEvent(
        action=str(payload.get("action") or ""),
        number=number,
        on_pull_request=isinstance(issue.get("pull_request"), dict),
        comment_id=cid,
        body=str(comment.get("body") or ""),
        login=str(user.get("login") or ""),
        user_type=str(user.get("type") or ""),
    )
