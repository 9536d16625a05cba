"""What the job does once its first request has left, while that request waits for its answer.

The grading and checks of the first answer and the sandbox's level (its note), then the
verdict, the report and the results files. None of it is done before the first request:
`preload_sdks` has the SDK import thread call these steps (`AFTER_FIRST_REQUEST`) once that
request has left. They are plain imports here, in the stage that may import them all, so
the architecture test sees every one.

This module imports nothing at its top: `run` hands the steps over before it imports the
pipeline itself, because the same call names the job's providers to the courier, which
imports their SDKs meanwhile. When the steps lived in `pipeline.job`, naming them meant
importing the whole job first, and the courier waited for it, idle (0.09 s on the runner).
"""

from __future__ import annotations


def _import_grading() -> None:
    from evolve_action.grade import checks, grading  # noqa: F401

    checks.load_all()


def job_level() -> object:
    """The sandbox's level for this job (`confine.job_level`: a probe in a child process)."""
    from evolve_action.execute.sandbox.confine import job_level as level

    return level()


def _import_report() -> None:
    from evolve_action.pipeline import report_input  # noqa: F401
    from evolve_action.publish import post  # noqa: F401
    from evolve_action.publish.html import page
    from evolve_action.publish.results import write  # noqa: F401
    from evolve_action.verdict import adaptive_verdict, gate, stats  # noqa: F401

    page.template()  # Jinja2 and the compiled page: the rest of teardown's time


AFTER_FIRST_REQUEST = (_import_grading, job_level, _import_report)
