"""Benchmark: cold start. `--version`, `validate` on one file, and an N=1 run on a loopback fake.

Every figure is the median of fresh processes of the installed `evolve-action` (the console
script beside this interpreter, or `--bin`), so interpreter start-up and every import are
counted, as a workflow step pays them; wall time, and CPU time (which moves much less with
the load of a shared machine). The figures are taken in rounds, one process of each per
round, so a change in load touches them all alike.

The N=1 run is one AgentV case (a regex and one judge statement: two calls) against the
project's loopback fake LLM (`tests/fakes/llm_server.py`) answering after 0.2 s, as the
peers kit's fake does. The fake notes when each request arrives, which splits the run into
start-up (process start → first request), the calls, and the exit. `import openai` alone
(interpreter included) is timed beside it: the start-up beyond it is what our own code
costs before the first request. A second N=1 run answers on Anthropic and judges on OpenAI,
so both SDKs load.

With the peers kit (`/work/shared/peers`, or `--peers DIR`; `--no-peers` skips it), the kit's
`run_agentv.sh` and our `bench/peers/run_evolve.sh` (both with `PEERS_COLD=1`) then time
AgentV's and evolve's `--version` and N=1 run on the kit's own fake, in turns
(`--peer-rounds`). AgentV is installed from npm into the kit's scratch directory on first use.

    .venv/bin/python -m bench.coldstart [--repeat 5] [--no-peers] [--peer-rounds 3]
                                        [--bin PATH] [--baseline PATH]

`--baseline` times a second install's commands in the same rounds (e.g. the main branch's
`.venv/bin/evolve-action`), for a before/after column.

Prints two tables, then one JSON line with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakes.llm_server import FakeLLM, Reply, Request, text

REPO = Path(__file__).resolve().parent.parent
DEFAULT_PEERS = Path("/work/shared/peers")
LATENCY_S = 0.2

# One case in AgentV's format: the workload of the peers kit at N = 1 (its `gen_eval.py`
# writes the same case), so our N=1 run and AgentV's make the same two calls.
EVAL = """\
description: peers-bench
tests:
  - id: case-0
    criteria: The reply mentions kw0x
    input: 'Reply in one sentence about the keyword. Keyword: kw0x'
    assertions:
      - type: regex
        value: '\\bkw0x\\b'
      - type: llm-grader
        name: judge
"""


class Fake:
    """The loopback fake: echoes the keyword, passes the judge, and notes each arrival."""

    def __init__(self) -> None:
        self.arrivals: list[float] = []
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Reply:
        with self._lock:
            self.arrivals.append(time.time())
        if request.body.get("response_format"):  # the judge, on OpenAI
            return text(json.dumps({"reason": "it does", "pass": True, "score": 1.0}))
        return text("Echo: kw0x.")


def child_env() -> dict[str, str]:
    """Our environment without PYTHONDONTWRITEBYTECODE: an installed package comes with its
    .pyc files, and an editable checkout gets them on the warm-up run only if allowed."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def timed(argv: list[str], *, env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """(start epoch, wall seconds, CPU seconds) of one fresh process; raises if it fails.

    CPU time (user + system, the process and its children) is reported beside wall time:
    on a shared machine it moves much less with the load than wall time does.
    """
    env = child_env() if env is None else env
    started_at = time.time()
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    errors = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[:2]} exited {proc.returncode}: {errors.decode()[-2000:]}")
    return started_at, wall, usage.ru_utime + usage.ru_stime


def median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


@dataclass
class Figure:
    """One command timed as fresh processes; a run also splits its wall time at the fake."""

    label: str
    argv: list[str]
    env: dict[str, str] | None = None
    fake: Fake | None = None
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    startups: list[float] = field(default_factory=list)  # process start → first request
    exits: list[float] = field(default_factory=list)  # last answer → process exit

    def once(self, *, record: bool = True) -> None:
        if self.fake is not None:
            self.fake.arrivals.clear()
        started_at, wall, cpu = timed(self.argv, env=self.env)
        if not record:
            return
        self.walls.append(wall)
        self.cpus.append(cpu)
        if self.fake is not None:
            arrivals = self.fake.arrivals
            if len(arrivals) != 2:
                raise SystemExit(f"{self.label}: {len(arrivals)} requests, expected 2")
            self.startups.append(arrivals[0] - started_at)
            self.exits.append(started_at + wall - arrivals[1] - LATENCY_S)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"wall_s": median(self.walls), "cpu_s": median(self.cpus)}
        if self.fake is not None:
            out.update(startup_s=median(self.startups), teardown_s=median(self.exits))
        out["wall_s_all"] = [round(w, 3) for w in self.walls]
        return out


def run_argv(binary: str, root: Path, out: Path, models: str, judge: str) -> list[str]:
    argv = [binary, "run", "--base", "none", "--root", str(root), "--models", models]
    argv += ["--judge-model", judge, "--runs", "1", "--max-concurrency", "1"]
    return [*argv, "--comment", "off", "--results-dir", str(out)]


def measure_evolve(
    binary: str, python: str, repeat: int, baseline: str | None = None
) -> dict[str, Any]:
    """Every figure once per round, round after round, so a change in the machine's load
    touches them all alike; `baseline`, another install, runs the same commands beside."""
    scratch = Path(tempfile.mkdtemp(prefix="coldstart-"))
    fake = Fake()
    try:
        root = scratch / "repo"
        root.mkdir()
        eval_file = root / "bench.eval.yaml"
        eval_file.write_text(EVAL, encoding="utf-8")
        with FakeLLM(fake, latency=LATENCY_S) as llm:
            env = {
                k: v
                for k, v in child_env().items()
                if not k.startswith(("OPENAI_", "ANTHROPIC_", "GITHUB_"))
            }
            env.update(
                OPENAI_API_KEY="sk-fake",
                OPENAI_BASE_URL=llm.openai_base_url,
                ANTHROPIC_API_KEY="sk-fake",
                ANTHROPIC_BASE_URL=llm.anthropic_base_url,
                NO_PROXY="127.0.0.1",
            )
            figures = {
                "python": Figure("interpreter alone (`python -c pass`)", [python, "-c", "pass"]),
                "import_openai": Figure(
                    "`import openai` (interpreter included)", [python, "-c", "import openai"]
                ),
                "import_anthropic": Figure(
                    "`import anthropic` (interpreter included)", [python, "-c", "import anthropic"]
                ),
            }
            for prefix, program in (("", binary), ("baseline_", baseline)):
                if program is None:
                    continue
                one = run_argv(program, root, scratch / "out", "openai/m", "openai/m")
                two = run_argv(program, root, scratch / "out", "anthropic/m", "openai/m")
                figures |= {
                    f"{prefix}version": Figure("`evolve-action --version`", [program, "--version"]),
                    f"{prefix}validate": Figure(
                        "`evolve-action validate` one file", [program, "validate", str(eval_file)]
                    ),
                    f"{prefix}run_n1": Figure("N=1 run (ideal 0.4 s)", one, env, fake),
                    f"{prefix}run_n1_two_providers": Figure(
                        "N=1 run, anthropic answers and openai judges", two, env, fake
                    ),
                }
            # A first round unmeasured: the page cache, and .pyc files for an editable checkout.
            for round_ in range(-1, repeat):
                for figure in figures.values():
                    figure.once(record=round_ >= 0)
                    shutil.rmtree(scratch / "out", ignore_errors=True)
        result = {name: figure.summary() for name, figure in figures.items()}
        sdk = result["import_openai"]["wall_s"]
        for prefix in ("", "baseline_"):
            if f"{prefix}run_n1" in result:
                run = result[f"{prefix}run_n1"]
                run["startup_beyond_sdk_s"] = round(run["startup_s"] - sdk, 3)
        result["labels"] = {
            name: figure.label for name, figure in figures.items() if "baseline" not in name
        }
        return result
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def measure_peers(kit: Path, binary: str, rounds: int) -> dict[str, Any]:
    """The kit's cold-start lines for AgentV and evolve on the kit's fake, taken in turns
    (`rounds` of each, alternating, so both see the same machine), with each figure the
    median over the rounds; the raw lines are kept under `rounds`."""
    env = dict(child_env(), PEERS_COLD="1", EVOLVE_BIN=binary, PEERS_KIT=str(kit))
    scripts = {
        "agentv": kit / "run_agentv.sh",
        "evolve": REPO / "bench" / "peers" / "run_evolve.sh",
    }
    lines: dict[str, list[dict[str, Any]]] = {name: [] for name in scripts}
    for _ in range(rounds):
        for name, script in scripts.items():
            done = subprocess.run(
                ["bash", str(script)], env=env, capture_output=True, text=True, check=False
            )
            found = [line for line in done.stdout.splitlines() if line.startswith("{")]
            if done.returncode != 0 or not found:
                return {name: {"error": (done.stderr or done.stdout)[-500:]}}
            lines[name].append(json.loads(found[-1]))
    out: dict[str, Any] = {}
    for name, taken in lines.items():
        summary = dict(taken[-1])
        for key in ("version_cmd_s", "eval_n1_fresh_s", "eval_n1_overhead_s", "eval_n1_startup_s"):
            values = [line[key] for line in taken if line.get(key) is not None]
            summary[key] = median(values)
        summary["rounds"] = taken
        out[name] = summary
    return out


def _s(value: Any) -> str:
    return "—" if value is None else f"{value:.3f}"


def table(evolve: dict[str, Any], peers: dict[str, Any]) -> str:
    labels = evolve["labels"]
    baseline = any(name.startswith("baseline_") for name in evolve)
    head = "| figure (median of fresh processes, our fake) | wall s | CPU s |"
    lines = [head + (" baseline wall s |" if baseline else ""), "|---|--:|--:|"]
    lines[-1] += "--:|" if baseline else ""

    def row(label: str, key: str, field: str, cpu: bool = True) -> str:
        figure = evolve[key]
        text = f"| {label} | {_s(figure.get(field))} | {_s(figure['cpu_s']) if cpu else ''} |"
        if baseline:
            before = evolve.get(f"baseline_{key}")
            text += f" {_s(before.get(field)) if before else ''} |"
        return text

    for name, label in labels.items():
        lines.append(row(label, name, "wall_s"))
        if "startup_s" in evolve[name]:
            lines.append(row("↳ start → first request", name, "startup_s", cpu=False))
            if "startup_beyond_sdk_s" in evolve[name]:
                beyond = "↳ start-up beyond `import openai`"
                lines.append(row(beyond, name, "startup_beyond_sdk_s", cpu=False))
            lines.append(row("↳ last answer → exit", name, "teardown_s", cpu=False))
    if peers:
        lines += ["", "| runner (the kit's fake, medians) | `--version` s | N=1 run s |"]
        lines[-1] += " over ideal s | start → first request s |"
        lines += ["|---|--:|--:|--:|--:|"]
        for name, line in peers.items():
            if "error" in line:
                lines.append(f"| {name} | could not run: {line['error'].strip()[-120:]} | | | |")
                continue
            lines.append(
                f"| {name} {line.get('version', '')} | {_s(line['version_cmd_s'])} |"
                f" {_s(line['eval_n1_fresh_s'])} | {_s(line['eval_n1_overhead_s'])} |"
                f" {_s(line.get('eval_n1_startup_s'))} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=5, help="fresh processes per figure")
    parser.add_argument("--bin", default=str(Path(sys.executable).with_name("evolve-action")))
    parser.add_argument("--peers", type=Path, default=DEFAULT_PEERS, help="the peers kit")
    parser.add_argument("--no-peers", action="store_true", help="skip AgentV")
    parser.add_argument("--peer-rounds", type=int, default=3, help="turns of AgentV and evolve")
    parser.add_argument("--baseline", help="another evolve-action install to time beside")
    args = parser.parse_args()
    python = str(Path(args.bin).with_name("python"))
    evolve = measure_evolve(args.bin, python, args.repeat, args.baseline)
    peers = {}
    if not args.no_peers and (args.peers / "run_agentv.sh").is_file():
        peers = measure_peers(args.peers, args.bin, args.peer_rounds)
    print(table(evolve, peers))
    load = os.getloadavg()[0]
    print(json.dumps({"bench": "coldstart", "load_avg": round(load, 2), **evolve, "peers": peers}))


if __name__ == "__main__":
    main()
