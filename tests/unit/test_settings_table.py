"""One table of settings (`settings.inputs.INPUTS`): the defaults of `Settings`, the parsers
and their messages, and the config file's keys are derived from it or checked against it
(action.yml and docs/inputs.md's inputs table: `test_action_contract`)."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from evolve_action.settings.config import _FIELDS, RepoConfig, load_config
from evolve_action.settings.inputs import (
    DEFAULTS,
    INPUTS,
    Settings,
    SettingsError,
    field_name,
    value_of,
)
from evolve_action.settings.inputs import from_values as parse_inputs

# Keys of the config file that are not inputs of the action: `layout` (shared with evolve) and
# `formats` (what a path's files are: a list of mappings, which no input could spell).
EVOLVE_SHARED = {"layout", "formats"}


def test_settings_defaults_are_the_table_defaults_parsed() -> None:
    defaults = Settings()
    for spec in INPUTS:
        assert value_of(defaults, spec.name) == DEFAULTS[spec.name], spec.name


def test_every_config_key_of_the_action_is_an_input_of_the_table() -> None:
    inputs = {field_name(spec.name) for spec in INPUTS}
    assert set(_FIELDS) - EVOLVE_SHARED <= inputs
    # and reaches the settings through `layering`, which reads the RepoConfig field by name
    assert set(_FIELDS) <= {f.name for f in fields(RepoConfig)}


def test_a_bad_alpha_is_refused_with_one_rule_in_inputs_and_config(tmp_path: Path) -> None:
    try:
        parse_inputs({"alpha": "0.5"})
    except SettingsError as exc:
        from_input = str(exc)
    (tmp_path / ".evolve.yaml").write_text("alpha: 0.5\n")
    (problem,) = load_config(tmp_path).problems
    rule = "must be above 0 and below 0.5"
    assert rule in from_input and rule in problem.message
    assert f"typically {DEFAULTS['alpha']}" in problem.message
