"""What the `harness: cli` pull-request tests share: the greeter PR whose head makes the agent
shout (which the eval's regex rejects), and one job of it run as the container runs it,
`python -m evolve_action run` in GitHub's environment, confined at a level."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tests.actions import pull_request_event, runner_env
from tests.e2e.local_run import commit_sides, git, greeter_repo
from tests.fakes.cli_agents import cli_dir
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import FakeLLM, Script
from tests.levels import env_at_level
from tests.sample_evals import GREETER_SKILL

RUN_LIMIT_S = 280
SHOUTING = GREETER_SKILL.format(body="SHOUT: write `HELLO ADA`.")


def pr_fakes(answer: Script) -> Iterator[tuple[FakeLLM, GitHubFake]]:
    """Generator form for the fixture: the fake LLM answering with `answer`, and GitHub's."""
    with FakeLLM(answer) as llm, GitHubFake() as gh:
        yield llm, gh
        assert not llm.script_errors, llm.script_errors


def shouting_pr(root: Path, case: Mapping[str, Any], skill: str = GREETER_SKILL) -> Path:
    """The greeter plugin with `case` on `main`; on `pr`, its skill tells the agent to shout."""
    greeter_repo(root, skill.format(body="Write `Hello, Ada!`."), json.dumps({"evals": [case]}))
    shout = skill.format(body="SHOUT: write `HELLO ADA`.")
    return commit_sides(root, {"skills/greeter/SKILL.md": shout})


def run_pr_job(
    root: Path,
    tmp_path: Path,
    fakes: tuple[FakeLLM, GitHubFake],
    level: str,
    inputs: Mapping[str, str],
) -> subprocess.CompletedProcess[str]:
    """The job on the PR checked out at `root` (`main` its base), Anthropic behind the fake,
    four runs a side through the CLIs, each confined at `level` or not run; `inputs` adds to
    or overrides those (`INPUT_…` names)."""
    llm, gh = fakes
    base = git(root, "rev-parse", "main").strip()
    head = git(root, "rev-parse", "HEAD").strip()
    event = pull_request_event(tmp_path / "event.json", base, head)
    actions = runner_env(
        tmp_path, event_name="pull_request", event=event, workspace=root, sha=head,
        api_url=gh.url,
    )  # fmt: skip
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        **actions,
        "INPUT_MODELS": "anthropic",
        "INPUT_JUDGE-MODEL": "anthropic",
        "INPUT_RUNS": "4",
        "INPUT_HARNESS": "cli",
        "INPUT_RESULTS-DIR": str(tmp_path / "results"),
        "INPUT_ALLOW-UNCONFINED": "false",  # confined at the level, or no run
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "ANTHROPIC_BASE_URL": llm.anthropic_base_url,
        "EVOLVE_CLI_DIR": str(cli_dir()),
        "EVOLVE_RETRY_BASE_DELAY_S": "0.01",
        **inputs,
    }
    return subprocess.run(
        [sys.executable, "-m", "evolve_action", "run"],
        env=env_at_level(level, env, tmp_path / "path"), cwd=root,
        capture_output=True, text=True, timeout=RUN_LIMIT_S, check=False,
    )  # fmt: skip
