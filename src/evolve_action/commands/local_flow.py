"""`evolve-action run` outside Actions: the working tree against a base (or none), printed to
the terminal, the exit code from the gate."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

from evolve_action.commands.actions_flow import _has_secrets, run_to_exit
from evolve_action.commands.printing import print_run, print_summary
from evolve_action.pipeline import job
from evolve_action.pipeline.request import Request
from evolve_action.pipeline.stopping import Stop
from evolve_action.plan.changes import GitError
from evolve_action.plan.sides import local_sides
from evolve_action.settings.config import RepoConfig
from evolve_action.settings.events import Event
from evolve_action.settings.inputs import Mode, Settings

if TYPE_CHECKING:
    pass


NO_KEY = """\
evolve-action: no model API key, so no eval can run; nothing was planned. Do one of:
  - export ANTHROPIC_API_KEY or OPENAI_API_KEY (OPENAI_BASE_URL for a self-hosted
    OpenAI-compatible server), or pass --anthropic-api-key / --openai-api-key;
  - --replay DIR to answer from recorded exchanges (`evolve-action demo` replays some);
  - --dry-run to see the plan and its projected cost without calling a model;
  - `evolve-action validate` to check the eval files only."""


def _can_call_a_model(request: Request, settings: Settings) -> bool:
    """A key of some provider, or a run that needs none (replayed, or a dry run). Without,
    every run would end in the same error, one by one."""
    replayed = request.replay_dir is not None
    return replayed or settings.dry_run or _has_secrets(settings, request.environ)


def run_locally(
    request: Request,
    settings: Settings,
    config: RepoConfig,
    base: str,
    out: TextIO,
    *,
    quiet: bool = False,
    stop: Stop | None = None,
) -> int:
    if not _can_call_a_model(request, settings):
        print(NO_KEY, file=sys.stderr)
        return 2
    if settings.mode is Mode.CALIBRATE:
        from evolve_action.commands.calibrate_flow import calibrate_locally

        return calibrate_locally(request, settings, config, out, quiet=quiet, stop=stop)
    try:
        sides = local_sides(request.root, base)
    except GitError as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 2
    setup = job.JobSetup(
        request, settings, config, Event(name="local"), stream=out,
        on_done=None if quiet else lambda spec, result: print_run(out, spec, result),
        stop=stop or Stop(),
    )  # fmt: skip
    done = run_to_exit(setup, sides, out)
    if isinstance(done, int):
        return done
    code, finished = done
    for invalid in finished.invalid:
        for problem in invalid.problems:
            print(problem.render(), file=sys.stderr)
    failures = print_summary(out, finished.execution.results, invalid=len(finished.invalid))
    if finished.report.has_base:
        # Loaded only now: nothing of the report is needed before the runs are done.
        from evolve_action.publish.render.build.assemble import build_view
        from evolve_action.publish.render.comment import render

        print("", file=out)
        print(render(build_view(finished.report)), file=out)
    from evolve_action.publish.html.page import REPORT_FILE

    page = finished.results_path.parent / REPORT_FILE
    if page.is_file():
        print(f"report:  {page} (open it in a browser)", file=out)
    print(f"results: {finished.results_path}", file=out)
    if finished.gate.conclusion == "cancelled":
        print(f"evolve-action: {finished.gate.reason}", file=sys.stderr)
        return code
    # Without a base there is no gate to speak of: any failed or errored run fails.
    return code if finished.report.has_base else failures
