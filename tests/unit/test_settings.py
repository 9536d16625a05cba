from __future__ import annotations

from pathlib import Path

import pytest

from evolve_action.model import provider_table
from evolve_action.settings.inputs import (
    INPUTS,
    KEY_INPUTS,
    CommentMode,
    Mode,
    Settings,
    SettingsError,
    Shard,
    field_name,
    from_environ,
    from_values,
)


def test_from_environ__reads_hyphenated_input_names() -> None:
    settings = from_environ(
        {
            "INPUT_GITHUB-TOKEN": "ghs_x",
            "INPUT_MODELS": "anthropic, openai/gpt-5.4\n",
            "INPUT_RUNS": "5",
            "INPUT_MODE": "ALL",
            "INPUT_FAIL-ON-REGRESSION": "false",
            "INPUT_SHARD": "2/3",
            "INPUT_RESULTS-DIR": "out",
            "INPUT_MAX-COST-USD": "1.5",
            "INPUT_COMMENT": "off",
        }
    )
    assert settings.github_token == "ghs_x"
    assert settings.models == ("anthropic", "openai/gpt-5.4")
    assert settings.runs == 5
    assert settings.mode is Mode.ALL
    assert settings.fail_on_regression is False
    assert settings.shard == Shard(2, 3)
    assert settings.results_dir == Path("out")
    assert settings.max_cost_usd == 1.5
    assert settings.comment is CommentMode.OFF


def test_from_values__blank_and_templated_values_mean_unset() -> None:
    assert from_values({"runs": "  ", "github-token": "${{ github.token }}"}) == Settings()


def test_secrets_are_hidden_from_repr() -> None:
    text = repr(from_values({"anthropic-api-key": "sk-ant-secret", "openai-api-key": "sk-x"}))
    assert "secret" not in text and "sk-x" not in text


@pytest.mark.parametrize(
    ("name", "raw", "needle"),
    [
        ("runs", "three", "not a whole number"),
        ("runs", "0", "at least 1"),
        ("alpha", "0.7", "below 0.5"),
        ("min-pass-rate", "1.5", "between 0 and 1"),
        ("shard", "4/3", "i/n"),
        ("mode", "some", "changed, all"),
        ("fail-on-regression", "maybe", "true or false"),
        ("max-cost-usd", "-1", "positive"),
        ("harness", "claude", "sdk, cli"),
    ],
)
def test_from_values__bad_values_name_the_input(name: str, raw: str, needle: str) -> None:
    with pytest.raises(SettingsError) as info:
        from_values({name: raw})
    assert name in str(info.value) and needle in str(info.value)


def test_every_input_is_a_settings_field_and_parses_its_own_default() -> None:
    fields = set(Settings.__dataclass_fields__)
    keys = {spec.name for spec in INPUTS if spec.name in KEY_INPUTS}
    assert {field_name(spec.name) for spec in INPUTS if spec.name not in keys} | {
        "api_keys"
    } == fields
    assert keys == {row.key_input for row in provider_table.rows() if not row.opt_in}
    defaults = from_values({spec.name: spec.default for spec in INPUTS})
    assert defaults == Settings()


def test_effective_settings__config_beats_defaults_but_not_explicit_inputs(tmp_path: Path) -> None:
    from evolve_action.pipeline.request import Request, effective_settings

    (tmp_path / ".evolve.yaml").write_text("alpha: 0.1\nruns: 7\nmax_cost_usd: 2.5\n")
    defaults = {spec.name: spec.default for spec in INPUTS}  # what action.yml passes
    settings, _, problems = effective_settings(Request(defaults, {}, tmp_path))
    assert problems == ()
    assert (settings.alpha, settings.runs, settings.max_cost_usd) == (0.1, 7, 2.5)
    explicit = defaults | {"alpha": "0.01", "runs": "2"}
    settings, _, _ = effective_settings(Request(explicit, {}, tmp_path))
    assert (settings.alpha, settings.runs) == (0.01, 2)


def test_effective_settings__the_harness_comes_from_the_input_or_the_config(tmp_path: Path) -> None:
    from evolve_action.pipeline.request import Request, effective_settings
    from evolve_action.settings.inputs import Harness

    defaults = {spec.name: spec.default for spec in INPUTS}
    assert effective_settings(Request(defaults, {}, tmp_path))[0].harness is Harness.SDK
    (tmp_path / ".evolve.yaml").write_text("harness: cli\n")
    assert effective_settings(Request(defaults, {}, tmp_path))[0].harness is Harness.CLI
    (tmp_path / ".evolve.yaml").write_text("harness: sdk\n")
    explicit = defaults | {"harness": "CLI"}  # an explicit input wins, in any case
    assert effective_settings(Request(explicit, {}, tmp_path))[0].harness is Harness.CLI
