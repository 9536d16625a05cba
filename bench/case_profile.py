"""Benchmark: the steady CPU cost of one case in a run, and where on the run's path it goes.

The peers kit's workload (N cases in AgentV's format, a regex and one judge statement each:
two calls a case) against a loopback fake at 0.2 s in its own process (it echoes the case's
keyword and passes the judge), run by the installed `evolve-action` (`--bin`) at
`--max-concurrency C`, as `bench/peers/run_evolve.sh` runs it:

- per round, one N-case and one 1-case run in fresh processes; their CPU time (user + system,
  `wait4`) gives the CPU a case costs, (cpu_N − cpu_1) / (N − 1), which moves much less
  with a shared machine's load than wall time does;
- then (unless `--no-profile`) one N-case run under `cProfile` with `time.thread_time`: the
  CPU of the event-loop thread only (the workspace's pool threads are not in it; use py-spy
  for them), with the profiler's own inflation of Python-heavy code, so read the shares:
  each watched function's cumulative CPU as a share of the per-run path
  (`Scheduler._run_one`) and its calls per case (an `async` function's count includes each
  resumption).

    .venv/bin/python -m bench.case_profile [--cases 200] [--concurrency 8] [--rounds 2]
                                           [--bin PATH] [--no-profile] [--pstats FILE]

Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

from bench.agent_bench import fake_in_subprocess
from tests.fakes.llm_server import FakeLLM, Reply, Request, text

LATENCY_S = 0.2
KEYWORD = re.compile(r"Keyword: (kw\d+x)")

# (label, a path ending, function name): what the per-run path repeats, in pipeline order.
WATCH = (
    ("per-run path", "execute/scheduler.py", "_run_one"),
    ("the SDK's request (build, send, parse)", "execute/providers/openai.py", "_send"),
    ("↳ the SDK's param transform", "openai/_utils/_transform.py", "async_transform"),
    ("↳ httpx send", "httpx2/_client.py", "send"),
    ("the agent loop", "execute/agent.py", "run_agent"),
    ("grading", "grade/grading.py", "grade_run"),
    ("↳ the judge call", "grade/judge.py", "judge_run"),
    ("↳ the judge's prompt", "grade/judge_prompt.py", "build_prompt"),
    ("↳ ruler keys", "plan/ruler.py", "item_key"),
    ("hidden paths (sandbox)", "execute/sandbox/bwrap.py", "default_hidden"),
    ("tool objects", "execute/tools/run.py", "__init__"),
    ("cache reads", "plan/cache.py", "get"),
    ("fingerprints", "plan/fingerprints.py", "run"),
    ("the cost plan (before the runs)", "pipeline/cost_plan.py", "cost_plan"),
    ("results files (after the runs)", "publish/results/write.py", "write_results"),
    ("↳ their JSON", "publish/results/write.py", "_json"),
)

# Runs in the measured interpreter: `main` with its arguments under a thread-CPU profiler.
PROFILER = """
import cProfile, sys, time
from evolve_action.commands.cli import main
profile = cProfile.Profile(time.thread_time)
profile.enable()
try:
    main(sys.argv[2:])
finally:
    profile.disable()
    profile.dump_stats(sys.argv[1])
"""


def eval_text(cases: int) -> str:
    """The kit's workload: `gen_eval.py`'s cases, one keyword each."""
    lines = ["description: peers-bench", "tests:"]
    for i in range(cases):
        lines += [
            f"  - id: case-{i}",
            f"    criteria: The reply mentions kw{i}x",
            f"    input: 'Reply in one sentence about the keyword. Keyword: kw{i}x'",
            "    assertions:",
            "      - type: regex",
            f"        value: '\\bkw{i}x\\b'",
            "      - type: llm-grader",
            "        name: judge",
        ]
    return "\n".join(lines) + "\n"


def _reply(request: Request) -> Reply:
    if request.body.get("response_format"):  # the judge
        return text(json.dumps({"reason": "it does", "pass": True, "score": 1.0}))
    found = KEYWORD.findall(json.dumps(request.body))
    return text(f"Echo: {found[-1] if found else 'none'}.")


def _serve(latency: float, port: Connection, stop: Event) -> None:
    with FakeLLM(_reply, latency=latency) as llm:
        port.send(llm.openai_base_url)
        stop.wait()


def run_args(root: Path, out: Path, concurrency: int) -> list[str]:
    args = ["run", "--base", "none", "--root", str(root), "--models", "openai/m"]
    args += ["--judge-model", "openai/m", "--runs", "1", "--max-concurrency", str(concurrency)]
    return [*args, "--comment", "off", "--results-dir", str(out)]


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one fresh process; raises if it fails."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    errors = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv[:3]} failed: {errors.decode()[-2000:]}")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def shares(path: Path, cases: int) -> list[dict[str, Any]]:
    stats: dict[Any, Any] = pstats.Stats(str(path)).stats  # type: ignore[attr-defined]
    found: dict[str, tuple[int, float]] = {}
    for (file, _, name), (_, calls, _, cumulative, _) in stats.items():
        for label, ending, function in WATCH:
            if name == function and file.endswith(ending):
                before = found.get(label, (0, 0.0))
                found[label] = (before[0] + calls, before[1] + cumulative)
    per_run = found.get("per-run path", (0, 0.0))[1] or 1.0
    return [
        {
            "what": label,
            "where": f"{ending}:{function}",
            "cpu_s": round(found.get(label, (0, 0.0))[1], 3),
            "share_of_per_run_path": round(found.get(label, (0, 0.0))[1] / per_run, 3),
            "calls_per_case": round(found.get(label, (0, 0.0))[0] / cases, 2),
        }
        for label, ending, function in WATCH
    ]


def measure(args: argparse.Namespace) -> dict[str, Any]:
    python = str(Path(args.bin).with_name("python"))
    scratch = Path(tempfile.mkdtemp(prefix="case-profile-"))
    try:
        roots = {n: scratch / f"n{n}" for n in (args.cases, 1)}
        for n, root in roots.items():
            root.mkdir()
            (root / "bench.eval.yaml").write_text(eval_text(n), encoding="utf-8")
        with fake_in_subprocess(args.latency, serve=_serve) as base_url:
            env = {
                k: v
                for k, v in os.environ.items()
                if not k.startswith(("OPENAI_", "ANTHROPIC_", "GITHUB_"))
            }
            env.update(OPENAI_API_KEY="sk-fake", OPENAI_BASE_URL=base_url, NO_PROXY="127.0.0.1")
            runs: dict[int, list[tuple[float, float]]] = {n: [] for n in roots}
            timed([args.bin, *run_args(roots[1], scratch / "warm", 1)], env)  # page cache, .pyc
            for _ in range(args.rounds):
                for n, root in roots.items():
                    shutil.rmtree(scratch / "out", ignore_errors=True)
                    runs[n].append(
                        timed([args.bin, *run_args(root, scratch / "out", args.concurrency)], env)
                    )
            result: dict[str, Any] = {
                f"n{n}": {
                    "wall_s": [round(w, 3) for w, _ in t],
                    "cpu_s": [round(c, 3) for _, c in t],
                }
                for n, t in runs.items()
            }
            per_case = [
                (cn - c1) / (args.cases - 1)
                for (_, cn), (_, c1) in zip(runs[args.cases], runs[1], strict=True)
            ]
            result["cpu_ms_per_case"] = round(1000 * statistics.median(per_case), 2)
            if not args.no_profile:
                out = Path(args.pstats) if args.pstats else scratch / "profile.pstats"
                shutil.rmtree(scratch / "out", ignore_errors=True)
                argv = [
                    python,
                    "-c",
                    PROFILER,
                    str(out),
                    *run_args(roots[args.cases], scratch / "out", args.concurrency),
                ]
                wall, cpu = timed(argv, env)
                result["profiled"] = {
                    "wall_s": round(wall, 3),
                    "cpu_s": round(cpu, 3),
                    "watch": shares(out, args.cases),
                }
        return result
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def table(result: dict[str, Any], cases: int) -> str:
    n, one = result[f"n{cases}"]["cpu_s"], result["n1"]["cpu_s"]
    lines = [f"CPU per case: {result['cpu_ms_per_case']} ms ({cases} cases: CPU s {n}; 1: {one})"]
    if "profiled" in result:
        lines += [
            "",
            "| what (event-loop thread, cProfile) | where | CPU s | share | calls a case |",
        ]
        lines += ["|---|---|--:|--:|--:|"]
        for w in result["profiled"]["watch"]:
            share = f"{100 * w['share_of_per_run_path']:.1f}%"
            lines.append(
                f"| {w['what']} | `{w['where']}` | {w['cpu_s']} | {share} | {w['calls_per_case']} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2, help="N-case and 1-case runs each")
    parser.add_argument("--latency", type=float, default=LATENCY_S)
    parser.add_argument("--bin", default=str(Path(sys.executable).with_name("evolve-action")))
    parser.add_argument("--no-profile", action="store_true", help="only the CPU per case")
    parser.add_argument("--pstats", help="keep the profile in this file")
    args = parser.parse_args()
    load_before = os.getloadavg()
    result = measure(args)
    print(table(result, args.cases))
    loads = {
        "load_avg_before": [round(x, 2) for x in load_before],
        "load_avg_after": [round(x, 2) for x in os.getloadavg()],
    }
    print(
        json.dumps(
            {
                "bench": "case_profile",
                "cases": args.cases,
                "concurrency": args.concurrency,
                **loads,
                **result,
            }
        )
    )


if __name__ == "__main__":
    main()
