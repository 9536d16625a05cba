"""What Copilot CLI's runtime costs each run, unpacked once per job (shared, read-only) or by
each run into its own fresh HOME (`--per-run`, as before `Copilot.prepare_job`).

Real pinned CLI, `CliHarness.run` at this machine's confinement level, the loopback fake LLM
(one shell command, an answer). Prints one JSON line: the job's set-up wall (proxy, staging,
the shared unpack), each run's wall, and the disk each run's HOME holds when it ends.

    .venv/bin/python -m bench.copilot_runtime_bench --runs 5 [--per-run] [--user-level]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import time
from pathlib import Path

from evolve_action.execute.harness import stage
from evolve_action.execute.harness.run import open_cli_harness
from evolve_action.execute.sandbox.confine import HOME_DIR, job_level
from evolve_action.model.outcomes import Side
from evolve_action.plan.planning import RunSpec
from tests.conftest import reachable_place
from tests.fakes.cli_agents import TASK, cli_dir, make_repo, suite_and_case
from tests.fakes.llm_server import Answer, FakeLLM, Request, call, text
from tests.levels import USER, at_level

MODEL = "anthropic/claude-sonnet-4-6"
SKILL = "---\nname: greeter\ndescription: Greets people.\n---\nSay hello.\n"


def script(request: Request) -> Answer:
    return call("bash", command="echo hi", description="greet") if request.turn == 0 else text("ok")


def megabytes(top: Path) -> float:
    sizes = (p.lstat().st_size for p in top.rglob("*") if p.is_file() and not p.is_symlink())
    return round(sum(sizes) / (1 << 20), 1)


async def bench(runs: int, per_run: bool) -> dict[str, object]:
    if per_run:
        stage.job_env = lambda binaries, environ: {}  # type: ignore[assignment]
    with (
        # Where the product makes its runs (as root: one the sandbox users may enter).
        reachable_place("copilot-bench-", mode=0o755) as base,
        FakeLLM(api_key=None) as fake,
    ):
        fake.script = script
        suite, case = suite_and_case(make_repo(base / "repo", {"evals.json": TASK}))
        environ = {
            "ANTHROPIC_API_KEY": "bench", "ANTHROPIC_BASE_URL": fake.anthropic_base_url,
            "EVOLVE_CLI_DIR": str(cli_dir()), "EVOLVE_CLI_STAGE_DIR": str(base / "stage"),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        }  # fmt: skip
        started = time.monotonic()
        walls, disks = [], []
        async with open_cli_harness(
            [MODEL], keys={}, environ=environ, cache_dir=None, limiters={}, agent="copilot"
        ) as harness:
            setup = time.monotonic() - started
            for repetition in range(1, runs + 1):
                workspace = base / f"ws{repetition}" / "workspace"
                skill = workspace / ".github/skills/greeter"
                skill.mkdir(parents=True)
                (skill / "SKILL.md").write_text(SKILL)
                for path in [workspace.parent, workspace, *workspace.rglob("*")]:
                    path.chmod(0o777 if path.is_dir() else 0o666)
                spec = RunSpec(suite, case, MODEL, Side.HEAD, repetition)
                began = time.monotonic()
                await harness.run(spec, workspace, max_turns=4, timeout_s=300, network=False)
                walls.append(time.monotonic() - began)
                disks.append(megabytes(workspace / HOME_DIR))
    return {
        "level": job_level().level.value, "runtime": "per run" if per_run else "shared",
        "runs": runs, "setup_s": round(setup, 2),
        "wall_s_median": round(statistics.median(walls), 2),
        "wall_s_first": round(walls[0], 2), "wall_s_max": round(max(walls), 2),
        "home_mb_per_run": statistics.median(disks),
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--per-run", action="store_true", help="no shared runtime (as before)")
    parser.add_argument("--user-level", action="store_true", help="bubblewrap hidden")
    args = parser.parse_args()
    with at_level(USER) if args.user_level else contextlib.nullcontext():
        print(json.dumps(asyncio.run(bench(args.runs, args.per_run))), flush=True)


if __name__ == "__main__":
    main()
