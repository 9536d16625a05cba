"""`/evolve run`: reading the comment, and which events lead to the command flow (issue 28)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evolve_action.settings.command import Command, CommandError, comment_event, parse
from evolve_action.settings.events import Action, Event, decide


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("/evolve run", Command()),
        ("  /evolve run  \n\nthanks!", Command()),
        ("/evolve run ABCDEF1", Command(sha="abcdef1")),
        ("/evolve run runs=2 abc1234", Command(sha="abc1234", flags=(("runs", "2"),))),
        (
            "/evolve run models=anthropic,openai runs=auto",
            Command(flags=(("models", "anthropic,openai"), ("runs", "auto"))),
        ),
        ("/evolve run mode=all", Command(flags=(("mode", "all"),))),
        ("LGTM", None),
        ("", None),
        ("please /evolve run", None),  # only the first line, from its start, is a command
        ("> /evolve run\nquoted", None),
        ("/evolver run", None),
    ],
)
def test_parse(body: str, expected: Command | None) -> None:
    assert parse(body) == expected


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("/evolve", "not a command evolve knows"),
        ("/evolve help", "not a command evolve knows"),
        ("/evolve run abc", "neither a commit"),
        ("/evolve run abc1234 def5678", "neither a commit"),
        ("/evolve run fail-on-regression=false", "`fail-on-regression=` is not a flag"),
        ("/evolve run runs=0", "runs"),
        ("/evolve run mode=some", "mode"),
        ("/evolve run mode=calibrate", "its own workflow"),
        ("/evolve run alpha=0.5", "`alpha=` is not a flag"),
        ("/evolve run runs=2 runs=3", "given twice"),
        ("/evolve run models=", "has no value"),
    ],
)
def test_parse_errors_say_what_to_write(body: str, message: str) -> None:
    with pytest.raises(CommandError, match=message) as raised:
        parse(body)
    assert "/evolve run [<sha>]" in str(raised.value) or "twice" in message


def test_describe_lists_the_flags_as_written() -> None:
    command = parse("/evolve run runs=3 models=anthropic")
    assert command is not None and command.describe() == "models=anthropic runs=3"
    assert command.inputs() == {"models": "anthropic", "runs": "3"}


def _env(tmp_path: Path, payload: object, name: str = "issue_comment") -> dict[str, str]:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))
    return {"GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": str(path)}


def test_comment_event_reads_the_payload(tmp_path: Path) -> None:
    payload = {
        "action": "created",
        "issue": {"number": 7, "pull_request": {"url": "u"}},
        "comment": {"id": 99, "body": "/evolve run", "user": {"login": "ada", "type": "User"}},
    }
    event = comment_event(_env(tmp_path, payload))
    assert event is not None
    assert (event.number, event.comment_id, event.login, event.on_pull_request) == (
        7, 99, "ada", True,
    )  # fmt: skip
    assert not event.from_bot


def test_comment_event_knows_issues_bots_and_other_events(tmp_path: Path) -> None:
    bot = {"login": "github-actions[bot]", "type": "Bot"}
    payload = {"action": "created", "issue": {"number": 3}, "comment": {"id": 1, "user": bot}}
    event = comment_event(_env(tmp_path, payload))
    assert event is not None and not event.on_pull_request and event.from_bot
    assert comment_event(_env(tmp_path, payload, name="pull_request")) is None
    assert comment_event(_env(tmp_path, {"issue": {}})) is None
    assert comment_event({"GITHUB_EVENT_NAME": "issue_comment"}) is None


@pytest.mark.parametrize(
    ("name", "pending", "allow", "expected"),
    [
        ("issue_comment", False, False, Action.COMMAND),
        ("issue_comment", True, True, Action.COMMAND),
        ("pull_request_target", True, False, Action.PENDING),
        ("pull_request_target", True, True, Action.PENDING),  # pending wins: nothing runs
        ("pull_request_target", False, False, Action.REFUSE),
        ("pull_request", True, False, Action.COMPARE),  # pending-check only means _target
    ],
)
def test_decide_for_the_command_and_the_pending_check(
    name: str, pending: bool, allow: bool, expected: Action
) -> None:
    event = Event(name=name, pr_number=7, head_sha="a" * 40)
    got = decide(event, has_secrets=True, allow_untrusted_code=allow, pending_check=pending)
    assert got is expected
