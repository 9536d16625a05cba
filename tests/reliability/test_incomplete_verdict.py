"""Runs missing without a signal: the clock of `runs: auto` (`max-minutes`) cutting an eval
still open, and a provider outage leaving an eval with no graded run. Through the real CLI
in the Actions environment, against the loopback fakes.

Either way the check must not be green: a verdict is never drawn from runs never made. It
is neutral and says what is missing; a regression among the runs that were made would still
fail it (tests/unit/test_gate.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.llm_server import Answer, FakeLLM, Fault, Request
from tests.fakes.scripts import user_text
from tests.reliability.helpers import (
    PR,
    REPO,
    FaultyGitHub,
    actions_env,
    agent,
    make_repo,
    outputs,
    run_cli,
)


def run_job(
    tmp: Path, root: Path, llm: FakeLLM, shas: tuple[str, str], **inputs: str
) -> tuple[int, str, dict[str, object], str]:
    """Run once; returns (exit code, the check's conclusion, its output, the comment)."""
    with FaultyGitHub() as gh:
        env = actions_env(root, tmp, (llm.anthropic_base_url, llm.openai_base_url), gh.url, *shas)
        env.update({"INPUT_MODELS": "anthropic"} | {f"INPUT_{k}": v for k, v in inputs.items()})
        done = run_cli(["run"], env, root)
        assert "Traceback" not in done.stderr, done.stderr
        (check,) = gh.check_runs
        (comment,) = gh.comments[(REPO, PR)]
    return (
        done.returncode,
        str(check.get("conclusion")),
        dict(check["output"]),
        str(comment["body"]),
    )


def test_max_minutes_cutting_an_open_eval_is_neutral_not_success(tmp_path: Path) -> None:
    """`hello` passes on base and fails on head: 2 runs per side cannot tell, so `runs: auto`
    wants more, and `max-minutes` has already run out. Unsettled, it cannot be green."""
    root = tmp_path / "repo"
    shas = make_repo(root, head_msg="HELLO ADA")
    with FakeLLM(agent) as llm:
        code, conclusion, output, comment = run_job(
            tmp_path, root, llm, shas, **{"RUNS": "auto", "MAX-MINUTES": "0.0001"}
        )
    assert (code, conclusion) == (0, "neutral"), output
    assert output["title"] == "incomplete: max-minutes ran out with 1 eval still open"
    assert "max-minutes ran out with 1 eval still open" in comment
    data = json.loads((tmp_path / "results/results.json").read_text())
    assert len(data["runs"]) == 8  # the start wave only: 2 runs per side of each case
    assert data["settings"]["incomplete"] is True
    assert data["settings"]["incomplete_because"] == ["max-minutes ran out with 1 eval still open"]
    assert outputs(tmp_path / "output")["conclusion"] == "neutral"


def test_an_outage_leaving_an_eval_ungraded_is_neutral_not_success(tmp_path: Path) -> None:
    """Every request of `shout` fails past its retries; `hello` passes on both sides, with
    runs enough to tell (4 per side): without `shout` the check would be green. Green
    would speak for `shout`, which was never graded."""
    root = tmp_path / "repo"
    shas = make_repo(root)

    def script(request: Request) -> Answer:
        if "(shout)" in user_text(request):
            return Fault(529, retry_after=0.01, message="Overloaded")
        return agent(request)

    with FakeLLM(script) as llm:
        code, conclusion, output, comment = run_job(tmp_path, root, llm, shas, RUNS="4")
    assert (code, conclusion) == (0, "neutral"), output
    reason = "incomplete: 1 eval not graded (every run on a side errored)"
    assert output["title"] == reason and reason in comment
    data = json.loads((tmp_path / "results/results.json").read_text())
    statuses = sorted((r["case_id"], r["status"]) for r in data["runs"])
    assert statuses == [("hello", "pass")] * 8 + [("shout", "error")] * 8
    assert outputs(tmp_path / "output")["conclusion"] == "neutral"
