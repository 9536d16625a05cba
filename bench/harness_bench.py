"""What `harness: cli` costs per run, next to `harness: sdk`, on the loopback fake provider.

One case, one scripted agent for all six set-ups: load the skill, run a shell command,
write a file, answer (four model calls). Each set-up (sdk/cli × Anthropic/OpenAI/Gemini; the
CLIs Claude Code, Codex and Gemini CLI, which needs Node.js 20+ on PATH) runs it
`--runs` times one after another through `runner.run_and_grade`, as the pipeline would: a fresh
workspace, the agent, the checks. The fake answers instantly, so the wall time is what the
harness itself costs (starting a CLI, its sandbox, the relay and the proxy, versus our
loop); the tokens are what each harness sends for the same work (its system prompt and
tool definitions, re-sent every call), counted by the fake's usage model (about four
characters a token, a prompt cache for the stable prefix). Prints one JSON line per set-up.

    .venv/bin/python -m bench.harness_bench --runs 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from evolve_action.execute.providers.registry import build_provider
from evolve_action.model.outcomes import Side, Status
from evolve_action.pipeline.environment import open_harness
from evolve_action.pipeline.runner import RunEnvironment, run_and_grade
from evolve_action.plan.planning import RunSpec
from evolve_action.settings.inputs import Harness
from tests.fakes.cli_agents import (
    MODELS,
    TASK,
    agent,
    bash,
    load_skill,
    make_repo,
    say,
    suite_and_case,
    write,
)
from tests.fakes.llm_server import Call, FakeLLM, Reply, Request, call, text

ROOT = Path(__file__).resolve().parent.parent


def sdk_steps(request: Request) -> Any:
    """The same four turns on the SDK loop (Claude Code's tool names on both providers)."""
    turns = [
        call("Skill", skill="greeter"),
        call("Bash", command="echo made > out.txt && cat out.txt"),
        call("Write", file_path="hello.txt", content="Hello, Ada!"),
        text("All done."),
    ]
    return turns[min(request.turn, 3)]


# The bench's models: the CLI tests' two, and Gemini's (Gemini CLI).
BENCH_MODELS = {**MODELS, "gemini": "gemini/gemini-2.5-flash"}


def gemini_steps(request: Request) -> Any:
    """The four turns in Gemini CLI's tool names, on Gemini's own wire."""
    turns = [
        Reply(calls=(Call("activate_skill", {"name": "greeter"}),)),
        call("run_shell_command", command="echo made > out.txt && cat out.txt"),
        call("write_file", file_path="hello.txt", content="Hello, Ada!"),
        text("All done."),
    ]
    return turns[min(request.turn, 3)]


CLI_STEPS = [
    load_skill("greeter"),
    bash("echo made > out.txt && cat out.txt"),
    write("hello.txt", "Hello, Ada!"),
    say("All done."),
]


async def measure(
    harness: Harness, cli: str, runs: int, fake: FakeLLM, work: Path
) -> dict[str, Any]:
    model = BENCH_MODELS[cli]
    provider_id = model.split("/", 1)[0]
    environ = {
        "ANTHROPIC_API_KEY": "bench",
        "ANTHROPIC_BASE_URL": fake.anthropic_base_url,
        "OPENAI_API_KEY": "bench",
        "OPENAI_BASE_URL": fake.openai_base_url,
        "GEMINI_API_KEY": "bench",
        "GOOGLE_GEMINI_BASE_URL": fake.gemini_base_url,
        "EVOLVE_CLI_DIR": os.environ.get("EVOLVE_CLI_DIR", str(ROOT / ".cache" / "clis")),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }
    fake.script = agent(CLI_STEPS) if harness is Harness.CLI else sdk_steps
    if harness is Harness.CLI and cli == "gemini":
        fake.script = gemini_steps
    suite, case = suite_and_case(make_repo(work / f"repo-{harness}-{cli}", {"evals.json": TASK}))
    provider = build_provider(provider_id, environ=environ)
    walls, results = [], []
    async with open_harness(
        harness, [model], keys={}, environ=environ, cache_dir=None, limiters={}
    ) as cli_harness:
        env = RunEnvironment(providers={provider_id: provider}, harness=cli_harness)
        for repetition in range(1, runs + 1):
            started = time.monotonic()
            result = await run_and_grade(RunSpec(suite, case, model, Side.HEAD, repetition), env)
            walls.append(time.monotonic() - started)
            results.append(result)
    await provider.aclose()
    usage = [r.transcript.usage for r in results]
    return {
        "harness": harness.value,
        "agent": cli if harness is Harness.CLI else "",
        "provider": provider_id,
        "runs": runs,
        "passed": sum(r.status is Status.PASS for r in results),
        "wall_s_median": round(statistics.median(walls), 2),
        "wall_s_min": round(min(walls), 2),
        "wall_s_max": round(max(walls), 2),
        "calls_per_run": statistics.mean(u.calls for u in usage),
        "tokens_per_run": round(statistics.mean(u.total_tokens for u in usage)),
        "fresh_input_per_run": round(statistics.mean(u.input_tokens for u in usage)),
        "cache_read_per_run": round(statistics.mean(u.cache_read_tokens for u in usage)),
        "cache_write_per_run": round(statistics.mean(u.cache_write_tokens for u in usage)),
        "output_per_run": round(statistics.mean(u.output_tokens for u in usage)),
        "cost_usd_per_run": round(statistics.mean(u.cost_usd or 0 for u in usage), 4),
    }


async def main_async(runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as tmp, FakeLLM() as fake:
        for harness in (Harness.SDK, Harness.CLI):
            for cli in BENCH_MODELS:
                if harness is Harness.CLI and cli == "gemini" and not shutil.which("node"):
                    print("# cli gemini skipped: no node on PATH", file=sys.stderr)
                    continue
                line = await measure(harness, cli, runs, fake, Path(tmp))
                print(json.dumps(line), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    sys.setrecursionlimit(10_000)
    asyncio.run(main_async(args.runs))


if __name__ == "__main__":
    main()
