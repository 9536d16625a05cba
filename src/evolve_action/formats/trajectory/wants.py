"""What an eval expects of one tool call (a `Want`), and the `Outcome` a trajectory check gives.

A `Want` is a label (how evidence names it) and a test of a `ToolStep`. The name an eval
writes is compared with every form of the step (`ToolStep.forms`: full name, bare tool name,
`server/tool`, `server.tool`, `mcp__server__tool`), the way the format compares names:
exactly, as a glob, or as a regex searched in the name. Arguments match as a subset of the
call's JSON object (`arguments_match`), or as a regex searched in their raw JSON text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from evolve_action.model.trajectory import ToolStep
from evolve_action.util.globs import name_matches
from evolve_action.util.regex import compile_re2


class Naming(StrEnum):
    EXACT = "exact"  # the written name is one of the step's forms
    GLOB = "glob"  # `*` and `?` (promptfoo, AgentV 5 trajectories)
    REGEX = "regex"  # an RE2 regex searched in a form (evolve's `tool`)
    FOLDED = "folded"  # exact, ignoring case


@dataclass(frozen=True, slots=True)
class Want:
    label: str
    test: Callable[[ToolStep], bool] = field(compare=False)

    def __call__(self, step: ToolStep) -> bool:
        return self.test(step)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A trajectory check's verdict: pass or fail, its credit in [0, 1], the evidence."""

    passed: bool
    score: float
    evidence: str

    def inverted(self) -> Outcome:
        """The `not-` form: passes when the check fails; the credit flips with it."""
        return Outcome(not self.passed, 1.0 - self.score, f"(negated) {self.evidence}")


def name_test(written: str, naming: Naming = Naming.EXACT) -> Callable[[str], bool]:
    """Whether one reported form is the name written (regexes compile once, here: a bad one
    raises `RegexError` for the caller to report)."""
    if naming is Naming.GLOB:
        return lambda form: name_matches(written, form)
    if naming is Naming.REGEX:
        compiled = compile_re2(written)
        return lambda form: compiled.search(form) is not None
    if naming is Naming.FOLDED:
        folded = written.casefold()
        return lambda form: form.casefold() == folded
    return lambda form: form == written


def named(
    written: str,
    naming: Naming = Naming.EXACT,
    *,
    args: Mapping[str, Any] | None = None,
    args_regex: str = "",
    arg_patterns: Mapping[str, str] | None = None,
    label: str = "",
) -> Want:
    """The want of a call to the tool `written`, with arguments holding `args` (a subset of
    the call's object), whose raw JSON arguments `args_regex` searches, and whose named
    arguments' values `arg_patterns` search (RE2)."""
    names = name_test(written, naming)
    raw = compile_re2(args_regex) if args_regex else None
    for pattern in (arg_patterns or {}).values():
        compile_re2(pattern)  # a bad one raises here, for the caller to report

    def test(step: ToolStep) -> bool:
        if not any(names(form) for form in step.forms):
            return False
        if args is not None and not arguments_match(args, step.arguments):
            return False
        if arg_patterns and not values_match(arg_patterns, step.arguments):
            return False
        return raw is None or raw.search(step.raw_arguments) is not None

    return Want(label or written, test)


def arguments_match(expected: Any, actual: Any) -> bool:
    """Whether `actual` holds `expected`: every key of an expected object is in the actual
    one with a matching value (recursively: a subset), lists match element by element, and
    other values are equal (a whole number equals its float)."""
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(
            k in actual and arguments_match(v, actual[k]) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(arguments_match(e, a) for e, a in zip(expected, actual, strict=True))
        )
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    return bool(expected == actual)


def values_match(patterns: Mapping[str, str], actual: Any) -> bool:
    """Whether each named argument's value (as text) is searched by its RE2 pattern."""
    if not isinstance(actual, Mapping):
        return False
    for key, pattern in patterns.items():
        if key not in actual:
            return False
        value = actual[key]
        text = value if isinstance(value, str) else repr(value)
        if compile_re2(pattern).search(text) is None:
            return False
    return True
