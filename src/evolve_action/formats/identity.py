"""Fail only for what is surely ours: the problems of a file whose format is not certain.

A shared name (`eval.yaml`, `*.eval.yaml`, `evals.json`) puts a file in a format before its
content is seen. When that format's loader cannot read the file and nothing in the file
proves it is that format's (`shapes.certain`: its `$schema`, a key only it uses) and
`.evolve.yaml` does not name it, the file may well be another tool's: its problems become
warnings, it is reported as not run with the reason, and no check fails for it.
`validate --strict` keeps them errors.
"""

from __future__ import annotations

from dataclasses import replace

from evolve_action.model.evals import Format, LoadResult, Origin, Problem, Severity

HOW_TO_MAKE_CERTAIN = (
    "to have it read as {fmt}, add {fmt}'s keys, or name it in `.evolve.yaml`"
    ' (`formats: [{{paths: "{rel}", as: {fmt}}}]`); `evolve-action validate --strict` shows'
    " its problems as errors"
)


def uncertain(result: LoadResult, fmt: Format, line: int | None) -> LoadResult:
    """The result of a file its name alone put in `fmt`, which `fmt` could not read: not run,
    with warnings instead of errors."""
    first = result.errors[0] if result.errors else None
    why = f" ({_short(first.message)})" if first is not None else ""
    lead = Problem(
        Origin(result.rel, line),
        f"not run: its name alone made it a {fmt.value} file, nothing in it is a key only"
        f" {fmt.value} uses, and {fmt.value} could not read it{why}; it may be another tool's"
        " file, so no check fails for it. "
        + HOW_TO_MAKE_CERTAIN.format(fmt=fmt.value, rel=result.rel),
        Severity.WARNING,
    )
    warned = tuple(_warning(p) for p in result.problems)
    return LoadResult(result.rel, fmt, None, (lead, *warned))


def _warning(problem: Problem) -> Problem:
    if problem.severity is not Severity.ERROR:
        return problem
    return replace(problem, severity=Severity.WARNING)


def _short(message: str) -> str:
    return message if len(message) <= 160 else message[:160] + "…"
