"""The registry of format families: one line per family, everything else derived from it.

A family is one folder of `formats/`: its loader(s), the check kinds it registers
(`checks.py`, or a `checks/` package) and its scoring policy (`scoring.py`, whose `POLICY`
is a `model.scoring.Policy`, or a mapping of its formats to one). What several families
share is a folder beside them (`graders/`, `trajectory/`) that a family names in `shares`
or `scoring`. `model.evals.Format`, the placement of file names and the results schema's
format enum are checked against `FAMILIES` by `tests/unit/test_families.py`.

`grade` reaches check functions and policies through `load_checks` and `policy`, never by
importing a family, so a new family needs no change outside its folder and its line here.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from evolve_action.formats.base import LoadContext
from evolve_action.formats.documents import Document
from evolve_action.model.evals import Format, LoadResult
from evolve_action.model.scoring import Policy
from evolve_action.util import globs, lazy

Loader = Callable[[Document, LoadContext], LoadResult]

# The modules named in `FAMILIES` are relative to this package: the registry imports the family
# modules it lists, not the package's `__init__` (which imports the registry).
_PACKAGE = __name__.rpartition(".")[0]


@dataclass(frozen=True)
class Family:
    """One folder of `formats/` and what it declares."""

    package: str  # the folder under formats/
    loaders: Mapping[Format, str]  # each format it reads → the module in the folder with `load`
    shares: tuple[str, ...] = ()  # shared modules of formats/ whose check kinds it uses
    scoring: str = ""  # the module with its `POLICY` (default: `<package>.scoring`)
    # File-name globs (lower case) of its first format, for a family whose names
    # `placement.format_for_name` has no rule of its own for; found anywhere in the tree,
    # their skill is the nearest SKILL.md above them.
    names: tuple[str, ...] = ()

    def modules_with_checks(self) -> tuple[str, ...]:
        own = f"{self.package}.checks"
        return ((own,) if _exists(own) else ()) + self.shares

    def scoring_module(self) -> str:
        return self.scoring or f"{self.package}.scoring"


_GRADERS = "graders.scoring"  # graders and gates, their weights and threshold

FAMILIES: tuple[Family, ...] = (
    Family("evolve", {Format.EVOLVE: "load", Format.TRIGGERS: "triggers"}),
    Family("skill_evaluator", {Format.SKILL_EVALUATOR: "load"}),
    Family("agentv", {Format.AGENTV: "load"}),
    Family("clauditor", {Format.CLAUDITOR: "load"}),
    Family("vally", {Format.VALLY: "load"}, shares=("graders.checks",), scoring=_GRADERS),
    Family("skill_validator", {Format.SKILL_VALIDATOR: "load"}, ("graders.checks",), _GRADERS),
    Family("waza", {Format.WAZA: "load"}, shares=("graders.checks",), scoring=_GRADERS),
    Family("tessl", {Format.TESSL: "load"}, scoring=_GRADERS),
    Family("promptfoo", {Format.PROMPTFOO: "load"}, ("graders.checks",), _GRADERS),
    Family("claude_plugin", {Format.CLAUDE_PLUGIN: "load"}, scoring=_GRADERS),
    Family("best_practice", {Format.BEST_PRACTICE: "load"}, scoring=_GRADERS),
    Family(
        "axis",
        {Format.AXIS: "load"},
        scoring=_GRADERS,
        names=tuple(f"axis.config.{ext}" for ext in ("json", "ts", "mts", "js", "mjs", "cjs")),
    ),
    Family("caliper", {Format.CALIPER: "load"}, shares=("evolve.checks",), scoring=_GRADERS),
    Family("skillgrade", {Format.SKILLGRADE: "load"}, scoring=_GRADERS),
    Family(
        "skill_tests",
        {Format.SKILL_TESTS: "load"},
        shares=("evolve.checks",),
        names=("skill-tests.yaml", "skill-tests.yml"),
    ),
    Family("eval_md", {Format.EVAL_MD: "load"}, scoring=_GRADERS, names=("*.eval.md",)),
)


def format_named(lower_name: str) -> Format | None:
    """The format whose family declares a glob matching this (lower-case) file name."""
    for family in FAMILIES:
        if any(globs.name_matches(glob, lower_name) for glob in family.names):
            return next(iter(family.loaders))
    return None


def family_of(fmt: Format) -> Family:
    for family in FAMILIES:
        if fmt in family.loaders:
            return family
    raise KeyError(f"no family in formats/families.py reads {fmt.value!r}")


def formats() -> tuple[Format, ...]:
    """Every format a family reads, in the registry's order."""
    return tuple(fmt for family in FAMILIES for fmt in family.loaders)


def loader(fmt: Format) -> Loader | None:
    """The format's `load`, or None when its module is not in this build."""
    family = family_of(fmt)
    module: Any = lazy.optional(f"{_PACKAGE}.{family.package}.{family.loaders[fmt]}")
    if module is None:
        return None
    load: Loader = module.load
    return load


@cache
def load_checks() -> None:
    """Import every module that registers check kinds (once; they register on import)."""
    for family in FAMILIES:
        for module in family.modules_with_checks():
            lazy.module(f"{_PACKAGE}.{module}")


def policy(fmt: Format) -> Policy:
    """The scoring policy of a format: its family's `POLICY`, or its entry when a mapping."""
    module: Any = lazy.module(f"{_PACKAGE}.{family_of(fmt).scoring_module()}")
    found: Policy | Mapping[Format, Policy] = module.POLICY
    return found[fmt] if isinstance(found, Mapping) else found


def _exists(module: str) -> bool:
    return importlib.util.find_spec(f"{_PACKAGE}.{module}") is not None
