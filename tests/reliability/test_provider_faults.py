"""Provider faults through the whole CLI path (`python -m evolve_action run`), both providers.

The fake answers 429, 529, 500, stalls past the client timeout, malformed JSON, and drops
the connection mid-response on 30% of requests by a fixed schedule (request numbers, not
time; `--max-concurrency 1` keeps the arrival order, and so the schedule, reproducible).
A burst of consecutive 500s then exhausts the retries of whatever call is in flight.

The outcome asked for: every run is graded or ends as `error` with a reason, and no
provider fault shows up as a failed eval — every graded run has the verdict the same run
has without faults.

Truncated SSE streams do not apply: the product never streams (every call is a plain
JSON request/response) and the fake has no SSE. The nearest failure, a connection dropped
before the answer is complete, is `Disconnect()` here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.llm_server import (
    Answer,
    Disconnect,
    FakeLLM,
    Fault,
    Malformed,
    Request,
    Stall,
)
from tests.fakes.scripts import tool_names
from tests.reliability.helpers import (
    CASES,
    agent,
    base_env,
    make_repo,
    results_runs,
    run_cli,
    run_key,
)

FAULT_KINDS: tuple[Answer, ...] = (
    Fault(429, retry_after=0.01),
    Fault(529, retry_after=0.01),
    Fault(500, retry_after=0.01),
    Stall(30),  # the client gives up after EVOLVE_REQUEST_TIMEOUT_S and retries
    Malformed('{"id": "msg_1", "content": [{"type": "te'),
    Disconnect(),
)
BURST = range(25, 35)  # ten 500s in a row: more than one call's five attempts


def schedule() -> dict[int, Answer]:
    """30% of requests (numbers ending in 3, 6, 9) fail, cycling through every fault kind."""
    faulted = [n for n in range(1, 400) if n % 10 in (3, 6, 9) and n not in BURST]
    out = {n: FAULT_KINDS[i % len(FAULT_KINDS)] for i, n in enumerate(faulted)}
    out.update({n: Fault(500, retry_after=0.01, message="burst") for n in BURST})
    return out


def run_once(
    root: Path, tmp: Path, llm: FakeLLM, name: str, *, expect_exit: int = 1, concurrency: int = 1
) -> list[dict[str, Any]]:
    env = base_env(tmp, (llm.anthropic_base_url, llm.openai_base_url))
    env["EVOLVE_REQUEST_TIMEOUT_S"] = "1"
    args = ["run", "--base", "none", "--models", "anthropic,openai", "--judge-model",
            "anthropic", "--runs", "2", "--max-concurrency", str(concurrency),
            "--cache-dir", str(tmp / f"cache-{name}"),
            "--results-dir", str(tmp / name)]  # fmt: skip
    done = run_cli(args, env, root)
    assert done.returncode == expect_exit, done.stdout + done.stderr  # a fail or an error
    assert "Traceback" not in done.stderr, done.stderr
    return results_runs(tmp / name)


def test_provider_faults__runs_complete_or_error_and_never_fail_because_of_a_fault(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    make_repo(root)
    with FakeLLM(agent) as clean:
        clean_runs = run_once(root, tmp_path, clean, "clean", concurrency=8)  # order is moot
        expected = {run_key(r): r["status"] for r in clean_runs}
    assert sorted(expected.values()).count("pass") == 4 and len(expected) == 8

    with FakeLLM(agent, faults=schedule()) as faulty:
        runs = run_once(root, tmp_path, faulty, "faulty")
        assert not faulty.script_errors, faulty.script_errors
        served = len(faulty.requests)
    assert served > max(BURST)  # the schedule was reached, burst included
    assert {run_key(r) for r in runs} == set(expected)  # every run is reported

    errors = [r for r in runs if r["status"] == "error"]
    for run in errors:
        assert run["error"], run  # an error always says why
        assert "gave up after 5 attempts" in str(run["error"]), run["error"]
    assert 1 <= len(errors) <= 2  # only the burst exhausts retries
    for run in runs:
        if run["status"] != "error":
            assert run["status"] == expected[run_key(run)], (run["error"], run["items"])


def test_provider_faults__a_judge_outage_is_an_error_not_a_failed_eval(tmp_path: Path) -> None:
    """The judge's provider fails five times in a row (every attempt of one judge call):
    that run could not be graded, so it is `error` with the reason, never `fail`."""
    root = tmp_path / "repo"
    make_repo(root, cases=CASES[:1])  # `hello` passes whenever it is graded
    judged = 0

    def script(request: Request) -> Answer:
        nonlocal judged
        if "submit_grading" in tool_names(request):
            judged += 1
            if judged <= 5:
                return Fault(529, retry_after=0.01, message="Overloaded")
        return agent(request)

    with FakeLLM(script) as llm:
        runs = run_once(root, tmp_path, llm, "judge-outage", expect_exit=1)
        assert not llm.script_errors, llm.script_errors
    statuses = sorted(r["status"] for r in runs)
    assert statuses == ["error", "pass", "pass", "pass"], [(r["status"], r["error"]) for r in runs]
    (error,) = [r for r in runs if r["status"] == "error"]
    assert "judge" in str(error["error"]) and "gave up after 5 attempts" in str(error["error"])
