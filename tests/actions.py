"""What every test that runs the action "the Actions way" writes: the event file GitHub gives
the job, and the environment the runner sets (`GITHUB_*`, the token input, the files for
outputs and the job summary). One place, so each test only says what its job differs in.

The names and shapes are GitHub's: docs.github.com, "Variables" (default environment
variables) and "Events that trigger workflows" (the `pull_request` payload).
"""

from __future__ import annotations

import json
from pathlib import Path

REPO = "acme/skills"
PR = 7


def pull_request_event(
    path: Path,
    base: str,
    head: str,
    *,
    number: int = PR,
    head_repo: str = REPO,
    action: str = "synchronize",
) -> Path:
    """A `pull_request` payload at `path`: PR `number` from `feature` into `main`."""
    path.write_text(json.dumps({
        "action": action,
        "number": number,
        "pull_request": {
            "number": number,
            "base": {"sha": base, "ref": "main", "repo": {"full_name": REPO}},
            "head": {"sha": head, "ref": "feature", "repo": {"full_name": head_repo}},
        },
    }))  # fmt: skip
    return path


def runner_env(
    tmp: Path,
    *,
    event_name: str,
    event: Path,
    workspace: Path,
    sha: str,
    api_url: str,
    run_id: str = "4242",
) -> dict[str, str]:
    """The runner's variables for one job, with `output` and `summary` files under `tmp`."""
    for name in ("output", "summary"):
        (tmp / name).touch()
    return {
        "GITHUB_ACTIONS": "true",
        "CI": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_SHA": sha,
        "GITHUB_RUN_ID": run_id,
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_API_URL": api_url,
        "GITHUB_OUTPUT": str(tmp / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp / "summary"),
        "INPUT_GITHUB-TOKEN": "ghs_fake",
    }
