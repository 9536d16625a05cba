"""A watch cut by the job's time limit (the runner's SIGTERM) records nothing and opens no
issue; the next watch of the same commit takes the same selection and cache, and makes only
the runs that had not finished. Every wait is for a state, never for a duration."""

from __future__ import annotations

import json
import signal
from pathlib import Path

from tests.e2e.test_pull_request import run_container
from tests.e2e.watch_repo import Model, history_lines, make_main, new_summary, watch_env
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import Answer, FakeLLM, Request, Stall
from tests.fakes.scripts import user_text
from tests.reliability.helpers import RunningCli, until

RUNS = 3


class Stalling(Model):
    """Case `bye` never answers while `stall` is set (a job running out of time on it)."""

    def __init__(self) -> None:
        super().__init__()
        self.stall = True

    def __call__(self, request: Request) -> Answer:
        if self.stall and "(bye)" in user_text(request):
            return Stall(600)  # until the fake stops
        return super().__call__(request)


def test_watch_cut_by_the_time_limit__the_next_run_finishes_without_redoing_work(
    tmp_path: Path,
) -> None:
    root, sha = make_main(tmp_path)
    model = Stalling()
    with FakeLLM(model) as llm, GitHubFake() as gh:
        env = watch_env(root, tmp_path, llm, gh, sha, runs=RUNS) | {
            "INPUT_MAX-CONCURRENCY": "16",
            "EVOLVE_STOP_GRACE_S": "1",
            "EVOLVE_REQUEST_TIMEOUT_S": "600",
        }
        cli = RunningCli(env, root)
        cli.wait_for_runs(2 * RUNS)  # greeter's two cases; `bye` hangs
        until(lambda: sum("(bye)" in user_text(r) for r in list(llm.requests)) >= RUNS, "bye")
        cli.signal(signal.SIGTERM)
        code = cli.wait(60)
        assert code == 128 + signal.SIGTERM.value, (code, cli.stderr)
        assert "Traceback" not in cli.stderr, cli.stderr
        cut = new_summary(tmp_path)
        assert "**Cut before the end:** 6 of 9 runs done" in cut
        assert history_lines(tmp_path) == [] and gh.issues == {}
        marker = json.loads((tmp_path / "cache/watch/pending.json").read_text())
        assert marker["sha"] == sha and marker["full"] is True

        model.stall = False
        before = len(llm.requests)
        done = run_container(env, root)
        assert done.returncode == 0, done.stdout + done.stderr
        again = [user_text(r) for r in llm.requests[before:]]
    assert not any("(greet)" in t or "(named)" in t for t in again)  # done before the cut
    assert sum("(bye)" in t for t in again) >= RUNS  # only the runs never finished
    summary = new_summary(tmp_path)
    assert "Resumed a watch that was cut." in summary and "9 of 9 made" in summary
    (line,) = history_lines(tmp_path)
    assert line["full"] is True
    assert sorted((c[1], c[4] + c[5]) for c in line["cells"]) == [
        ("bye", RUNS), ("greet", RUNS), ("named", RUNS),
    ]  # fmt: skip
    assert not (tmp_path / "cache/watch/pending.json").exists()
