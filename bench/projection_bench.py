"""How close the cost projection comes to the spend, and how the budget holds, per scenario.

`--scenario behaviours` (the default): the pull request of tests/e2e/test_pull_request.py
(two skills, both providers, a judged case, 3 runs a side) answered by each scripted agent of
`tests/fakes/behaviours.py` (the three the e2e tests use, and held-out ones the range was
not set on). Per agent, on a cold cache: the projection before the first call (likely
figure, low, high), the cost made, whether it is inside the range (in all, and run by run),
the projection after the first wave and its error; then, with `max-cost-usd` at a third of
that cost on a fresh cache: the spend, by how much it passed the limit, the runs made and
the base/head pairs split. The coverage line sums the agents the range is meant for; then
`runaway`, which goes past the range's high end on purpose, shows the budget's bound at work
(its spend against the limit plus what its runs cost beyond their estimates).

`--scenario pushes`: actual ÷ projected over two pushes:

Each scenario is a whole `evolve-action run --base main` (the command, in this process) on a
real git repository against the loopback fake LLM, with a fresh cache: the projection it
prints before its first call is read from its log, the spend from its results.json (the
runs it made, judge included). Then the head changes once more and the same job runs again
("second push"): its changed runs miss the cache and are projected from the cache's records
of their cases, its unchanged ones come from the cache at no cost.

Scenarios:
- `demo`: the bundled demo (`evolve-action demo`'s repository), answered from its cassettes
  (sdk only: the cassettes were recorded on the SDK loop);
- `pr`: the end-to-end pull request of tests/e2e/test_pull_request.py (two skills, both
  providers, a judged case);
- `generated-100`: a generated repository of one skill with 100 cases.
Both harnesses; `cli` needs the pinned CLIs (`.cache/clis` or `EVOLVE_CLI_DIR`) and is
skipped, saying so, without them. Prints one JSON line per scenario and harness.

    .venv/bin/python -m bench.projection_bench                       # the behaviours
    .venv/bin/python -m bench.projection_bench --scenario pushes     # --harness sdk|cli|both
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evolve_action.commands.cli import main
from evolve_action.commands.demo import build_repository, examples_dir
from evolve_action.execute.harness.install import clis, installed
from tests.e2e.test_pull_request import agent as pr_agent
from tests.e2e.test_pull_request import make_repo as pr_repo
from tests.fakes.behaviours import BEHAVIOURS, HELD_OUT, RUNAWAY
from tests.fakes.cli_agents import agent as cli_agent
from tests.fakes.cli_agents import load_skill, say, write
from tests.fakes.llm_server import Answer, FakeLLM, Request, call, text
from tests.fakes.scripts import grading, tool_names
from tests.gitrepo import git, put

ROOT = Path(__file__).resolve().parent.parent
PROJECTED = re.compile(r"Projected cost: \$([0-9.]+)")
SKILL = "---\nname: greeter\ndescription: Greets people in hello.txt.\n---\n{body}\n"


def sdk_greeter(request: Request) -> Answer:
    if "submit_grading" in tool_names(request):
        return grading(request)
    turns = [
        call("Skill", skill="greeter"),
        call("Write", file_path="hello.txt", content="Hello, Ada!\n"),
        text("I greeted Ada in hello.txt."),
    ]
    return turns[min(request.turn, 2)]


CLI_GREETER = cli_agent([load_skill("greeter"), write("hello.txt", "Hello, Ada!\n"), say("Done.")])


def generated_repo(root: Path, cases: int) -> Path:
    put(root, ".claude-plugin/plugin.json", '{"name": "demo"}')
    put(root, "skills/greeter/SKILL.md", SKILL.format(body="Write `Hello, Ada!`."))
    doc = {
        "evals": [
            {
                "id": f"case-{i:03}",
                "prompt": f"Greet guest number {i}, Ada, in hello.txt.",
                "assertions": [{"type": "regex", "path": "hello.txt", "pattern": "Ada"}],
            }
            for i in range(cases)
        ]
    }
    put(root, "evals/greeter/evals.json", json.dumps(doc, indent=1))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "pr")
    put(root, "skills/greeter/SKILL.md", SKILL.format(body="Write `Hello, Ada!` kindly."))
    git(root, "commit", "-q", "-am", "head")
    return root


def _one_job(repo: Path, work: Path, harness: str, extra: list[str]) -> tuple[float, float, int]:
    """(projected, actual, runs made) of one job."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main([
            "run", "--root", str(repo), "--base", "main", "--harness", harness,
            "--cache-dir", str(work / "cache"), "--results-dir", str(work / "out"),
            "--allow-unconfined", "true", "--quiet", *extra,
        ])  # fmt: skip
    found = PROJECTED.search(out.getvalue())
    if found is None:
        raise SystemExit(f"no projection in the job's log:\n{out.getvalue()[-2000:]}")
    runs = json.loads((work / "out/results.json").read_text())["runs"]
    made = [r for r in runs if not r["cached"]]
    return float(found.group(1)), sum(r["cost_usd"] or 0.0 for r in made), len(made)


def _row(
    scenario: str, harness: str, push: str, result: tuple[float, float, int]
) -> dict[str, Any]:
    projected, actual, made = result
    ratio = round(actual / projected, 3) if projected else None
    return {
        "scenario": scenario,
        "harness": harness,
        "push": push,
        "runs_made": made,
        "projected_usd": round(projected, 4),
        "actual_usd": round(actual, 4),
        "actual_over_projected": ratio,
    }


def measure(
    scenario: str,
    harness: str,
    repo: Path,
    work: Path,
    extra: list[str],
    second_push: Callable[[], None],
) -> list[dict[str, Any]]:
    first = _row(scenario, harness, "first", _one_job(repo, work, harness, extra))
    second_push()
    second = _row(scenario, harness, "second", _one_job(repo, work, harness, extra))
    return [first, second]


def _push(repo: Path, skill: str, body: str) -> Callable[[], None]:
    def push() -> None:
        put(repo, f"skills/{skill}/SKILL.md", SKILL.format(body=body).replace("greeter", skill))
        git(repo, "commit", "-q", "-am", "second push")

    return push


def main_bench(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=("behaviours", "pushes"), default="behaviours")
    parser.add_argument("--harness", choices=("sdk", "cli", "both"), default="both")
    parser.add_argument("--runs", default="2", help="runs per case and side (pr and demo)")
    parser.add_argument("--cases", type=int, default=100)
    args = parser.parse_args(argv)
    if args.scenario == "behaviours":
        from bench.behaviour_costs import run_behaviours

        return run_behaviours((*BEHAVIOURS, *HELD_OUT), beyond=(RUNAWAY,))
    cli_dir = Path(os.environ.get("EVOLVE_CLI_DIR") or ROOT / ".cache" / "clis")
    harnesses = ["sdk", "cli"] if args.harness == "both" else [args.harness]
    if "cli" in harnesses and any(installed(s, cli_dir) is None for s in clis().values()):
        print(f"# cli skipped: the pinned CLIs are not installed in {cli_dir}", file=sys.stderr)
        harnesses.remove("cli")
    os.environ["EVOLVE_CLI_DIR"] = str(cli_dir)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp, FakeLLM() as llm:
        for key in ("ANTHROPIC", "OPENAI"):
            os.environ[f"{key}_API_KEY"] = "bench"
        os.environ["ANTHROPIC_BASE_URL"] = llm.anthropic_base_url
        os.environ["OPENAI_BASE_URL"] = llm.openai_base_url
        os.environ.pop("GITHUB_ACTIONS", None)
        for harness in harnesses:
            work = Path(tmp) / harness
            if harness == "sdk":
                demo = build_repository(examples_dir(), work / "demo")
                cassettes = examples_dir() / "demo-cassettes"
                extra = ["--models", "anthropic/claude-sonnet-4-6,openai/gpt-5.4",
                         "--judge-model", "anthropic/claude-sonnet-4-6", "--runs", args.runs,
                         "--replay", str(cassettes)]  # fmt: skip
                rows += measure("demo", harness, demo, work / "demo-run", extra, lambda: None)
            llm.script = pr_agent if harness == "sdk" else _cli_pr
            root, _, _ = pr_repo(work / "pr")
            extra = ["--models", "anthropic,openai", "--judge-model", "anthropic",
                     "--runs", args.runs]  # fmt: skip
            push = _push(root, "greeter", "SHOUT `HELLO ADA` loudly.")
            rows += measure("pr", harness, root, work / "pr-run", extra, push)
            llm.script = sdk_greeter if harness == "sdk" else CLI_GREETER
            repo = generated_repo(work / "gen" / "repo", args.cases)
            extra = ["--models", "anthropic", "--judge-model", "anthropic", "--runs", "1"]
            push = _push(repo, "greeter", "Write `Hello, Ada!` warmly.")
            rows += measure(f"generated-{args.cases}", harness, repo, work / "gen-run", extra, push)
    for row in rows:
        print(json.dumps(row))
    return 0


def _cli_pr(request: Request) -> Answer:
    """The PR scenario's agent in the CLIs' forms: load the skill named in the request, write
    what it says."""
    if "submit_grading" in tool_names(request):
        return grading(request)
    blob = json.dumps(request.body)
    skill = "farewell" if "farewell" in blob and "greeter" not in blob else "greeter"
    steps = [load_skill(skill), write("message.txt", "Hello, Ada!\n"), say("Done.")]
    step = steps[min(request.turn, 2)]
    return step.codex if request.api == "responses" else step.claude


if __name__ == "__main__":
    sys.exit(main_bench())
