"""`evolve-action report`: one report from results already obtained (`pipeline.merged`).

Parses the flags and the environment, reads the repository config, and hands over: inside
Actions to `report_in_actions` (write, comment, check run, outputs), else to `report_locally`
(the comment on stdout). What the merge decides, and why the files are untrusted, is said in
`pipeline.merged`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from evolve_action.pipeline.merged import report_in_actions, report_locally
from evolve_action.publish.actions_io import RunnerFiles
from evolve_action.publish.github_api import Publisher, make_client
from evolve_action.settings.events import EventError, from_environ
from evolve_action.settings.inputs import INPUTS, SettingsError, field_name, raw_inputs
from evolve_action.settings.layering import layer, read_config


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "results",
        nargs="*",
        type=Path,
        help="results directories (or results.json files) to merge; default: --results-dir",
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="the repository whose config (.evolve.yaml, ...) applies (default: the workspace"
        " inside Actions, else .)",
    )
    inputs = parser.add_argument_group("action inputs (the same names as in action.yml)")
    for spec in INPUTS:
        inputs.add_argument(
            f"--{spec.name}", dest=field_name(spec.name), metavar="VALUE", default=None
        )


def execute(args: argparse.Namespace) -> int:
    environ = dict(os.environ)
    in_actions = environ.get("GITHUB_ACTIONS") == "true"
    values = raw_inputs(environ) if in_actions else {}
    values |= {
        spec.name: getattr(args, field_name(spec.name))
        for spec in INPUTS
        if getattr(args, field_name(spec.name)) is not None
    }
    default_root = environ.get("GITHUB_WORKSPACE", ".") if in_actions else "."
    loaded = read_config(values, (args.root or Path(default_root)).resolve())
    for problem in loaded.problems:
        print(problem.render(), file=sys.stderr)
    if loaded.errors:
        return 2
    if not in_actions:
        return report_locally(values, loaded.config, args.results, sys.stderr)
    try:
        settings = layer(values, loaded.config)
        event = from_environ(environ)
    except (SettingsError, EventError) as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 2
    publisher = None
    if settings.github_token and event.repo:
        client = make_client(settings.github_token, api_url=event.api_url)
        publisher = Publisher(client, event.repo)
    files = RunnerFiles(environ.get("GITHUB_OUTPUT"), environ.get("GITHUB_STEP_SUMMARY"))
    return report_in_actions(
        values, loaded.config, event, publisher, files, sys.stdout, args.results
    )
