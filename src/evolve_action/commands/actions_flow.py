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
from dataclasses import replace
from typing import TYPE_CHECKING, TextIO

from evolve_action.execute.providers.setup import ModelChoiceError
from evolve_action.execute.sandbox.confine import unconfined_refusal
from evolve_action.formats import load_all
from evolve_action.model.outcomes import RunResult, Status
from evolve_action.model.spend import spend_of, spend_text
from evolve_action.pipeline import job
from evolve_action.pipeline.orchestrate import Request
from evolve_action.pipeline.stopping import Stop
from evolve_action.plan.changes import GitError
from evolve_action.plan.planning import RunSpec
from evolve_action.plan.sides import Sides, event_sides, local_sides
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


def _finish(setup: job.JobSetup, sides: Sides, out: TextIO) -> tuple[int, job.Finished] | int:
    try:
        if setup.settings.dry_run:
            from evolve_action.pipeline.dry_run import dry_run

            return dry_run(setup, sides, out)
        finished, published = job.run(setup, sides)
    except ModelChoiceError as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 2
    except ResultsWriteError as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 2
    finally:
        sides.close()
    code = published.exit_code if published else finished.gate.exit_code
    return code, finished


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
    if settings.mode is Mode.CALIBRATE:
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
    done = _finish(setup, sides, out)
    if isinstance(done, int):
        return done
    code, finished = done
    for invalid in finished.invalid:
        for problem in invalid.problems:
            print(problem.render(), file=sys.stderr)
    failures = print_summary(out, finished.execution.results, invalid=len(finished.invalid))
    if finished.report.has_base:
        # Loaded only now: nothing of the report is needed before the runs are done.
        from evolve_action.publish.render.build import build_view
        from evolve_action.publish.render.comment import render

        print("", file=out)
        print(render(build_view(finished.report)), file=out)
    print(f"results: {finished.results_path}", file=out)
    if finished.gate.conclusion == "cancelled":
        print(f"evolve-action: {finished.gate.reason}", file=sys.stderr)
        return code
    # Without a base there is no gate to speak of: any failed or errored run fails.
    return code if finished.report.has_base else failures


def _has_secrets(settings: Settings, environ: Mapping[str, str]) -> bool:
    keys = (settings.anthropic_api_key, settings.openai_api_key)
    env = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL")
    return any(keys) or any(environ.get(name) for name in env)


def run_in_actions(
    request: Request,
    settings: Settings,
    config: RepoConfig,
    environ: Mapping[str, str],
    *,
    base: str = "",
    stop: Stop | None = None,
) -> int:
    from evolve_action.publish.annotations import annotate
    from evolve_action.publish.github_api import Publisher, make_client
    from evolve_action.publish.post import publish_validation_only

    try:
        event = from_environ(environ)
    except EventError as exc:
        print(annotate("error", str(exc), title="evolve: bad event"))
        return 2
    publisher = None
    if settings.github_token and event.repo:
        publisher = Publisher(make_client(settings.github_token, api_url=event.api_url), event.repo)
    files = RunnerFiles(environ.get("GITHUB_OUTPUT"), environ.get("GITHUB_STEP_SUMMARY"))
    action = decide(
        event,
        has_secrets=_has_secrets(settings, environ),
        allow_untrusted_code=settings.allow_untrusted_code,
        pending_check=settings.pending_check,
    )
    if action in (Action.COMMAND, Action.PENDING):
        from evolve_action.pipeline import fork_command

        gh = fork_command.publisher_for(settings, event)
        if action is Action.PENDING:
            return fork_command.post_pending(settings, event, gh)
        ctx = fork_command.Context(
            request, settings, config, event, files, _has_secrets(settings, environ)
        )

        def finish(setup: job.JobSetup, sides: Sides) -> int:
            done = _finish(setup, sides, sys.stdout)
            return done if isinstance(done, int) else done[0]

        return fork_command.run_command(
            ctx, environ, publisher=gh, finish=finish,
            on_done=lambda spec, result: print_run(sys.stdout, spec, result),
        )  # fmt: skip
    if action is Action.REPORT:
        from evolve_action.pipeline.merged import report_in_actions

        return report_in_actions(request.values, config, event, publisher, files, sys.stdout)
    if action is Action.REFUSE:
        print(annotate("error", REFUSAL, title="evolve: refusing pull_request_target"))
        return 2
    if action is Action.VALIDATE_ONLY:
        results = load_all(request.root, paths=settings.paths, layout=config.layout or "auto")
        published = publish_validation_only(
            event=event,
            settings=settings,
            checked=len(results),
            invalid=[r for r in results if not r.ok],
            publisher=publisher,
            files=files,
        )
        return published.exit_code
    refusal = unconfined_refusal(settings.allow_unconfined)
    if refusal is not None:
        # Fail closed: PR code must not run with this job's privileges unless asked to.
        print(annotate("error", refusal, title="evolve: commands cannot be confined"))
        return 2
    if settings.mode is Mode.CALIBRATE:
        return _calibrate_in_actions(request, settings, config, event, publisher, files, stop)
    if not event.is_pr:
        # push and workflow_dispatch check everything against the previous (or given) base.
        settings = replace(settings, mode=Mode.ALL)
    try:
        sides = event_sides(request.root, event, base_ref=base)
    except GitError as exc:
        print(annotate("error", str(exc), title="evolve: cannot find base and head"))
        return 2
    out = sys.stdout
    if settings.shard.count > 1:
        # One shard of several: only the final `report` job may comment and set the check.
        publisher = None
    setup = job.JobSetup(
        request, settings, config, event, publisher=publisher, files=files, stream=out,
        on_done=lambda spec, result: print_run(out, spec, result), stop=stop or Stop(),
    )  # fmt: skip
    done = _finish(setup, sides, out)
    return done if isinstance(done, int) else done[0]


def _calibration_refusal(request: Request, settings: Settings) -> str | None:
    if settings.shard.count > 1:
        return "mode calibrate runs whole: drop the `shard` input (each side needs every eval)"
    if request.replay_dir is not None:
        return "mode calibrate cannot --replay: recorded answers would make the two sides equal"
    return None


def calibrate_locally(
    request: Request,
    settings: Settings,
    config: RepoConfig,
    out: TextIO,
    *,
    quiet: bool = False,
    stop: Stop | None = None,
) -> int:
    """The working tree as two sides; each run's line, then the calibration's report."""
    from evolve_action.pipeline import calibrate

    refusal = _calibration_refusal(request, settings)
    if refusal is not None:
        print(f"evolve-action: {refusal}", file=sys.stderr)
        return 2

    def each(spec: RunSpec, result: RunResult) -> None:
        print_run(out, spec, result, ("A", "B"))

    try:
        done = calibrate.run(
            request, settings, config, Event(name="local"), calibrate.local_tree(request.root),
            stream=out, stop=stop, on_done=None if quiet else each,
        )  # fmt: skip
    except (ModelChoiceError, ResultsWriteError) as exc:
        print(f"evolve-action: {exc}", file=sys.stderr)
        return 2
    from evolve_action.publish.render.calibration import markdown

    print_summary(out, done.finished.execution.results, invalid=len(done.finished.invalid))
    print("", file=out)
    print(
        markdown(
            done.calibration,
            done.gate,
            notices=done.finished.report.notices,
            complete=done.complete,
        ),
        file=out,
    )
    print(f"results: {done.finished.results_path}", file=out)
    print(f"calibration: {done.files[0]}", file=out)
    return done.gate.exit_code


def _calibrate_in_actions(
    request: Request,
    settings: Settings,
    config: RepoConfig,
    event: Event,
    publisher: Publisher | None,
    files: RunnerFiles,
    stop: Stop | None,
) -> int:
    from evolve_action.pipeline import calibrate
    from evolve_action.publish.annotations import annotate

    refusal = _calibration_refusal(request, settings)
    if refusal is not None:
        print(annotate("error", refusal, title="evolve: cannot calibrate"))
        return 2
    try:
        sides = calibrate.commit_tree(request.root, event)
    except GitError as exc:
        print(annotate("error", str(exc), title="evolve: cannot find the commit to calibrate"))
        return 2
    out, stop = sys.stdout, stop or Stop()
    try:
        done = calibrate.run(
            request, settings, config, event, sides, stream=out, stop=stop,
            on_done=lambda spec, result: print_run(out, spec, result, ("A", "B")),
        )  # fmt: skip
    except (ModelChoiceError, ResultsWriteError) as exc:
        print(annotate("error", str(exc), title="evolve: calibration failed"))
        return 2
    return calibrate.publish_in_actions(done, publisher=publisher, files=files, stop=stop)


def print_run(
    out: TextIO, spec: RunSpec, result: RunResult, sides: tuple[str, str] = ("base", "")
) -> None:
    """One line per run; `sides` names the base and head sides ("" leaves one unmarked)."""
    mark = {Status.PASS: "PASS ", Status.FAIL: "FAIL ", Status.ERROR: "ERROR"}[result.status]
    where = f"{spec.suite.rel} {spec.case.id} {spec.model} #{spec.repetition}"
    # base and head as `sides` names them; the no-skill arm always says so
    side = {"base": sides[0], "head": sides[1]}.get(spec.side.value, spec.side.value)
    if side:
        where = f"[{side}] {where}"
    detail = f"score {result.score:.2f}" if result.status is not Status.ERROR else result.error
    cached = " (cached)" if result.cached else ""
    print(f"{mark} {where}  {detail}{cached}", file=out)
    for item in result.items:
        if item.passed is False:
            print(f"        ✗ {item.text}: {item.evidence}", file=out)
    out.flush()


def print_summary(out: TextIO, results: list[RunResult], *, invalid: int) -> int:
    counts = {status: sum(r.status is status for r in results) for status in Status}
    paid = spend_of(results)  # what this job paid; cached runs cost it nothing
    cost = f"${paid.paid_usd:.4f}" if paid.known else spend_text(paid)
    print(
        f"{len(results)} runs: {counts[Status.PASS]} passed, {counts[Status.FAIL]} failed,"
        f" {counts[Status.ERROR]} errors; {invalid} invalid eval files; {cost}",
        file=out,
    )
    return 1 if invalid or counts[Status.FAIL] or counts[Status.ERROR] else 0
