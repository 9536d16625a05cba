"""Command line: `evolve-action {validate,run,calibrate,report,demo}`; builds real collaborators,
then hands over.

Each subcommand lives in `commands/<name>.py` and exposes `add_arguments(parser)` and
`execute(args) -> int`. Exit codes: 0 success or neutral, 1 a failed gate or invalid eval
files, 2 configuration errors (bad flags or inputs), 128 + the signal's number (143, 130) for
a `run` stopped by SIGTERM or SIGINT.
"""

from __future__ import annotations

import os
import sys

from evolve_action import __version__
from evolve_action.util import startup

# Before the courier is spawned (`_start_courier`) this module imports nothing it can leave
# for later: every millisecond here is one later for the first call (argparse is 10 ms).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterable, Sequence

COMMANDS = {
    "validate": "lint eval files of every supported format",
    "run": "run the evals (locally: --base none runs the working tree alone)",
    "calibrate": "run the current tree's evals twice, as two sides, to measure false alarms",
    "report": "merge results (shards, or an artifact from another job) and report them",
    "demo": "run the whole pipeline offline on the bundled example pull request",
}


def build_parser(commands: Iterable[str] = COMMANDS) -> argparse.ArgumentParser:
    """The parser; only the named `commands` import their module and get their arguments.

    The others are listed (for `--help` and the "invalid choice" message) but not loaded:
    importing every command module costs about 0.3 s, which `--version` and `validate`
    would otherwise pay for `run`'s and `report`'s dependencies.
    """
    import argparse
    import importlib

    parser = argparse.ArgumentParser(
        prog="evolve-action",
        description="Run agent-skill evals on a PR's base and head and report what changed.",
    )
    parser.add_argument("--version", action="version", version=f"evolve-action {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = set(commands)
    for name, help_text in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        if name in wanted:
            module = importlib.import_module(f"evolve_action.commands.{name}")
            module.add_arguments(command)
            command.set_defaults(_module=module)
    return parser


def chosen_command(argv: Sequence[str]) -> str | None:
    """The command `argv` names: the top-level parser's options take no value, so it is the
    first word that is not an option."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command and return its exit status. With `argv` None we are the program (the
    console script, `python -m evolve_action`): the process's garbage collector is tuned for
    start-up, the SDKs' type hubs load only what is used of them, and a command that returns
    ends the process itself (`startup.end`)."""
    if argv is not None:
        return _main(argv)
    startup.begin()
    return startup.end(_main(sys.argv[1:], program=True))


def _main(argv: Sequence[str], *, program: bool = False) -> int:
    words = list(argv)
    command = chosen_command(words)
    if program and command == "run" and not any(w.startswith("--replay") for w in words):
        _start_courier()  # first: it imports beside our parsing too
    parser = build_parser([command] if command else [])
    args = parser.parse_args(words)
    module = getattr(args, "_module", None)
    if module is None:
        parser.print_help(sys.stderr)
        return 2
    if program:  # before the command can import an SDK; `--version` and help never do
        _defer_sdk_type_hubs()
    result: int = module.execute(args)
    return result


def _start_courier() -> None:
    """A run that calls providers (a replay calls none): the courier process imports the SDK
    on another core now, while this process imports the rest, and then sends every call on
    the wires it carries (`courier.py`), so this process never imports an SDK. It is spawned
    before this process imports anything more (`courier_spawn`), then adopted. Only the
    program starts one: a process it outlives belongs to the program alone."""
    from evolve_action.execute.providers.courier_spawn import spawn

    child = spawn(os.environ)
    if child is not None:
        from evolve_action.execute.providers import courier

        courier.adopt(child)


def _defer_sdk_type_hubs() -> None:
    from evolve_action.model import provider_table
    from evolve_action.util import deferred_packages

    deferred_packages.defer(provider_table.sdk_type_hubs())
