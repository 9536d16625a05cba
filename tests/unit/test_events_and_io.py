from __future__ import annotations

import json
from pathlib import Path

import pytest

from evolve_action.publish.actions_io import SUMMARY_LIMIT, fit_summary, format_outputs, set_outputs
from evolve_action.settings.events import Action, EventError, decide, from_environ


def pr_payload(head_repo: str | None = "acme/skills") -> dict[str, object]:
    return {
        "pull_request": {
            "number": 12,
            "base": {"sha": "b" * 40, "ref": "main", "repo": {"full_name": "acme/skills"}},
            "head": {
                "sha": "h" * 40,
                "ref": "feature",
                "repo": {"full_name": head_repo} if head_repo else None,
            },
        }
    }


def environ(tmp_path: Path, name: str, payload: dict[str, object]) -> dict[str, str]:
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload))
    return {
        "GITHUB_EVENT_NAME": name,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": "acme/skills",
        "GITHUB_RUN_ID": "4242",
        "GITHUB_SHA": "m" * 40,
        "GITHUB_API_URL": "http://127.0.0.1:9/api/v3/",
    }


def test_pull_request_event__head_sha_not_the_merge_commit(tmp_path: Path) -> None:
    event = from_environ(environ(tmp_path, "pull_request", pr_payload()))
    assert event.pr_number == 12 and event.head_sha == "h" * 40 and event.sha == "m" * 40
    assert event.base_sha == "b" * 40 and not event.fork
    assert event.run_url == "https://github.com/acme/skills/actions/runs/4242"
    assert event.api_url == "http://127.0.0.1:9/api/v3"
    assert event.blob_url("h" * 40, "evals/a/evals.json", 24).endswith("evals.json#L24")


@pytest.mark.parametrize("head_repo", ["someone/skills", None])
def test_fork_or_deleted_fork_counts_as_fork(tmp_path: Path, head_repo: str | None) -> None:
    assert from_environ(environ(tmp_path, "pull_request", pr_payload(head_repo))).fork


@pytest.mark.parametrize(
    ("name", "fork", "secrets", "allow", "expected"),
    [
        ("pull_request", False, True, False, Action.COMPARE),
        ("pull_request", True, False, False, Action.VALIDATE_ONLY),
        ("pull_request", True, True, False, Action.COMPARE),
        ("pull_request", False, False, False, Action.VALIDATE_ONLY),
        ("push", False, False, False, Action.VALIDATE_ONLY),
        ("pull_request_target", True, True, False, Action.REFUSE),
        ("pull_request_target", True, True, True, Action.COMPARE),
        ("workflow_run", False, True, False, Action.REPORT),
        ("push", False, True, False, Action.COMPARE),
    ],
)
def test_decide(
    tmp_path: Path, name: str, fork: bool, secrets: bool, allow: bool, expected: Action
) -> None:
    payload = pr_payload("someone/skills" if fork else "acme/skills")
    event = from_environ(environ(tmp_path, name, payload))
    assert decide(event, has_secrets=secrets, allow_untrusted_code=allow) is expected


def test_bad_payload_is_a_clear_error(tmp_path: Path) -> None:
    env = environ(tmp_path, "pull_request", {"pull_request": {"number": "x"}})
    with pytest.raises(EventError, match="no number or head sha"):
        from_environ(env)


def test_outputs__delimiter_cannot_be_forged(tmp_path: Path) -> None:
    out = tmp_path / "out"
    set_outputs(str(out), {"conclusion": "failure", "comment-url": "a\nEOF\nb"})
    text = out.read_text()
    assert text.startswith("conclusion<<EOF_")
    assert "a\nEOF\nb\n" in text
    assert format_outputs({}) == ""


def test_summary_cut_at_one_mib_with_a_note() -> None:
    text = fit_summary("é" * SUMMARY_LIMIT)
    assert len(text.encode()) <= SUMMARY_LIMIT
    assert text.endswith("results.json has everything._\n")


def test_workflow_run_event__trusted_head_sha_and_fork_detection(tmp_path: Path) -> None:
    payload = {
        "workflow_run": {
            "head_sha": "f" * 40,
            "head_repository": {"full_name": "someone/skills"},
            "pull_requests": [],
        }
    }
    event = from_environ(environ(tmp_path, "workflow_run", payload))
    assert event.head_sha == "f" * 40 and event.fork and event.pr_number is None
    same = {
        "workflow_run": {
            "head_sha": "e" * 40,
            "head_repository": {"full_name": "acme/skills"},
            "pull_requests": [{"number": 9}],
        }
    }
    event = from_environ(environ(tmp_path, "workflow_run", same))
    assert event.pr_number == 9 and not event.fork
