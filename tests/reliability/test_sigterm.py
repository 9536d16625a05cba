"""SIGTERM and SIGINT (a cancelled workflow) on the real CLI, in a subprocess, in the Actions
environment, against the loopback fakes: mid-run, before the first run, and while posting.

Whenever the signal comes, the job must exit non-zero and soon, conclude its check run
`cancelled` (never green, never red for what did not run), say "stopped before the end:
N of M runs done" in the comment and the job summary, write complete files, and keep the
runs that finished in the cache: the next push does not ask the model for them again.

Every wait is for a state (runs printed, a request seen by a fake), never for a duration.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import Answer, FakeLLM, Request, Stall
from tests.fakes.scripts import tool_names, user_text
from tests.reliability.helpers import (
    CLI_TIMEOUT_S,
    PR,
    REPO,
    FaultyGitHub,
    RunningCli,
    actions_env,
    agent,
    make_repo,
    outputs,
    run_cli,
    until,
)

PROMPT_EXIT_S = 20  # generous: only matters when the CLI ignores the signal
CHECK_RUNS = f"/repos/{REPO}/check-runs"
COMMENT_EDITS = f"/repos/{REPO}/issues/comments/"


def stall_shout(request: Request) -> Answer:
    if "(shout)" in user_text(request):
        return Stall(600)  # until the fake stops
    return agent(request)


def shout_requests(llm: FakeLLM) -> int:
    return sum("(shout)" in user_text(r) for r in list(llm.requests))


def cancelled_check(gh: FaultyGitHub) -> dict[str, Any]:
    (check,) = gh.check_runs
    assert (check["status"], check.get("conclusion")) == ("completed", "cancelled"), check
    return check


def the_comment(gh: FaultyGitHub) -> str:
    (comment,) = gh.comments.get((REPO, PR), [])
    return str(comment["body"])


def every_file_whole(*directories: Path) -> int:
    """Every JSON file parses and no temporary file is left behind; returns how many."""
    count = 0
    for directory in directories:
        for path in directory.rglob("*"):
            assert not path.name.endswith(".tmp"), path
            if path.suffix == ".json":
                json.loads(path.read_text(encoding="utf-8"))
                count += 1
    return count


def env_for(
    tmp: Path, root: Path, llm: FakeLLM, gh: FaultyGitHub, shas: tuple[str, str]
) -> dict[str, str]:
    env = actions_env(root, tmp, (llm.anthropic_base_url, llm.openai_base_url), gh.url, *shas)
    # A stopped job's GitHub writes get as long as they need here (GitHub's own clock is not
    # what these tests are about; `test_stopped_while_github_hangs…` is).
    env.update(
        {
            "INPUT_MODELS": "anthropic",
            "EVOLVE_REQUEST_TIMEOUT_S": "600",
            "EVOLVE_STOP_PUBLISH_S": "120",
        }
    )
    return env


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stopped_mid_run__cancelled_check_and_the_finished_runs_cached(
    tmp_path: Path, sig: signal.Signals
) -> None:
    """The four `hello` runs end, the four `shout` runs hang; the signal comes, the grace
    (1 s here) cuts the hanging ones. A second job on the same cache asks for `shout` only."""
    root = tmp_path / "repo"
    shas = make_repo(root)
    with FakeLLM(stall_shout) as llm, FaultyGitHub() as gh:
        env = env_for(tmp_path, root, llm, gh, shas) | {"EVOLVE_STOP_GRACE_S": "1"}
        cli = RunningCli(env, root)
        cli.wait_for_runs(4)
        until(lambda: shout_requests(llm) >= 4, "every `shout` run's request hanging")
        sent = cli.signal(sig)
        code = cli.wait(PROMPT_EXIT_S)
        elapsed = time.monotonic() - sent
        comment = the_comment(gh)
        check = cancelled_check(gh)

    assert code == 128 + sig.value, (code, cli.stderr)
    assert elapsed < PROMPT_EXIT_S
    assert "Traceback" not in cli.stderr, cli.stderr
    assert all(" hello " in line for line in cli.lines if line.startswith("PASS "))

    data = json.loads((tmp_path / "results/results.json").read_text())
    assert sorted((r["case_id"], r["side"]) for r in data["runs"]) == [
        ("hello", "base"), ("hello", "base"), ("hello", "head"), ("hello", "head"),
    ]  # fmt: skip
    assert all(r["status"] == "pass" for r in data["runs"])
    settings = data["settings"]
    assert (settings["incomplete"], settings["stopped_by"], settings["planned_runs"]) == (
        True, sig.name, 8,
    )  # fmt: skip

    headline = "stopped before the end: 4 of 8 runs done"
    assert comment.split("\n", 2)[1] == f"### ⏹️ evolve: {headline}", comment[:300]
    assert f"Stopped by {sig.name}" in comment and "cached for the next push" in comment
    assert "budget" not in comment  # the runs were not left out for the budget
    assert check["output"]["title"] == headline
    assert headline in (tmp_path / "summary").read_text()
    assert outputs(tmp_path / "output")["conclusion"] == "cancelled"
    assert every_file_whole(tmp_path / "results", tmp_path / "cache") > 4

    # The next push: the same cache, a model that answers everything.
    with FakeLLM(agent) as llm, FaultyGitHub() as gh:
        again = run_cli(["run"], env_for(tmp_path, root, llm, gh, shas), root)
        asked = [user_text(r) for r in llm.requests]
    assert again.returncode in (0, 1), again.stdout + again.stderr
    assert asked and not [text for text in asked if "(hello)" in text]  # 0 calls for `hello`
    runs = json.loads((tmp_path / "results/results.json").read_text())["runs"]
    assert sorted((r["case_id"], r["cached"]) for r in runs) == [
        ("hello", True)] * 4 + [("shout", False)] * 4  # fmt: skip


def test_sigint_then_sigterm__runs_in_flight_end_within_the_grace_until_the_second_signal(
    tmp_path: Path,
) -> None:
    """GitHub's way: SIGINT, then SIGTERM. Two `shout` runs answer a moment after SIGINT and
    are kept (their grace is long); the two that hang are cut by the SIGTERM that follows."""
    root = tmp_path / "repo"
    shas = make_repo(root)
    lock = threading.Lock()
    late: list[int] = []
    release = threading.Event()

    def script(request: Request) -> Answer:
        if "(shout)" in user_text(request) and request.turn == 0:
            with lock:
                late.append(request.index)
                first_two = len(late) <= 2
            if first_two:
                release.wait(CLI_TIMEOUT_S)  # answered once SIGINT has been sent
                return agent(request)
            return Stall(600)
        return agent(request)

    with FakeLLM(script) as llm, FaultyGitHub() as gh:
        env = env_for(tmp_path, root, llm, gh, shas) | {"EVOLVE_STOP_GRACE_S": "60"}
        cli = RunningCli(env, root)
        cli.wait_for_runs(4)
        until(lambda: len(late) >= 4, "every `shout` run's first request arrived")
        cli.signal(signal.SIGINT)
        release.set()
        cli.wait_for_runs(6)  # the two answered `shout` runs end within the grace
        cli.signal(signal.SIGTERM)  # cuts the grace: the two hanging runs go now
        code = cli.wait(PROMPT_EXIT_S)
        comment = the_comment(gh)
        cancelled_check(gh)

    assert code == 128 + signal.SIGINT.value, (code, cli.stderr)  # the first signal's
    assert "Traceback" not in cli.stderr, cli.stderr
    data = json.loads((tmp_path / "results/results.json").read_text())
    assert sorted(r["case_id"] for r in data["runs"]) == ["hello"] * 4 + ["shout"] * 2
    assert "stopped before the end: 6 of 8 runs done" in comment


def test_stopped_before_the_first_run__no_model_call_and_a_cancelled_check(
    tmp_path: Path,
) -> None:
    """GitHub hangs on opening the check run (the in-progress report, before any run); the
    signal comes then. No run starts, and the check is still concluded `cancelled`."""
    root = tmp_path / "repo"
    shas = make_repo(root)
    with FakeLLM(agent) as llm, FaultyGitHub() as gh:
        stall = gh.stall_once("POST", CHECK_RUNS)
        cli = RunningCli(env_for(tmp_path, root, llm, gh, shas), root)
        assert stall.arrived.wait(CLI_TIMEOUT_S), "the check run was never opened"
        cli.signal(signal.SIGTERM)
        code = cli.wait(PROMPT_EXIT_S)
        asked = len(llm.requests)
        comment = the_comment(gh)
        check = cancelled_check(gh)  # the one the stopped job opened and concluded

    assert code == 128 + signal.SIGTERM.value, (code, cli.stderr)
    assert "Traceback" not in cli.stderr, cli.stderr
    assert asked == 0
    assert check["output"]["title"] == "stopped before the end: 0 of 8 runs done"
    assert "stopped before the end: 0 of 8 runs done" in comment
    data = json.loads((tmp_path / "results/results.json").read_text())
    assert data["runs"] == [] and data["settings"]["stopped_by"] == "SIGTERM"
    assert outputs(tmp_path / "output")["conclusion"] == "cancelled"


def test_stopped_while_posting__the_stopped_report_replaces_the_verdict(
    tmp_path: Path,
) -> None:
    """Every run has ended; GitHub hangs on the final comment edit and the signal comes then.
    The comment is written again, stopped, and the check run concluded `cancelled`."""
    root = tmp_path / "repo"
    shas = make_repo(root)
    with FakeLLM(agent) as llm, FaultyGitHub() as gh:
        stall = gh.stall_once("PATCH", COMMENT_EDITS)
        cli = RunningCli(env_for(tmp_path, root, llm, gh, shas), root)
        cli.wait_for_runs(8)
        assert stall.arrived.wait(CLI_TIMEOUT_S), "the final comment was never sent"
        cli.signal(signal.SIGTERM)
        code = cli.wait(PROMPT_EXIT_S)
        comment = the_comment(gh)
        check = cancelled_check(gh)

    assert code == 128 + signal.SIGTERM.value, (code, cli.stderr)
    assert "Traceback" not in cli.stderr, cli.stderr
    headline = "stopped before the end: 8 of 8 runs done"
    assert headline in comment and "Every planned run was made by then" in comment
    assert check["output"]["title"] == headline
    data = json.loads((tmp_path / "results/results.json").read_text())
    assert len(data["runs"]) == 8  # written before the posting began: every run is there
    summary = (tmp_path / "summary").read_text()
    assert summary.count("### ") == 1 and headline in summary  # one summary: the stopped one
    assert outputs(tmp_path / "output")["conclusion"] == "cancelled"


def test_stopped_while_github_hangs_for_good__the_files_are_still_written_in_time(
    tmp_path: Path,
) -> None:
    """GitHub hangs on the final comment edit and on the stopped one too: the job gives up on
    GitHub after its limit (1 s here), writes the job summary and outputs, and exits."""
    root = tmp_path / "repo"
    shas = make_repo(root)
    with FakeLLM(agent) as llm, FaultyGitHub() as gh:
        first = gh.stall_once("PATCH", COMMENT_EDITS)
        gh.stall_once("PATCH", COMMENT_EDITS)
        env = env_for(tmp_path, root, llm, gh, shas) | {"EVOLVE_STOP_PUBLISH_S": "1"}
        cli = RunningCli(env, root)
        cli.wait_for_runs(8)
        assert first.arrived.wait(CLI_TIMEOUT_S), "the final comment was never sent"
        sent = cli.signal(signal.SIGTERM)
        code = cli.wait(PROMPT_EXIT_S)
        elapsed = time.monotonic() - sent

    assert code == 128 + signal.SIGTERM.value, (code, cli.stderr)
    assert elapsed < PROMPT_EXIT_S
    assert "Traceback" not in cli.stderr, cli.stderr
    summary = (tmp_path / "summary").read_text()
    assert "stopped before the end: 8 of 8 runs done" in summary
    assert "the GitHub writes did not finish before the job had to end" in summary
    assert outputs(tmp_path / "output")["conclusion"] == "cancelled"


def test_stopped_with_one_side_unrun__its_cases_are_not_run_not_new(tmp_path: Path) -> None:
    """Every base run hangs once it has read its skill; the head runs end. Stopped then, the
    report must not call the cases new (their base runs were planned, never made)."""
    root = tmp_path / "repo"
    shas = make_repo(root)

    def base_hangs(request: Request) -> Answer:
        judged = "submit_grading" in tool_names(request)
        if request.turn == 1 and not judged and "Be brief." not in " ".join(request.tool_results):
            return Stall(600)  # a base run: its skill has no "Be brief."
        return agent(request)

    with FakeLLM(base_hangs) as llm, FaultyGitHub() as gh:
        env = env_for(tmp_path, root, llm, gh, shas) | {"EVOLVE_STOP_GRACE_S": "0"}
        cli = RunningCli(env, root)
        cli.wait_for_runs(4)  # the head runs of both cases
        cli.signal(signal.SIGTERM)
        code = cli.wait(PROMPT_EXIT_S)
        comment = the_comment(gh)
        cancelled_check(gh)

    assert code == 128 + signal.SIGTERM.value, (code, cli.stderr)
    assert all("[base]" not in line for line in cli.lines if line.startswith(("PASS", "FAIL")))
    assert "stopped before the end: 4 of 8 runs done" in comment
    assert "**New:**" not in comment and "2 not run on one side" in comment
