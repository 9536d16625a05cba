"""Which value a setting takes, for `run` and for `report`: inputs, then the repository config,
then (report only) what the results record, then the defaults."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evolve_action.pipeline.merged import build_report, decide_settings
from evolve_action.pipeline.shards import shard_notices, shortfall
from evolve_action.publish.results.load import LoadedResults
from evolve_action.settings.config import RepoConfig
from evolve_action.settings.events import Event
from evolve_action.settings.inputs import INPUTS, Settings
from evolve_action.settings.layering import layer, overridden, read_config, recorded_settings
from evolve_action.verdict.gate import Shortfall

DEFAULTS = {spec.name: spec.default for spec in INPUTS}  # what action.yml passes
RECORDED = {"alpha": 0.1, "fail_on_regression": False, "min_pass_rate": 0.8}


def results(where: str, **settings: Any) -> LoadedResults:
    return LoadedResults({"settings": settings}, [], [], Path(where))


def test_inputs_then_config_then_recorded_then_defaults(tmp_path: Path) -> None:
    (tmp_path / ".evolve.yaml").write_text("alpha: 0.2\n")
    config = read_config(DEFAULTS, tmp_path).config
    recorded = {"alpha": "0.1", "min-pass-rate": "0.8", "fail-on-regression": None}

    settings = layer(DEFAULTS, config, recorded=recorded)
    assert (settings.alpha, settings.min_pass_rate) == (0.2, 0.8)  # config, then recorded
    assert settings.fail_on_regression is True  # recorded as unset: the default

    explicit = layer(DEFAULTS | {"alpha": "0.01", "min-pass-rate": "0.5"}, config)
    assert (explicit.alpha, explicit.min_pass_rate) == (0.01, 0.5)  # inputs win over both
    assert layer({}, RepoConfig(), recorded=recorded).alpha == 0.1


def test_recorded_settings_that_agree_apply_and_disagreements_are_named() -> None:
    same, warnings = recorded_settings([("a", RECORDED), ("b", RECORDED | {"runs": 3})])
    assert same == {"alpha": "0.1", "fail-on-regression": "false", "min-pass-rate": "0.8"}
    assert warnings == []

    split, warnings = recorded_settings([("a", RECORDED), ("b", RECORDED | {"alpha": 0.05})])
    assert "alpha" not in split and split["min-pass-rate"] == "0.8"
    (warning,) = warnings
    assert "disagree on alpha (0.1 in a; 0.05 in b)" in warning and "alpha input" in warning


@pytest.mark.parametrize("bad", [0.7, "lots", [0.1], {"a": 1}, True])
def test_an_unusable_recorded_value_is_ignored_with_a_warning(bad: object) -> None:
    found, warnings = recorded_settings([("shard1/results.json", {"alpha": bad})])
    assert found == {}
    (warning,) = warnings
    assert "input alpha" in warning and "shard1/results.json" in warning


def test_results_without_recorded_settings_leave_the_defaults() -> None:
    assert recorded_settings([("old/results.json", {"head_sha": "a" * 40})]) == ({}, [])


def test_report_applies_its_own_config_and_says_what_it_overrode(tmp_path: Path) -> None:
    (tmp_path / ".evolve.yaml").write_text("min_pass_rate: 0.5\n")
    config = read_config(DEFAULTS, tmp_path).config
    docs = [results("s1", **RECORDED), results("s2", **RECORDED)]
    settings, warnings = decide_settings(DEFAULTS, config, docs)
    assert (settings.alpha, settings.min_pass_rate) == (0.1, 0.5)
    assert settings.fail_on_regression is False
    (warning,) = warnings
    assert warning.startswith("the results were decided with min-pass-rate 0.8;")
    assert "applies 0.5" in warning


def test_overridden_is_quiet_when_the_values_match() -> None:
    settings = layer({"alpha": "0.1"}, RepoConfig())
    assert overridden(settings, {"alpha": "0.1", "min-pass-rate": None}) == []


def test_shard_notices_name_missing_and_unfinished_shards() -> None:
    docs = [results("a", shard="1/3"), results("c", shard="3/3", incomplete=True)]
    assert shard_notices(docs) == (
        "Incomplete: no results from shard 2/3.",
        "Incomplete: shard 3/3 did not finish every run (stopped, or its cost budget ran out).",
    )
    assert shard_notices([results("x", shard=f"{i}/2") for i in (1, 2)]) == ()
    assert shard_notices([results("x")]) == ()
    assert shard_notices([results("a", shard="1/2"), results("b", shard="2/3")]) == (
        "Incomplete: the results come from jobs split in different ways.",
    )


def test_the_report_counts_what_its_shards_did_not_run() -> None:
    """Missing shards and unfinished ones are a shortfall the report's gate reads; only
    numbers and known signal names are taken from the (untrusted) files."""
    docs = [
        results("a", shard="1/3"),
        results("c", shard="3/3", incomplete=True, planned_runs=6, stopped_by="SIGTERM"),
    ]
    assert shortfall(docs) == Shortfall(
        6, 0, cut=("no results from shard 2/3", "a job was stopped by SIGTERM")
    )
    odd = [results("x", incomplete=True, planned_runs="many", stopped_by="@someone **x**")]
    assert shortfall(odd) == Shortfall(0, 0, cut=("1 job did not finish every run",))
    whole = [results("x", shard=f"{i}/2", incomplete=False, planned_runs=0) for i in (1, 2)]
    assert not shortfall(whole).incomplete


def test_a_merged_report_missing_a_shard_is_never_green() -> None:
    doc = LoadedResults({"settings": {"shard": "1/2"}, "judge_model": None}, [], [], Path("a"))
    made = build_report([doc], Settings(), Event(name="local"), "")
    report, data = made.input, made.data
    gate = report.gate
    assert (gate.conclusion, gate.reason) == ("neutral", "incomplete: no results from shard 2/2")
    assert data.record.incomplete is True
