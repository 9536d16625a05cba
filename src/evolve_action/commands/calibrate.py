"""`evolve-action calibrate`: the user's own A/A, on the current tree (`pipeline.calibrate`).

Every eval of the working tree runs as two independent sides, through the verdict a pull
request gets, with the same models, judge and harness (the same inputs as `run`, as flags);
the report says which evals moved, whether anything was flagged (a false alarm), the flip rate,
each eval's spread and the runs per side that would catch it breaking. It is `run` with
`--mode calibrate`, which is also how the action does it (`mode: calibrate`). Exit codes: 0
(a false alarm too: alpha allows it), 1 invalid eval files, 2 bad flags or inputs, 128 + the
signal's number when stopped.
"""

from __future__ import annotations

import argparse

from evolve_action.commands import run
from evolve_action.settings.inputs import Mode


def add_arguments(parser: argparse.ArgumentParser) -> None:
    run.add_arguments(parser, calibrate=True)


def execute(args: argparse.Namespace) -> int:
    args.mode = Mode.CALIBRATE.value
    args.base, args.record, args.replay = "none", None, None
    return run.execute(args)
