"""Command line: `evolve-action {validate,run,report}`; builds real collaborators, then hands over.

Each subcommand lives in `commands/<name>.py` and exposes `add_arguments(parser)` and
`execute(args) -> int`. Exit codes: 0 success or neutral, 1 a failed gate or invalid eval
files, 2 configuration errors (bad flags or inputs).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from evolve_action import __version__

COMMANDS = {
    "validate": "lint eval files of every supported format",
    "run": "run the evals (locally: --base none runs the working tree alone)",
    "report": "merge results (shards, or an artifact from another job) and report them",
    "demo": "run the whole pipeline offline on the bundled example pull request",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evolve-action",
        description="Run agent-skill evals on a PR's base and head and report what changed.",
    )
    parser.add_argument("--version", action="version", version=f"evolve-action {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text in COMMANDS.items():
        module = importlib.import_module(f"evolve_action.commands.{name}")
        command = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(command)
        command.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    module = getattr(args, "_module", None)
    if module is None:
        parser.print_help(sys.stderr)
        return 2
    result: int = module.execute(args)
    return result
