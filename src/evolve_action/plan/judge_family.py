"""Which family the one judge comes from (the `judge-family` input).

A judge of the agent's own family can favour its work: audits that re-graded with a judge of
another family reversed some "regressions" the same-family judge had reported. A family is a
provider (`model.provider_table`). `other` asks for a judge from a provider none of the job's
models comes from (the first such provider with a key, in the default judge's order); a
provider id asks for that provider's default model. Empty keeps today's choice (the
`judge-model`, else the default judge). A choice that cannot be met is refused before any
call, with what to set.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from evolve_action.model import provider_table
from evolve_action.model.evals import split_model
from evolve_action.model.provider_table import PROVIDERS
from evolve_action.settings.inputs import OTHER_FAMILY
from evolve_action.settings.parsers import SettingsError


def family_of(model: str) -> str:
    """A model's family: its provider."""
    return split_model(model)[0]


def judge_token(
    family: str, judge_model: str, models: Sequence[str], has_key: Callable[[str], bool]
) -> str:
    """The judge-model token `family` asks for ("" when it asks nothing: the default judge)."""
    if not family:
        return judge_model
    own = sorted({family_of(m) for m in models})
    if judge_model:
        return _checked(family, judge_model, own)
    if family != OTHER_FAMILY:
        if not has_key(family):
            raise SettingsError(
                f"input judge-family: {family}, but no {family} key is set; set"
                f" {PROVIDERS[family].key_input} (or {PROVIDERS[family].key_env}), or choose"
                " another family"
            )
        return f"{family}/{PROVIDERS[family].default_model}"
    others = [p for p in _order() if p not in own]
    keyed = [p for p in others if has_key(p)]
    if not keyed:
        inputs = ", ".join(PROVIDERS[p].key_input for p in others) or "none is registered"
        raise SettingsError(
            f"input judge-family: other asks for a judge from a provider none of the models"
            f" comes from ({', '.join(own)}), and no such provider has a key; set one of"
            f" {inputs}, or remove judge-family to judge with the default"
        )
    return f"{keyed[0]}/{PROVIDERS[keyed[0]].default_model}"


def _order() -> list[str]:
    ranked = provider_table.judge_order()
    return [*ranked, *(p for p in PROVIDERS if p not in ranked)]


def _checked(family: str, judge_model: str, own: Sequence[str]) -> str:
    """`judge-model` set too: it must be of the family asked for."""
    chosen = family_of(judge_model) if "/" in judge_model else judge_model
    if family == OTHER_FAMILY and chosen in own:
        raise SettingsError(
            f"inputs judge-model ({judge_model}) and judge-family (other) disagree: the judge"
            f" is of the models' own family ({chosen}); choose a judge of another provider, or"
            " leave judge-model empty"
        )
    if family not in (OTHER_FAMILY, chosen):
        raise SettingsError(
            f"inputs judge-model ({judge_model}) and judge-family ({family}) disagree; set"
            " one of them"
        )
    return judge_model
