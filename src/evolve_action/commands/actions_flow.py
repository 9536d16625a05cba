"""The two ways `run` ends: printed locally, or published to GitHub inside Actions.

With `mode: calibrate` (also `evolve-action calibrate`) both ways run the current tree as two
independent sides instead (`pipeline.calibrate`), and report what the verdict made of it.

Inside Actions the event decides (`events.decide`): compare base and head; validate only (a
fork PR without secrets: neutral check explaining how a maintainer can run the evals);
refuse (`pull_request_target` without `allow-untrusted-code`); report from an artifact
(`workflow_run`, handled by `pipeline.merged`); or, for forks, a maintainer's `/evolve run`
(`issue_comment`) and the pending check waiting for it (`pipeline.fork_command`).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TextIO

from evolve_action.commands.printing import print_run
from evolve_action.execute.providers.setup import ModelChoiceError
from evolve_action.execute.sandbox.confine import unconfined_refusal
from evolve_action.formats import load_all
from evolve_action.model import provider_table
from evolve_action.pipeline import job
from evolve_action.pipeline.request import Request
from evolve_action.pipeline.stopping import Stop
from evolve_action.plan.changes import GitError
from evolve_action.plan.planning import PlanTooLarge
from evolve_action.plan.sides import Sides, event_sides
from evolve_action.publish.actions_io import RunnerFiles
from evolve_action.settings.config import RepoConfig
from evolve_action.settings.events import Action, Event, EventError, decide, from_environ
from evolve_action.settings.inputs import Mode, Settings
from evolve_action.util.files import ResultsWriteError

if TYPE_CHECKING:
    from evolve_action.publish.github_api import Publisher

REFUSAL = (
    "pull_request_target runs with secrets and a write token; evolve-action will not run the"
    " pull request's code there. Use the `pull_request` trigger (and the two-stage"
    " workflow_run pattern for forks), or set `allow-untrusted-code: true` only for"
    " contributors you trust."
)


def run_to_exit(setup: job.JobSetup, sides: Sides, out: TextIO) -> tuple[int, job.Finished] | int:
    try:
        if setup.settings.dry_run:
            from evolve_action.pipeline.dry_run import dry_run

            return dry_run(setup, sides, out)
        finished, published = job.run_and_report(setup, sides)
    except (ModelChoiceError, PlanTooLarge) as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 2
    except ResultsWriteError as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 2
    finally:
        sides.close()
    code = published.exit_code if published else finished.gate.exit_code
    return code, finished


def _has_secrets(settings: Settings, environ: Mapping[str, str]) -> bool:
    keys = provider_table.keys_of(settings)
    return provider_table.has_credentials(keys, environ, settings.models)


@dataclass(frozen=True)
class _Run:
    """What every road of `run_in_actions` starts from: the run's request and settings, the
    event, and where the report goes (GitHub, if a token can write there; the runner's files)."""

    request: Request
    settings: Settings
    config: RepoConfig
    environ: Mapping[str, str]
    event: Event
    publisher: Publisher | None
    files: RunnerFiles

    @property
    def has_secrets(self) -> bool:
        return _has_secrets(self.settings, self.environ)


def run_in_actions(
    request: Request,
    settings: Settings,
    config: RepoConfig,
    environ: Mapping[str, str],
    *,
    base: str = "",
    stop: Stop | None = None,
) -> int:
    """The event decides the road (`events.decide`); each road returns the exit code."""
    from evolve_action.publish.annotations import annotate
    from evolve_action.publish.github_api import Publisher, make_client

    try:
        event = from_environ(environ)
    except EventError as exc:
        print(annotate("error", str(exc), title="evolve: bad event"))
        return 2
    publisher = None
    if settings.github_token and event.repo:
        publisher = Publisher(make_client(settings.github_token, api_url=event.api_url), event.repo)
    files = RunnerFiles(environ.get("GITHUB_OUTPUT"), environ.get("GITHUB_STEP_SUMMARY"))
    run = _Run(request, settings, config, environ, event, publisher, files)
    action = decide(
        event,
        has_secrets=run.has_secrets,
        allow_untrusted_code=settings.allow_untrusted_code,
        pending_check=settings.pending_check,
    )
    if action in (Action.COMMAND, Action.PENDING):
        return _fork_command(run, action)
    if action is Action.REPORT:
        from evolve_action.pipeline.merged import report_in_actions

        return report_in_actions(request.values, config, event, publisher, files, sys.stdout)
    if action is Action.REFUSE:
        print(annotate("error", REFUSAL, title="evolve: refusing pull_request_target"))
        return 2
    if action is Action.VALIDATE_ONLY:
        return _validate_only(run)
    return _compare(run, base, stop)


def _fork_command(run: _Run, action: Action) -> int:
    """A maintainer's `/evolve run` on a fork's PR, or the pending check waiting for it."""
    from evolve_action.pipeline import fork_command

    gh = fork_command.publisher_for(run.settings, run.event)
    if action is Action.PENDING:
        return fork_command.post_pending(run.settings, run.event, gh)
    ctx = fork_command.Context(
        run.request, run.settings, run.config, run.event, run.files, run.has_secrets
    )

    def finish(setup: job.JobSetup, sides: Sides) -> int:
        done = run_to_exit(setup, sides, sys.stdout)
        return done if isinstance(done, int) else done[0]

    return fork_command.run_command(
        ctx, run.environ, publisher=gh, finish=finish,
        on_done=lambda spec, result: print_run(sys.stdout, spec, result),
    )  # fmt: skip


def _validate_only(run: _Run) -> int:
    """No secrets (a fork PR, or no key): the eval files validated, and the check says why
    the evals did not run."""
    from evolve_action.publish.not_run import publish_validation_only

    settings = run.settings
    results = load_all(
        run.request.root,
        paths=settings.paths,
        layout=run.config.layout or "auto",
        declared=run.config.formats,
    )
    published = publish_validation_only(
        event=run.event,
        settings=settings,
        checked=len(results),
        invalid=[r for r in results if not r.ok],
        publisher=run.publisher,
        files=run.files,
    )
    return published.exit_code


def _compare(run: _Run, base: str, stop: Stop | None) -> int:
    """Base against head (or a calibration): run, report, publish."""
    from evolve_action.publish.annotations import annotate

    settings, event, publisher = run.settings, run.event, run.publisher
    refusal = unconfined_refusal(settings.allow_unconfined)
    if refusal is not None:
        # Fail closed: PR code must not run with this job's privileges unless asked to.
        print(annotate("error", refusal, title="evolve: commands cannot be confined"))
        return 2
    if settings.mode is Mode.CALIBRATE:
        from evolve_action.commands.calibrate_flow import calibrate_in_actions

        return calibrate_in_actions(
            run.request, settings, run.config, event, publisher, run.files, stop
        )
    if not event.is_pr:
        # push and workflow_dispatch check everything against the previous (or given) base.
        settings = replace(settings, mode=Mode.ALL)
    try:
        sides = event_sides(run.request.root, event, base_ref=base)
    except GitError as exc:
        print(annotate("error", str(exc), title="evolve: cannot find base and head"))
        return 2
    out = sys.stdout
    if settings.shard.count > 1:
        # One shard of several: only the final `report` job may comment and set the check.
        publisher = None
    setup = job.JobSetup(
        run.request, settings, run.config, event, publisher=publisher, files=run.files,
        stream=out, on_done=lambda spec, result: print_run(out, spec, result),
        stop=stop or Stop(),
    )  # fmt: skip
    done = run_to_exit(setup, sides, out)
    return done if isinstance(done, int) else done[0]
