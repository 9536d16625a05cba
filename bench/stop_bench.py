"""How long a cancelled job takes to end, in issue 23's set-up (item 1).

A PR job (`runs: 4`, both providers, two cases, the loopback fakes answering every request
after `--latency` seconds) gets SIGTERM or SIGINT `--after` seconds in. GitHub kills the step
10 s after its first signal (SIGINT, then SIGTERM at 7.5 s, then SIGKILL at 10 s), so the
time from the signal to the exit must stay well under that, GitHub writes included. Prints
one JSON line per trial: the signal, the exit code, the seconds to exit, the runs done out
of those planned, and the check's conclusion.

    .venv/bin/python -m bench.stop_bench            # --trials 3 --after 5 --latency 0.5
"""

from __future__ import annotations

import argparse
import json
import signal
import tempfile
import time
from pathlib import Path

from tests.fakes.llm_server import FakeLLM
from tests.reliability.helpers import FaultyGitHub, RunningCli, actions_env, agent, make_repo


def trial(sig: signal.Signals, *, after: float, latency: float) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as work:
        tmp = Path(work)
        root = tmp / "repo"
        base, head = make_repo(root, head_msg="HELLO ADA")
        with FakeLLM(agent, latency=latency) as llm, FaultyGitHub() as gh:
            urls = (llm.anthropic_base_url, llm.openai_base_url)
            env = actions_env(root, tmp, urls, gh.url, base, head)
            env.update({"INPUT_RUNS": "4", "EVOLVE_REQUEST_TIMEOUT_S": "60"})
            cli = RunningCli(env, root)
            time.sleep(after)
            sent = cli.signal(sig)
            code = cli.wait(60)
            took = time.monotonic() - sent
            conclusion = gh.check_runs[0].get("conclusion") if gh.check_runs else None
        settings = json.loads((tmp / "results/results.json").read_text())["settings"]
        runs = len(json.loads((tmp / "results/results.json").read_text())["runs"])
    return {
        "signal": sig.name,
        "exit": code,
        "seconds_to_exit": round(took, 2),
        "runs_done": runs,
        "runs_planned": settings["planned_runs"],
        "conclusion": conclusion,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--after", type=float, default=5.0)
    parser.add_argument("--latency", type=float, default=0.5)
    args = parser.parse_args()
    for _ in range(args.trials):
        for sig in (signal.SIGTERM, signal.SIGINT):
            print(json.dumps(trial(sig, after=args.after, latency=args.latency)), flush=True)


if __name__ == "__main__":
    main()
