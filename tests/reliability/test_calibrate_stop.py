"""A calibration told to stop (SIGTERM: a cancelled workflow) concludes cancelled, never green,
with its report and files whole: `mode: calibrate` in the Actions environment, against the
loopback fakes. Every wait is for a state, never for a duration."""

from __future__ import annotations

import json
import signal
from pathlib import Path

from tests.fakes.llm_server import Answer, FakeLLM, Request, Stall
from tests.fakes.scripts import user_text
from tests.reliability.helpers import (
    FaultyGitHub,
    RunningCli,
    actions_env,
    agent,
    make_repo,
    outputs,
    until,
)


def stall_shout(request: Request) -> Answer:
    if "(shout)" in user_text(request):
        return Stall(600)  # until the fake stops
    return agent(request)


def test_calibration_stopped_mid_run__cancelled_with_what_it_has(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shas = make_repo(root)
    with FakeLLM(stall_shout) as llm, FaultyGitHub() as gh:
        urls = (llm.anthropic_base_url, llm.openai_base_url)
        env = actions_env(root, tmp_path, urls, gh.url, *shas) | {
            "INPUT_MODELS": "anthropic",
            "INPUT_MODE": "calibrate",
            "EVOLVE_STOP_GRACE_S": "1",
            "EVOLVE_REQUEST_TIMEOUT_S": "600",
            "EVOLVE_STOP_PUBLISH_S": "120",
        }
        cli = RunningCli(env, root)
        cli.wait_for_runs(4)  # `hello`: two runs on each side
        until(lambda: sum("(shout)" in user_text(r) for r in list(llm.requests)) >= 4, "shout")
        cli.signal(signal.SIGTERM)
        code = cli.wait(20)
        (check,) = gh.check_runs

    assert code == 128 + signal.SIGTERM.value, (code, cli.stderr)
    assert "Traceback" not in cli.stderr, cli.stderr
    headline = "stopped before the end: 4 of 8 runs done"
    assert check["name"] == "evolve calibration" and check["conclusion"] == "cancelled"
    assert check["output"]["title"] == f"⏹️ evolve calibration: {headline}"
    summary = (tmp_path / "summary").read_text()
    assert headline in summary and "**No false alarm in the runs made**" in summary
    assert outputs(tmp_path / "output")["conclusion"] == "cancelled"
    doc = json.loads((tmp_path / "results/calibration/calibration.json").read_text())
    assert doc["conclusion"] == "cancelled" and doc["head_sha"] == shas[1]
    assert [r["case_id"] for r in doc["rows"]] == ["hello"]
    assert not (tmp_path / "cache").exists()  # a calibration leaves the run cache alone
