"""`mode: watch` locally and in Actions (`pipeline/watch.py`), and a push's line in the history.

In Actions the tree is the commit the event names (a `schedule` or `workflow_dispatch` run of
the default branch); locally, the working tree. A drop becomes an issue, never a red check:
the exit code is 0 whatever the models did, 2 for a job that could not run, and 128 + the
signal's number for a watch that was stopped (it resumes at the next run).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from evolve_action.commands.printing import print_run
from evolve_action.execute.providers.setup import ModelChoiceError
from evolve_action.execute.sandbox.confine import unconfined_refusal
from evolve_action.model import provider_table
from evolve_action.pipeline.request import Request
from evolve_action.pipeline.stopping import Stop
from evolve_action.plan.changes import GitError
from evolve_action.plan.sides import Sides, commit_sides
from evolve_action.publish.actions_io import RunnerFiles
from evolve_action.settings.config import RepoConfig
from evolve_action.settings.events import Event, EventError, from_environ
from evolve_action.settings.inputs import Settings
from evolve_action.util.files import ResultsWriteError

if TYPE_CHECKING:
    from evolve_action.pipeline.watch import Watched
    from evolve_action.publish.github_api import Publisher


WATCH_EVENTS = ("schedule", "workflow_dispatch", "push", "repository_dispatch")


def refusal(request: Request, settings: Settings) -> str | None:
    if settings.dry_run:
        return (
            "mode watch has no dry run (it would record a watch that made no run); for the"
            " plan and its cost, run `--mode all --dry-run` on the same evals"
        )
    if request.replay_dir is not None:
        return "mode watch cannot --replay: recorded answers would hide what the models do now"
    return None


def commit_side(root: Path, sha: str) -> Sides:
    """A worktree of `sha` (else HEAD) as the one side a watch runs."""
    return commit_sides(root, sha, both=False)


def _watch(
    request: Request, settings: Settings, config: RepoConfig, event: Event, sides: Sides,
    out: TextIO, stop: Stop,
) -> Watched | str:  # fmt: skip
    from evolve_action.pipeline import watch

    try:
        return watch.run(
            request, settings, config, event, sides, stream=out, stop=stop,
            on_done=lambda spec, result: print_run(out, spec, result),
        )  # fmt: skip
    except (ModelChoiceError, ResultsWriteError, OSError) as exc:
        return str(exc)


def _exit(watched: Watched) -> int:
    gate = watched.finished.gate
    return gate.exit_code if gate.conclusion == "cancelled" else 0


def watch_in_actions(
    request: Request, settings: Settings, config: RepoConfig, environ: Mapping[str, str],
    stop: Stop | None = None,
) -> int:  # fmt: skip
    from evolve_action.pipeline.watch_report import publish
    from evolve_action.publish.annotations import annotate
    from evolve_action.publish.github_api import Publisher, make_client

    stop = stop or Stop()
    problem = refusal(request, settings) or unconfined_refusal(settings.allow_unconfined)
    if problem is not None:
        print(annotate("error", problem, title="evolve: cannot watch"))
        return 2
    try:
        event = from_environ(environ)
        if event.name not in WATCH_EVENTS:
            raise EventError(
                f"mode watch watches the default branch, on {', '.join(WATCH_EVENTS)}; this job"
                f" runs on {event.name} (for pull requests, use mode changed or all)"
            )
        sides = commit_side(request.root, event.head_sha)
    except (EventError, GitError) as exc:
        print(annotate("error", str(exc), title="evolve: cannot find the commit to watch"))
        return 2
    publisher: Publisher | None = None
    if settings.github_token and event.repo:
        publisher = Publisher(make_client(settings.github_token, api_url=event.api_url), event.repo)
    watched = _watch(request, settings, config, event, sides, sys.stdout, stop)
    if isinstance(watched, str):
        print(annotate("error", watched, title="evolve: watch failed"))
        return 2
    files = RunnerFiles(environ.get("GITHUB_OUTPUT"), environ.get("GITHUB_STEP_SUMMARY"))
    told = publish(watched, settings, event, publisher=publisher, files=files)
    print(told.summary)
    return _exit(watched)


def watch_locally(
    request: Request, settings: Settings, config: RepoConfig, out: TextIO,
    stop: Stop | None = None,
) -> int:  # fmt: skip
    """The working tree against the history; the summary printed, no issue written."""
    from evolve_action.pipeline.watch_report import publish

    problem = refusal(request, settings)
    if problem is not None:
        print(f"evolve-action: {problem}", file=sys.stderr)
        return 2
    sides = Sides(request.root, "", None, "")
    watched = _watch(request, settings, config, Event(name="local"), sides, out, stop or Stop())
    if isinstance(watched, str):
        print(f"evolve-action: {watched}", file=sys.stderr)
        return 2
    told = publish(watched, settings, Event(name="local"), publisher=None, files=RunnerFiles())
    print(told.summary, file=out)
    return _exit(watched)


def record_push(
    request: Request, settings: Settings, config: RepoConfig, environ: Mapping[str, str]
) -> None:
    """After a push job on the default branch: its head runs become the history's next line.
    Anything missing (no history-dir, another branch, no results) records nothing."""
    if settings.history_dir is None or environ.get("GITHUB_EVENT_NAME") != "push":
        return
    if settings.shard.count > 1:  # a shard splits a case's runs: its counts are not the push's
        print("evolve-action: a sharded push is not added to the history (shard the watch)")
        return
    try:
        payload = json.loads(Path(environ.get("GITHUB_EVENT_PATH", "")).read_text("utf-8"))
        default = (payload.get("repository") or {}).get("default_branch")
        if default and payload.get("ref") != f"refs/heads/{default}":
            return
        doc = json.loads((settings.results_dir / "results.json").read_text("utf-8"))
        incomplete = bool(doc["settings"].get("incomplete"))
        # A results file of another commit (an earlier job's, left in the directory).
        incomplete |= doc["settings"].get("head_sha") != environ.get("GITHUB_SHA", "")
    except (OSError, ValueError, AttributeError, KeyError, TypeError) as exc:
        print(f"evolve-action: the push was not added to the history: {exc}", file=sys.stderr)
        return
    if incomplete:  # stopped or cut by the budget: a line is never drawn from runs not made
        print("evolve-action: the push did not finish; it is not added to the history")
        return
    from evolve_action.execute.providers.setup import choose_judge
    from evolve_action.model.records import run_from_doc
    from evolve_action.pipeline.watch import record_push as append

    try:
        runs = [run_from_doc(r) for r in doc.get("runs", [])]
        keys = provider_table.keys_of(settings)
        judge = choose_judge(settings.judge_model, keys=keys, environ=environ)
        models = sorted({r.model for r in runs})
        append(settings, config, request.root, environ.get("GITHUB_SHA", ""), runs, judge, models)
    except (OSError, ValueError, KeyError, TypeError, ModelChoiceError) as exc:
        print(f"evolve-action: the push was not added to the history: {exc}", file=sys.stderr)
