"""SIGTERM in the middle of a run (a cancelled workflow), on the real CLI in a subprocess.

The fake LLM stalls every request of the `shout` case and answers `hello` at once. Once the
CLI has printed the four finished `hello` runs (base and head, two each), it gets SIGTERM
while the `shout` runs hang. It must exit promptly, write `results.json` with exactly the
finished runs, and say in the comment and the job summary that the run is incomplete.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.fakes.llm_server import Answer, FakeLLM, Request, Stall
from tests.fakes.scripts import user_text
from tests.reliability.helpers import (
    CLI_TIMEOUT_S,
    PR,
    REPO,
    FaultyGitHub,
    actions_env,
    agent,
    make_repo,
    outputs,
)

PROMPT_EXIT_S = 20  # generous: only matters when the CLI ignores SIGTERM


def script(request: Request) -> Answer:
    if "(shout)" in user_text(request):
        return Stall(600)  # until the fake stops
    return agent(request)


def test_sigterm__exits_promptly_keeps_finished_runs_and_reports_incomplete(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    base, head = make_repo(root)
    with FakeLLM(script) as llm, FaultyGitHub() as gh:
        urls = (llm.anthropic_base_url, llm.openai_base_url)
        env = actions_env(root, tmp_path, urls, gh.url, base, head)
        env.update({"INPUT_MODELS": "anthropic", "EVOLVE_REQUEST_TIMEOUT_S": "600"})
        proc = subprocess.Popen(
            [sys.executable, "-m", "evolve_action", "run"],
            env=env, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        lines: queue.Queue[str | None] = queue.Queue()

        def pump() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.put(line)
            lines.put(None)

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        seen: list[str] = []
        try:
            finished = 0
            while finished < 4:
                line = lines.get(timeout=CLI_TIMEOUT_S)
                assert line is not None, "".join(seen) + proc.stderr.read()  # type: ignore[union-attr]
                seen.append(line)
                finished += line.startswith(("PASS ", "FAIL ", "ERROR"))
            assert all(" hello " in line for line in seen if line.startswith("PASS "))
            # Wait (no race: a condition, not a duration) until a `shout` request hangs.
            deadline = time.monotonic() + CLI_TIMEOUT_S
            while not any("(shout)" in user_text(r) for r in list(llm.requests)):
                assert time.monotonic() < deadline, "no `shout` request arrived"
                time.sleep(0.01)

            proc.send_signal(signal.SIGTERM)
            sent = time.monotonic()
            code = proc.wait(timeout=PROMPT_EXIT_S)
            elapsed = time.monotonic() - sent
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            reader.join(timeout=CLI_TIMEOUT_S)
            stderr = proc.stderr.read() if proc.stderr else ""
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
        comments = gh.comments.get((REPO, PR), [])
        checks = list(gh.check_runs)

    assert elapsed < PROMPT_EXIT_S
    assert "Traceback" not in stderr, stderr
    assert code in (0, 1), (code, stderr)  # the gate's verdict on what finished, not a crash

    data = json.loads((tmp_path / "results/results.json").read_text())
    assert sorted((r["case_id"], r["side"]) for r in data["runs"]) == [
        ("hello", "base"), ("hello", "base"), ("hello", "head"), ("hello", "head"),
    ]  # fmt: skip
    assert all(r["status"] == "pass" for r in data["runs"])
    assert data["settings"]["incomplete"] is True

    (comment,) = comments
    assert "incomplete" in comment["body"].lower() and "SIGTERM" in comment["body"]
    summary = (tmp_path / "summary").read_text()
    assert "incomplete" in summary.lower()
    (check,) = checks
    assert check["status"] == "completed"
    assert outputs(tmp_path / "output")["conclusion"]
