"""`mode: calibrate` the Actions way: a scheduled run, as the container runs it, with `INPUT_*`
and `GITHUB_*` variables and loopback fakes of the LLM providers and GitHub. No pull request:
a job summary, the step outputs and a check run named apart from the PR check, on the commit
calibrated; a cost budget that leaves runs unmade never concludes success."""

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


def scheduled(env: dict[str, str], tmp_path: Path, **inputs: str) -> dict[str, str]:
    (tmp_path / "event.json").write_text(json.dumps({"schedule": "17 3 * * 1"}))
    env = env | {"GITHUB_EVENT_NAME": "schedule", "INPUT_MODE": "calibrate", "INPUT_RUNS": "3"}
    return env | {f"INPUT_{k.upper().replace('_', '-')}": v for k, v in inputs.items()}


def test_mode_calibrate__scheduled_summary_outputs_and_check_run(tmp_path: Path) -> None:
    root, _, head = make_repo(tmp_path)
    git(root, "checkout", "-q", "main")  # the scheduled run checks out the default branch
    main = git(root, "rev-parse", "HEAD")
    with FakeLLM(agent) as llm, GitHubFake() as gh:
        env = scheduled(container_env(root, tmp_path, llm, gh, main, head), tmp_path)
        env["GITHUB_SHA"] = main
        done = run_container(env, root)
        assert not llm.script_errors, llm.script_errors
    assert done.returncode == 0, done.stdout + done.stderr
    assert "[A] evals/greeter/evals.json greet" in done.stdout
    assert gh.comments == {}  # no pull request, no comment
    (check,) = gh.check_runs
    assert check["name"] == "evolve calibration" and check["head_sha"] == main
    assert check["status"] == "completed" and check["conclusion"] == "success"
    assert check["output"]["title"] == "✅ evolve calibration: no false alarm; flip rate 0%"
    summary = (tmp_path / "summary").read_text()
    assert "**Flip rate 0%**" in summary and "**No false alarm**" in summary
    assert "| `greet` | `anthropic/claude-sonnet-4-6` | 3/3 | 3/3 |  | 0 pts | 3 |" in summary
    found = outputs(tmp_path / "output")
    assert found["conclusion"] == "success" and found["regressions"] == "0"
    assert found["pass-rate"] == found["base-pass-rate"] and found["delta"] == "0.0000"
    doc = json.loads((tmp_path / "results/calibration/calibration.json").read_text())
    assert doc["head_sha"] == main and doc["false_alarms"] == 0 and doc["flip_rate"] == 0
    # Three evals on main (greet, old, bye), two models, three runs a side: all made afresh.
    results = json.loads((tmp_path / "results/results.json").read_text())
    assert len(results["runs"]) == 3 * 2 * 3 * 2
    assert not any(r["cached"] for r in results["runs"])
    assert not (tmp_path / "cache").exists()  # the PR cache was neither read nor written


def test_mode_calibrate__runs_left_unmade_are_never_green(tmp_path: Path) -> None:
    root, _, head = make_repo(tmp_path)
    with FakeLLM(agent) as llm, GitHubFake() as gh:
        env = container_env(root, tmp_path, llm, gh, head, head)
        env = scheduled(env, tmp_path, max_cost_usd="0.0001", max_concurrency="1")
        done = run_container(env, root)
        assert not llm.script_errors, llm.script_errors
    assert done.returncode == 0, done.stdout + done.stderr
    (check,) = gh.check_runs
    assert check["conclusion"] == "neutral"
    assert "incomplete" in check["output"]["title"], check["output"]["title"]
    assert outputs(tmp_path / "output")["conclusion"] == "neutral"
    summary = (tmp_path / "summary").read_text()
    assert "incomplete" in summary and "**No false alarm in the runs made**" in summary
