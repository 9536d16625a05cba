"""The family registry (`formats/families.py`) is the one list of formats: the `Format` enum,
the placement of file names, the results schema's enum and the check kinds agree with it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evolve_action.formats import families
from evolve_action.formats.placement import format_for_name
from evolve_action.grade.checks import kinds
from evolve_action.model.checking import parameter_types, registered
from evolve_action.model.evals import Format

SCHEMA = Path(__file__).resolve().parents[2] / "src/evolve_action/schemas/results.schema.json"

# One file name of each format, and the format placement gives it by name (skill-evaluator's
# `evals.json` is told from evolve's by its content, `formats.sniff`).
NAMED = {
    Format.EVOLVE: ("evals.json", Format.EVOLVE),
    Format.SKILL_EVALUATOR: ("evals.json", Format.EVOLVE),
    Format.AGENTV: ("basic.eval.yaml", Format.AGENTV),
    Format.CLAUDITOR: ("SKILL.eval.json", Format.CLAUDITOR),
    Format.TRIGGERS: ("triggers.yaml", Format.TRIGGERS),
    Format.VALLY: ("smoke.vally.yaml", Format.VALLY),
    Format.SKILL_VALIDATOR: ("eval.yaml", Format.AGENTV),
    Format.WAZA: ("trigger_tests.yaml", Format.WAZA),
    Format.TESSL: ("criteria.json", Format.TESSL),
    Format.PROMPTFOO: ("promptfooconfig.yaml", Format.PROMPTFOO),
    Format.CLAUDE_PLUGIN: ("case.yaml", None),
    Format.BEST_PRACTICE: ("query.json", None),
    Format.AXIS: ("axis.config.json", Format.AXIS),
    Format.CALIPER: ("greeter.eval.yaml", Format.AGENTV),
    Format.SKILLGRADE: ("eval.yaml", Format.AGENTV),
    Format.SKILL_TESTS: ("skill-tests.yaml", Format.SKILL_TESTS),
    Format.EVAL_MD: ("greets.eval.md", Format.EVAL_MD),
}


def test_every_format_is_read_by_exactly_one_family() -> None:
    registered_formats = families.formats()
    assert len(registered_formats) == len(set(registered_formats))
    assert set(registered_formats) == set(Format), "add the format's family line, or its member"


def test_every_family_folder_has_its_loaders_and_policy() -> None:
    for fmt in Format:
        assert families.loader(fmt) is not None, fmt
        policy = families.policy(fmt)
        assert callable(policy.verdict) and callable(policy.judge_needed), fmt


def test_placement_names_every_format() -> None:
    assert set(NAMED) == set(Format), "give the new format a file name in NAMED"
    for fmt, (name, placed) in NAMED.items():
        assert format_for_name(name) is placed, (fmt, name)


def test_a_family_can_declare_its_file_names(monkeypatch: pytest.MonkeyPatch) -> None:
    toy = families.Family("tessl", {Format.TESSL: "load"}, names=("*.toy.json",))
    monkeypatch.setattr(families, "FAMILIES", (*families.FAMILIES, toy))
    assert format_for_name("smoke.TOY.json".lower()) is Format.TESSL
    assert format_for_name("smoke.toy.yaml") is None


def test_the_results_schema_enum_is_the_registry() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert sorted(schema["$defs"]["format"]["enum"]) == sorted(f.value for f in families.formats())
    text = SCHEMA.read_text(encoding="utf-8")
    assert text.count('"skill-validator"') == 1, "the format enum is written once, in $defs"


def test_every_check_kind_lives_in_a_format_family() -> None:
    assert kinds()
    outside = {k: fn.__module__ for k, fn in registered().items()}
    outside = {
        k: m
        for k, m in outside.items()
        if not m.startswith(("evolve_action.formats.", "tests."))  # tests register fakes
    }
    assert not outside, f"check kinds registered outside formats/: {outside}"


def test_every_registered_kind_declares_its_parameter_type() -> None:
    typed = parameter_types()
    missing = sorted(
        kind
        for kind, fn in registered().items()
        if kind in kinds() and kind not in typed and not fn.__module__.startswith("tests.")
    )
    assert not missing, f"register these kinds with their CheckParams type: {missing}"
