"""The parameters of promptfoo's check kinds, built by the loader from an assertion."""

from __future__ import annotations

from dataclasses import dataclass

from evolve_action.model.evals import CheckParams


@dataclass(frozen=True, slots=True)
class TextParams(CheckParams):
    """`contains`, `icontains`, `equals`, `starts-with`, `regex`, `is-json`, the `-any` /
    `-all` forms (`values`), and each one's `not-` form (`negate`)."""

    type: str
    negate: bool
    value: str = ""
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ScriptParams(CheckParams):
    """`javascript`: the code, and the score a number must reach (else above 0)."""

    code: str
    threshold: float | None = None


@dataclass(frozen=True, slots=True)
class LimitParams(CheckParams):
    """`cost` in dollars, `latency` in milliseconds."""

    threshold: float
