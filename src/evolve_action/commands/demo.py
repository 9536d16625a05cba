"""`evolve-action demo`: the whole pipeline on a bundled pull request, offline.

It builds a scratch git repository whose `main` is `examples/demo-plugin/` and whose branch
`demo-pr` adds the files of `examples/demo-pr/`, then runs exactly what `evolve-action run
--base main` runs, with every provider answer replayed from `examples/demo-cassettes/` (no
network, no key). The cassettes were recorded by `scripts/record_demo.py` against a scripted
stand-in model on a loopback server, not against a real LLM: the verdicts, token counts and
costs are what that stand-in produced.

The demo runs each case without its skill too (`--baseline no-skill`), so its comment shows
each skill's lift and the checks that cannot tell a good skill from a bad one.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DEMO_MODELS = "anthropic/claude-sonnet-4-6,openai/gpt-5.4"
DEMO_JUDGE = "anthropic/claude-sonnet-4-6"
DEMO_RUNS = "3"
DEMO_BASELINE = "no-skill"  # the demo's skills are not new: ask for the no-skill arm
_GIT_ENV = {
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "evolve demo",
    "GIT_AUTHOR_EMAIL": "demo@example.invalid",
    "GIT_COMMITTER_NAME": "evolve demo",
    "GIT_COMMITTER_EMAIL": "demo@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}


def examples_dir() -> Path:
    """`examples/` of the source checkout this package runs from."""
    return Path(__file__).resolve().parents[3] / "examples"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--examples", type=Path, default=None, help="the examples directory")
    parser.add_argument("--keep", type=Path, default=None, help="build the demo in this dir")


def _git(repo: Path, *args: str) -> None:
    import os

    env = {**os.environ, **_GIT_ENV}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def build_repository(examples: Path, target: Path) -> Path:
    """A git repository with the demo's base on `main` and its pull request on `demo-pr`."""
    repo = target / "repo"
    shutil.copytree(examples / "demo-plugin", repo)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "demo: base")
    _git(repo, "checkout", "-q", "-b", "demo-pr")
    overlay = examples / "demo-pr"
    for source in sorted(overlay.rglob("*")):
        rel = source.relative_to(overlay)
        if source.is_file() and rel.as_posix() != "README.md":
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, repo / rel)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "demo: the pull request")
    return repo


def run_arguments(repo: Path, results: Path, cassettes: Path, *, record: bool) -> list[str]:
    mode = "--record" if record else "--replay"
    return [
        "run", "--root", str(repo), "--base", "main",
        "--models", DEMO_MODELS, "--judge-model", DEMO_JUDGE, "--runs", DEMO_RUNS,
        "--baseline", DEMO_BASELINE,
        "--results-dir", str(results), mode, str(cassettes), "--quiet",
    ]  # fmt: skip


# What the run leaves in its results directory that a reader opens first, in that order; a
# file the run did not write is not named.
READER_FILES = (("the HTML report", "report.html"), ("the results", "results.json"))


def written(results: Path) -> list[tuple[str, Path]]:
    return [(name, results / file) for name, file in READER_FILES if (results / file).is_file()]


def command_line(argv: list[str]) -> str:
    """The command the demo runs, as a reader would type it (quoted for a POSIX shell)."""
    import shlex

    return shlex.join(["evolve-action", *argv])


def execute(args: argparse.Namespace) -> int:
    from evolve_action.commands.cli import main

    examples = (args.examples or examples_dir()).resolve()
    cassettes = examples / "demo-cassettes"
    if not (examples / "demo-plugin").is_dir() or not cassettes.is_dir():
        print(
            f"evolve-action demo: {examples} has no demo-plugin/ and demo-cassettes/; the demo"
            " runs from a source checkout (or pass --examples)",
            file=sys.stderr,
        )
        return 2
    target = args.keep or Path(tempfile.mkdtemp(prefix="evolve-demo-"))
    target.mkdir(parents=True, exist_ok=True)
    repo = build_repository(examples, target)
    results = target / "results"
    argv = run_arguments(repo, results, cassettes, record=False)
    print(f"demo: replaying {cassettes.relative_to(examples.parent)} on {repo}", flush=True)
    print(f"demo: running {command_line(argv)}", flush=True)
    code = main(argv)
    print(f"\ndemo: the repository is {repo}; results are in {results}")
    for name, path in written(results):
        print(f"demo: {name}: {path}")
    # The demo's pull request is meant to regress: a failed gate is its success.
    return 0 if code in (0, 1) else code
