"""The repository config: lookup, typed fields, problems at lines, and its JSON Schema."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from types import MappingProxyType
from typing import Any

import jsonschema
import pytest
import yaml

from evolve_action.model.evals import Severity
from evolve_action.settings.config import (
    KNOWN_KEYS,
    ConfigResult,
    ModelPrice,
    RepoConfig,
    load_config,
)

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "schemas" / "config.schema.json").read_text())

FULL_YAML = """\
layout: marketplace
models: [anthropic/claude-sonnet-4-6, openai]
judge_model: anthropic/claude-opus-4-8
max_turns: 12
runs: 5
paths: ["plugins/*/evals/**"]
timeout_seconds: 300
fail_on_regression: false
min_pass_rate: 0.8
alpha: 0.1
max_cost_usd: 2.5
agent_network: true
harness: cli
harnesses: [claude, codex]
stale_results: keep
checks: {license: MIT}
report:
  thresholds: {evals_min_pass_rate: 0.75, triggers_min_pass_rate: 0.55}
  strict: true
providers:
  anthropic:
    models:
      - {id: claude-sonnet-4-6, input_per_mtok: 3, output_per_mtok: 15}
      - {id: claude-haiku-4-5}
"""

FULL = RepoConfig(
    layout="marketplace",
    models=("anthropic/claude-sonnet-4-6", "openai"),
    judge_model="anthropic/claude-opus-4-8",
    max_turns=12,
    runs=5,
    paths=("plugins/*/evals/**",),
    timeout_seconds=300.0,
    fail_on_regression=False,
    min_pass_rate=0.8,
    alpha=0.1,
    max_cost_usd=2.5,
    agent_network=True,
    harness="cli",
    prices=MappingProxyType({"anthropic/claude-sonnet-4-6": ModelPrice(3.0, 15.0)}),
)


def write(root: Path, name: str, text: str) -> Path:
    (root / name).write_text(text)
    return root


def test_load_config__absent_gives_an_empty_config(tmp_path: Path) -> None:
    result = load_config(tmp_path)
    assert (result.config, result.rel, result.problems) == (RepoConfig(), None, ())


@pytest.mark.parametrize("name", [".evolve.yaml", ".evolve.yml", ".evolve.json", ".evolve.jsonc"])
def test_load_config__reads_every_key_in_every_format(tmp_path: Path, name: str) -> None:
    data = yaml.safe_load(FULL_YAML)
    text = FULL_YAML if name.endswith(("yaml", "yml")) else json.dumps(data, indent=2)
    if name.endswith("jsonc"):
        text = "// shared with evolve\n" + text.replace("\n}", ",\n}")  # a trailing comma
    result = load_config(write(tmp_path, name, text))
    assert result.problems == ()
    assert result.rel == name
    assert result.config == FULL


def test_load_config__two_files_are_ambiguous(tmp_path: Path) -> None:
    write(tmp_path, ".evolve.yaml", "runs: 2")
    write(tmp_path, ".evolve.json", "{}")
    result = load_config(tmp_path)
    (problem,) = result.errors
    assert problem.message == (
        "ambiguous config: found .evolve.yaml, .evolve.json; keep exactly one"
    )
    assert result.config == RepoConfig()


def test_load_config__explicit_path(tmp_path: Path) -> None:
    (tmp_path / "ci").mkdir()
    write(tmp_path / "ci", "evolve.yml", "runs: 7")
    assert load_config(tmp_path, Path("ci/evolve.yml")).config.runs == 7
    missing = load_config(tmp_path, Path("ci/nope.yml"))
    assert "config file ci/nope.yml does not exist" in missing.errors[0].message


def test_load_config__syntax_error_names_the_line(tmp_path: Path) -> None:
    write(tmp_path, ".evolve.json", '{\n  "runs": 3,\n  "alpha": ,\n}')
    (problem,) = load_config(tmp_path).problems
    assert problem.origin.path == ".evolve.json"
    assert problem.origin.line == 3
    assert "invalid JSON" in problem.message


@pytest.mark.parametrize(
    ("line", "field", "expected"),
    [
        ("runs: 0", "runs", "must be at least 1, got 0"),
        ("runs: 2.5", "runs", "must be a whole number of at least 1, not a number"),
        ("max_turns: true", "max_turns", "not a boolean"),
        ("alpha: 0.5", "alpha", "above 0 and below 0.5"),
        ("min_pass_rate: 1.5", "min_pass_rate", "must be between 0 and 1, got 1.5"),
        ("min_pass_rate: '0.5'", "min_pass_rate", "not a string"),
        ("timeout_seconds: 0", "timeout_seconds", "must be a positive number, got 0"),
        ("max_cost_usd: -1", "max_cost_usd", "must be a positive number, got -1"),
        ("fail_on_regression: yes", "fail_on_regression", "must be true or false, not a string"),
        ("layout: flat", "layout", "'flat' is not a layout"),
        ("harness: claude", "harness", "'claude' is not a harness; use one of sdk, cli"),
        ("judge_model: '  '", "judge_model", "must not be empty"),
        ("models: {a: 1}", "models", "must be a list of strings, not a mapping"),
        ("models: [anthropic, 3]", "models[1]", "must be a non-empty string"),
        ("paths: ['../outside/**']", "paths[0]", "cannot climb out"),
        (
            "report: {thresholds: {evals_min_pass_rate: 2}}",
            "report.thresholds.evals_min_pass_rate",
            "between 0 and 1",
        ),
        ("report: [1]", "report", "must be a mapping, not a list"),
        (
            "providers: {anthropic: {models: [{id: x, input_per_mtok: -3, output_per_mtok: 1}]}}",
            "providers.anthropic.models[0].input_per_mtok",
            "0 or more",
        ),
        ("providers: {openai: [1]}", "providers.openai", "with a `models` list"),
    ],
)
def test_load_config__bad_values_are_errors_at_their_line(
    tmp_path: Path, line: str, field: str, expected: str
) -> None:
    result = load_config(
        write(tmp_path, ".evolve.yaml", f"# config\nagent_network: true\n{line}\n")
    )
    (problem,) = result.problems
    assert problem.severity is Severity.ERROR
    assert problem.field == field
    assert problem.origin.line == 3
    assert expected in problem.message
    assert result.config.agent_network is True  # good values survive a bad neighbour
    assert problem.render().startswith(f".evolve.yaml:3: {field}: ")


def test_load_config__unknown_keys_warn_with_a_suggestion(tmp_path: Path) -> None:
    result = load_config(write(tmp_path, ".evolve.yaml", "fail_on_regresion: true\nflavour: x\n"))
    first, second = result.problems
    assert first.severity is Severity.WARNING
    assert (
        first.message
        == "unknown config key 'fail_on_regresion' is ignored; did you mean fail_on_regression?"
    )
    assert second.message == "unknown config key 'flavour' is ignored"
    assert result.errors == ()


def test_load_config__evolve_only_keys_are_accepted_quietly(tmp_path: Path) -> None:
    text = "version: '~> 0.7'\nbaseline: false\nsandbox: {enabled: false}\nremote: {}\n"
    assert load_config(write(tmp_path, ".evolve.yml", text)).problems == ()


def test_load_config__models_may_be_one_comma_separated_string(tmp_path: Path) -> None:
    result = load_config(write(tmp_path, ".evolve.yaml", "models: 'anthropic, openai/gpt-5.4'"))
    assert result.config.models == ("anthropic", "openai/gpt-5.4")


@pytest.mark.parametrize(("text", "expected"), [("[1, 2]", "not a list"), ("3", "not a number")])
def test_load_config__the_top_level_must_be_a_mapping(
    tmp_path: Path, text: str, expected: str
) -> None:
    (problem,) = load_config(write(tmp_path, ".evolve.json", text)).problems
    assert expected in problem.message


def test_load_config__an_empty_yaml_file_is_an_empty_config(tmp_path: Path) -> None:
    result = load_config(write(tmp_path, ".evolve.yaml", "# nothing yet\n"))
    assert result == ConfigResult(RepoConfig(), ".evolve.yaml")


# --- the schema ----------------------------------------------------------------------------


def validate(data: Any) -> list[str]:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    return [e.message for e in validator.iter_errors(data)]


def test_schema__is_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize(
    "example",
    [
        yaml.safe_load(FULL_YAML),
        {},
        {"models": "anthropic,openai", "paths": "evals/**"},
        {"max-cost-usd": 2.5, "fail-on-regression": False},  # spelt as the inputs are
        {  # the shape of bitwise-media-group/skills' own .evolve.json
            "layout": "marketplace",
            "harnesses": ["claude", "codex"],
            "models": ["anthropic/claude-sonnet-4-6", "openai/gpt-5.4"],
            "checks": {"license": "MIT"},
            "stale_results": "keep",
            "report": {"thresholds": {"triggers_min_pass_rate": 0.55, "evals_min_pass_rate": 0.75}},
        },
    ],
)
def test_schema__accepts_example_configs(example: dict[str, Any]) -> None:
    assert validate(example) == []


@pytest.mark.parametrize(
    "example",
    [
        {"runs": 0},
        {"alpha": 0.5},
        {"layout": "flat"},
        {"fail_on_regresion": True},
        {"fail-on-regression": "yes"},
        {"paths": [""]},
    ],
)
def test_schema__rejects_what_the_loader_rejects_or_warns_about(example: dict[str, Any]) -> None:
    assert validate(example) != []


def test_schema__names_exactly_the_keys_the_loader_knows() -> None:
    assert set(SCHEMA["properties"]) == set(KNOWN_KEYS)


def test_schema__covers_every_top_level_config_field() -> None:
    nested = {"evals_min_pass_rate", "triggers_min_pass_rate", "prices"}  # under report/providers
    assert {f.name for f in fields(RepoConfig)} - nested <= set(SCHEMA["properties"])


def test_load_config__a_price_needs_both_rates_and_a_listed_model_without_them_is_no_override(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        ".evolve.yaml",
        "providers:\n  openai:\n    models:\n      - {id: gpt-4.1-mini, input_per_mtok: 0.4}\n"
        "      - {id: openai/gpt-4.1, input_per_mtok: 2, output_per_mtok: 8}\n"
        "      - {id: gpt-5.4}\n",
    )
    result = load_config(tmp_path)
    (problem,) = result.errors
    assert problem.origin.line == 4
    assert "input_per_mtok without output_per_mtok" in problem.message
    assert dict(result.config.prices) == {"openai/gpt-4.1": ModelPrice(2.0, 8.0)}
