"""The parameters of clauditor's L1 assertion kinds, built by the loader
(`items._assertion`) under the key names of clauditor's current spec."""

from __future__ import annotations

from dataclasses import dataclass

from evolve_action.model.evals import CheckParams


@dataclass(frozen=True, slots=True)
class NeedleParams(CheckParams):
    """`contains`, `not_contains`."""

    needle: str


@dataclass(frozen=True, slots=True)
class PatternParams(CheckParams):
    """`regex`, and `min_count` with the `count` of matches it needs."""

    pattern: str
    count: int = 1


@dataclass(frozen=True, slots=True)
class LengthParams(CheckParams):
    """`min_length`, `max_length`."""

    length: int


@dataclass(frozen=True, slots=True)
class CountParams(CheckParams):
    """`has_urls`, `has_entries`, `urls_reachable`: how many it needs."""

    count: int = 1


@dataclass(frozen=True, slots=True)
class FormatParams(CheckParams):
    """`has_format`: values of a registered field format (`field_formats.FORMATS`)."""

    format: str
    count: int = 1


TYPES: dict[str, type[CheckParams]] = {
    "contains": NeedleParams,
    "not_contains": NeedleParams,
    "regex": PatternParams,
    "min_count": PatternParams,
    "min_length": LengthParams,
    "max_length": LengthParams,
    "has_urls": CountParams,
    "has_entries": CountParams,
    "urls_reachable": CountParams,
    "has_format": FormatParams,
}
