"""GitHub workflow-command annotations (`::error file=...,line=...::message`).

The runner parses these from the job log, so text from eval files (field names, messages
quoting authored values) must be escaped by GitHub's rules: in the message `%`, CR and LF; in a
property value also `:` and `,`, which would otherwise end the value early.

Import names from this module (`from ...publish.annotations import annotate`): the package
attribute `evolve_action.publish.annotations` can be the `__future__` feature of the same name.
"""

from __future__ import annotations

from collections.abc import Mapping

from evolve_action.model.evals import Problem, Severity

LEVELS = ("error", "warning", "notice")


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(
    name: str, message: str, properties: Mapping[str, str | int | None] | None = None
) -> str:
    """`::name key=value,...::message`, leaving out properties that are None or empty."""
    props = ",".join(
        f"{key}={escape_property(str(value))}"
        for key, value in (properties or {}).items()
        if value is not None and value != ""
    )
    head = f"::{name} {props}" if props else f"::{name}"
    return f"{head}::{escape_data(message)}"


def annotate(
    level: str,
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    title: str | None = None,
) -> str:
    """One annotation line; `level` is error, warning or notice."""
    if level not in LEVELS:
        raise ValueError(f"unknown annotation level {level!r}; expected one of {LEVELS}")
    return command(level, message, {"file": file, "line": line, "title": title})


def problem_annotation(problem: Problem, *, title: str = "") -> str:
    """A `Problem` as an annotation at its file and line, titled by its field."""
    level = {Severity.ERROR: "error", Severity.NOTICE: "notice"}.get(problem.severity, "warning")
    origin = problem.origin
    heading = title or (f"{origin.pointer}" if origin.pointer else "invalid eval file")
    return annotate(level, problem.message, file=origin.path, line=origin.line, title=heading)
