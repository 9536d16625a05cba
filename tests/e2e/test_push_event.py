"""`push` runs every eval (mode all) against the commit before the push, as the container
runs it; there is no PR, so no comment, and the check run lands on the pushed commit."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.test_pull_request import (
    agent,
    container_env,
    git,
    make_repo,
    outputs,
    run_container,
)
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import FakeLLM


def test_push__all_evals_against_the_previous_commit(tmp_path: Path) -> None:
    root, _, before = make_repo(tmp_path)
    (root / "README.md").write_text("docs only\n")  # a push that touches no eval input
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "docs")
    base, head = before, git(root, "rev-parse", "HEAD")
    with FakeLLM(agent) as llm, GitHubFake() as gh:
        env = container_env(root, tmp_path, llm, gh, base, head)
        (tmp_path / "event.json").write_text(json.dumps({"before": base, "after": head}))
        env |= {"GITHUB_EVENT_NAME": "push", "INPUT_MODE": "changed", "INPUT_RUNS": "2"}
        done = run_container(env, root)
        assert not llm.script_errors, llm.script_errors
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert gh.comments == {}  # no pull request to comment on
    (check,) = gh.check_runs
    assert check["head_sha"] == head and check["status"] == "completed"
    doc = json.loads((tmp_path / "results/results.json").read_text())
    suites = {c["suite"] for c in doc["aggregate"]["cases"]}
    # Nothing the push changed affects an eval, yet mode all runs every one of them.
    assert suites == {"evals/greeter/evals.json", "evals/farewell/evals.json"}
    sides = {r["side"] for r in doc["runs"]}
    assert sides == {"base", "head"}
    assert outputs(tmp_path / "output")["conclusion"] in ("success", "failure")
