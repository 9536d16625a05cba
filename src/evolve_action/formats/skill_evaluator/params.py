"""The parameters of skill-evaluator's structural checks, built by the loader
(`items.structural_check`). Globs are relative to the workspace (`util.globs.RGLOB`)."""

from __future__ import annotations

from dataclasses import dataclass

from evolve_action.model.evals import CheckParams


@dataclass(frozen=True, slots=True)
class ExistsParams(CheckParams):
    pattern: str


@dataclass(frozen=True, slots=True)
class ContainsParams(CheckParams):
    """`file_contains`, `file_not_contains`: plain terms, or a regex that replaces them."""

    pattern: str = "*"
    terms: tuple[str, ...] = ()
    match_regex: str | None = None
    except_context: tuple[str, ...] = ()  # lines holding one of these are exempt (not_contains)


@dataclass(frozen=True, slots=True)
class CountParams(CheckParams):
    pattern: str = "*"
    count: int = 1
    operator: str = ">="


@dataclass(frozen=True, slots=True)
class ScriptParams(CheckParams):
    script: str
