"""A job that ran no eval because it had no key (or is a fork PR without secrets): the eval
files are validated, and the check, the job summary and one log line say why nothing ran and
what to do.

The conclusion is the gate's (`verdict.gate.could_not_judge`): neutral, or failure with
`on-incomplete: failure`, so a required check can fail closed.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from evolve_action.model.evals import LoadResult
from evolve_action.publish import check_output
from evolve_action.publish.actions_io import RunnerFiles, set_outputs, write_summary
from evolve_action.publish.annotations import annotate
from evolve_action.publish.github_api import Publisher
from evolve_action.publish.post import Published, conclude, head_sha, summary_with_problems
from evolve_action.publish.render.build.cases import invalid_files
from evolve_action.settings.events import Event
from evolve_action.settings.inputs import Settings
from evolve_action.verdict.gate import Gate, could_not_judge

VALIDATION_TITLE = "Eval files validated; evals not run (fork PR without secrets)"
HOW_TO_RUN = """\
This pull request comes from a fork, so the workflow has no API keys and a read-only token:
evolve validated the eval files and did not run them. To run the evals, a maintainer can:

- review the change, then comment `/evolve run` on this pull request, where the repository
  has the command workflow (`examples/workflows/evolve-fork-command.yml`); or
- review the change, then push the branch to this repository (or re-run the workflow from a
  branch here), so the run gets the repository's secrets; or
- use the two-stage pattern: a `pull_request` job that has what it needs uploads the
  results directory as an artifact, and a `workflow_run` job runs `evolve-action report`
  to post them, treating the artifact as data.
"""


NO_KEYS_TITLE = "Eval files validated; evals not run (no API key)"
NO_KEYS = """\
The workflow has no model API key, so evolve validated the eval files and did not run them.
Add a repository secret and pass it to the action (`anthropic-api-key` or `openai-api-key`,
or the `ANTHROPIC_API_KEY` / `OPENAI_API_KEY` environment variables; `OPENAI_BASE_URL` for a
self-hosted OpenAI-compatible server).
"""


NO_KEYS_LINE = (
    "No model API key: evals not run, eval files validated only. Pass a repository secret as"
    " the anthropic-api-key or openai-api-key input (or set ANTHROPIC_API_KEY / OPENAI_API_KEY)."
)
FORK_LINE = (
    "Fork pull request without secrets: evals not run, eval files validated only. A maintainer"
    " can comment `/evolve run` (examples/workflows/evolve-fork-command.yml)."
)


def publish_validation_only(
    *,
    event: Event,
    settings: Settings,
    checked: int,
    invalid: Sequence[LoadResult],
    publisher: Publisher | None,
    files: RunnerFiles,
    stream: TextIO = sys.stdout,
) -> Published:
    """No secrets (a fork PR, or no key configured): a check that says the evals did not run
    (neutral, or failure with `on-incomplete: failure`), or just the summary, with the lint
    results and what to do to run the evals; and one line in the log saying the same.

    Invalid files still make the exit code 1, as `evolve-action validate` would.
    """
    bad = [r for r in invalid if r.failed]
    valid = f"{checked - len(bad)} of {checked} eval files are valid."
    title, how = (VALIDATION_TITLE, HOW_TO_RUN) if event.fork else (NO_KEYS_TITLE, NO_KEYS)
    gate = could_not_judge(settings, title)
    lines = [f"### {gate.icon} evolve: {title}", "", valid, "", how]
    if bad:
        lines += ["**Invalid eval files**", ""]
        lines += [f"- {p.where}: {p.message}" for p in invalid_files(bad)]
    text = "\n".join(lines) + "\n"
    result = Published(gate.conclusion, 1 if bad else gate.exit_code, problems=[])
    notes = check_output.invalid_notes(bad)
    sha = head_sha(event, "")
    if publisher is not None and sha:
        result.check = conclude(
            publisher,
            settings,
            event,
            sha,
            result,
            conclusion=gate.conclusion,
            title=title,
            summary=text,
            annotations=check_output.check_annotations(notes),
            status=check_output.status(gate, title),
            forbidden_is_expected=True,
        )
    for line in check_output.log_commands(notes, result.problems):
        print(line, file=stream)
    print(_log_line(gate, event), file=stream)
    outputs = {"conclusion": gate.conclusion, "results-dir": str(settings.results_dir)}
    set_outputs(files.output, outputs)
    write_summary(files.summary, summary_with_problems(text, result.problems))
    return result


def _log_line(gate: Gate, event: Event) -> str:
    """The one log line of a job that ran no eval: why, and what to do; an annotation, so the
    run's page shows it too (an error when failing closed)."""
    why = FORK_LINE if event.fork else NO_KEYS_LINE
    level = "error" if gate.conclusion == "failure" else "warning"
    return annotate(level, f"{why} Check: {gate.conclusion}.", title="evolve: evals not run")
