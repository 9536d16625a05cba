"""`evolve-action run`: the whole job. Every action input is also a flag of the same name.

Inside Actions (`GITHUB_ACTIONS=true`) the event decides what happens (`events.decide`) and
the report goes to GitHub. Outside, `--base none` runs the working tree alone and `--base REF`
compares it with the merge-base of REF and HEAD; each run's outcome is printed, then (with a
base) the comment's markdown, and the results are written. Nothing is posted.

From its start, SIGTERM and SIGINT are the job's to handle (`pipeline.stopping`): they stop
it early with what it has, never with a traceback or a half-written file.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from evolve_action.model.evals import Severity
from evolve_action.settings.inputs import INPUTS, Mode, SettingsError, field_name, raw_inputs
from evolve_action.settings.parsers import _bool

if TYPE_CHECKING:
    from evolve_action.pipeline.request import Request
    from evolve_action.pipeline.stopping import Stop
    from evolve_action.settings.config import RepoConfig
    from evolve_action.settings.inputs import Settings

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser, *, calibrate: bool = False) -> None:
    """`run`'s flags; `calibrate` leaves out what it sets itself (`mode`, the base, and the
    recordings, which would make its two sides equal)."""
    inputs = parser.add_argument_group("action inputs (the same names as in action.yml)")
    for spec in INPUTS:
        if calibrate and spec.name == "mode":
            continue
        if spec.secret and spec.name != "github-token":
            help_text = spec.description + " Prefer the environment variable."
        else:
            help_text = spec.description
        # A yes/no input also stands alone as a flag: `--dry-run` is `--dry-run true`.
        switch = {"nargs": "?", "const": "true"} if spec.parse is _bool else {}
        inputs.add_argument(
            f"--{spec.name}",
            dest=field_name(spec.name),
            metavar="VALUE",
            default=None,
            help=help_text,
            **switch,  # type: ignore[arg-type]
        )
    local = parser.add_argument_group("local runs")
    local.add_argument("--root", type=Path, default=None, help="repository root (default: .)")
    local.add_argument("--keep-workspaces", action="store_true", help="keep run workspaces")
    local.add_argument(
        "--quiet", action="store_true", help="no line per run; only the summary and the report"
    )
    if calibrate:
        return
    local.add_argument(
        "--base",
        default="none",
        help="compare the working tree with the merge-base of REF and HEAD; `none` (the"
        " default) runs the working tree alone",
    )
    local.add_argument("--record", type=Path, metavar="DIR", help="record provider exchanges")
    local.add_argument("--replay", type=Path, metavar="DIR", help="answer from recordings")


def execute(args: argparse.Namespace) -> int:
    from evolve_action.pipeline.stopping import Stop

    with Stop().installed() as stop:
        return _execute(args, stop)


def _execute(args: argparse.Namespace, stop: Stop) -> int:
    environ = dict(os.environ)
    in_actions = environ.get("GITHUB_ACTIONS") == "true"
    default_root = environ.get("GITHUB_WORKSPACE", ".") if in_actions else "."
    root = (args.root or Path(default_root)).resolve()
    if not root.is_dir():
        print(f"evolve-action: --root {root} is not a directory", file=sys.stderr)
        return 2
    # The SDKs take a second or more to import: only a run that needs them pays for it.
    from evolve_action.pipeline.request import Request, effective_settings

    request = Request(
        values=_values(args, environ, in_actions),
        environ=environ,
        root=root,
        record_dir=args.record,
        replay_dir=args.replay,
        keep_workspaces=args.keep_workspaces,
    )
    try:
        settings, config, config_problems = effective_settings(request)
    except SettingsError as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 2
    for problem in config_problems:
        print(problem.render(), file=sys.stderr)
    if any(p.severity is Severity.ERROR for p in config_problems):
        return 2
    from evolve_action.execute.providers.setup import preload_sdks
    from evolve_action.pipeline.first_request import AFTER_FIRST_REQUEST

    # Beside git and loading, and before the pipeline's own imports: the courier imports the
    # SDKs named here while this process imports the rest. What the job needs only after its
    # first requests comes once the first has left.
    preload_sdks(settings, environ, replay=args.replay is not None, then=AFTER_FIRST_REQUEST)
    return _flow(args, request, settings, config, environ, in_actions, stop)


def _values(args: argparse.Namespace, environ: dict[str, str], in_actions: bool) -> dict[str, str]:
    """The inputs: the workflow's (in Actions), then the command line's over them."""
    values: dict[str, str] = dict(raw_inputs(environ)) if in_actions else {}
    values.update(
        {
            spec.name: getattr(args, field_name(spec.name))
            for spec in INPUTS
            if getattr(args, field_name(spec.name)) is not None
        }
    )
    return values


def _flow(
    args: argparse.Namespace,
    request: Request,
    settings: Settings,
    config: RepoConfig,
    environ: dict[str, str],
    in_actions: bool,
    stop: Stop,
) -> int:
    """The one flow this job takes, imported by the branch that takes it: a local run loads
    none of Actions'."""
    if settings.mode is Mode.WATCH:
        from evolve_action.commands import watch_flow

        if in_actions:
            return watch_flow.watch_in_actions(request, settings, config, environ, stop)
        return watch_flow.watch_locally(request, settings, config, sys.stdout, stop)
    if in_actions:
        from evolve_action.commands import actions_flow, watch_flow

        base = "" if args.base == "none" else args.base
        code = actions_flow.run_in_actions(request, settings, config, environ, base=base, stop=stop)
        watch_flow.record_push(request, settings, config, environ)
        return code
    from evolve_action.commands import local_flow

    return local_flow.run_locally(
        request, settings, config, args.base, sys.stdout, quiet=args.quiet, stop=stop
    )
