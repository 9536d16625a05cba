"""The clauditor loader: every Part B rule, the seed's examples and the corpus files."""

from __future__ import annotations

import functools
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from evolve_action.formats.clauditor.items import EXTRACT_ID
from evolve_action.formats.clauditor.params import CountParams, NeedleParams, PatternParams
from evolve_action.formats.evolve.params import TriggerParams
from evolve_action.model.evals import CaseKind, ExtractField, Format, Scale, Severity
from tests.unit.clauditor_helpers import (
    CORPUS_LAYOUT,
    FIXTURE,
    load_file,
    load_spec,
    messages,
    seed_examples,
    write_skill,
)

BASIC: dict[str, Any] = {"skill_name": "demo", "test_args": "--fast"}


def spec(**extra: Any) -> dict[str, Any]:
    return {**BASIC, **extra}


def only_error(result: Any) -> str:
    errors = [p.render() for p in result.errors]
    assert len(errors) == 1, errors
    return errors[0]


# --- the primary case ------------------------------------------------------------------------


def test_load__primary_case_is_the_slash_command(tmp_path: Path) -> None:
    result = load_spec(tmp_path, spec(description="d", user_prompt="Find things."))
    assert result.ok, messages(result)
    suite = result.suite
    assert suite is not None and suite.format is Format.CLAUDITOR and suite.name == "demo"
    (case,) = suite.cases
    assert (case.id, case.prompt, case.kind) == ("demo", "/demo --fast", CaseKind.TASK)
    assert case.extra.user_prompt == "Find things."
    assert case.extra.description == "d"


def test_load__empty_test_args_sends_the_bare_command(tmp_path: Path) -> None:
    result = load_spec(tmp_path, {"skill_name": "demo", "test_args": "  "})
    assert result.suite is not None and result.suite.cases[0].prompt == "/demo"


@pytest.mark.parametrize(
    ("spec_path", "name"),
    [
        ("skills/demo/SKILL.eval.json", "demo"),
        (".claude/commands/find-it.eval.json", "find-it"),
        ("skills/other/assets/tool.eval.json", "tool"),
        ("skills/x/eval.json", "x"),
    ],
)
def test_load__skill_name_defaults_from_the_file_name(
    tmp_path: Path, spec_path: str, name: str
) -> None:
    path = write_skill(tmp_path, {"test_args": ""}, spec_path=spec_path)
    (tmp_path / "AGENTS.md").write_text("project rules")
    result = load_file(tmp_path, path)
    assert result.ok, messages(result)
    assert result.suite is not None and result.suite.cases[0].id == name


def test_load__skill_name_that_cannot_be_a_folder_is_an_error(tmp_path: Path) -> None:
    message = only_error(load_spec(tmp_path, {"skill_name": ".hidden/x"}))
    assert "skill_name" in message and "cannot name a skill" in message


def test_load__top_level_must_be_an_object_with_line(tmp_path: Path) -> None:
    message = only_error(load_spec(tmp_path, "[1, 2]"))
    assert message.startswith("skills/demo/SKILL.eval.json:1: ") and "JSON object" in message


def test_load__unknown_top_level_key_warns_with_did_you_mean(tmp_path: Path) -> None:
    result = load_spec(tmp_path, spec(grading_critera=[]))
    assert result.ok
    (warning,) = result.problems
    assert warning.severity is Severity.WARNING
    assert warning.field == "grading_critera"
    assert "did you mean 'grading_criteria'?" in warning.message
    assert warning.origin.line == 4


# --- Layer 1 assertions ----------------------------------------------------------------------


def test_load__all_ten_assertion_types_become_checks(tmp_path: Path) -> None:
    seed_assertions = [
        {"id": "a", "type": "contains", "needle": "Results"},
        {"id": "b", "type": "not_contains", "needle": "Error"},
        {"id": "c", "type": "regex", "pattern": r"\*\*\d+\."},
        {"id": "d", "type": "min_count", "pattern": "^- ", "count": 3},
        {"id": "e", "type": "min_length", "length": 500},
        {"id": "f", "type": "max_length", "length": 5000},
        {"id": "g", "type": "has_urls", "count": 3},
        {"id": "h", "type": "has_entries"},
        {"id": "i", "type": "urls_reachable", "count": 2},
        {"id": "j", "type": "has_format", "format": "phone_us", "count": 2, "name": "Phones"},
    ]
    result = load_spec(tmp_path, spec(assertions=seed_assertions))
    assert result.ok, messages(result)
    checks = result.suite.cases[0].checks if result.suite else ()
    assert [c.kind for c in checks] == [f"clauditor.{a['type']}" for a in seed_assertions]
    assert all(c.group == "L1" for c in checks)
    assert checks[3].params == PatternParams("^- ", 3)
    assert checks[7].params == CountParams(1)  # the optional count defaults to 1
    assert checks[9].text == "Phones"
    assert checks[0].text == "output contains 'Results'"
    assert checks[0].origin.pointer == "assertions[0]" and checks[0].origin.line == 5


@pytest.mark.parametrize(
    ("assertion", "expected"),
    [
        ({"type": "contains", "needel": "x"}, "unknown key 'needel' — did you mean 'needle'?"),
        ({"type": "contains", "pattern": "x"}, "unknown key 'pattern' — did you mean 'needle'?"),
        ({"type": "min_length", "min": 5}, "unknown key 'min' — did you mean 'length'?"),
        ({"type": "has_urls", "threshold": 2}, "unknown key 'threshold' — did you mean 'count'?"),
        ({"type": "regexp", "pattern": "x"}, "unknown assertion type 'regexp' — did you mean"),
        ({"type": "min_count", "pattern": "x"}, "a 'min_count' assertion needs 'count'"),
        ({"type": "contains"}, "a 'contains' assertion needs 'needle'"),
        ({"type": "min_length", "length": "500"}, "must be an integer"),
        ({"type": "has_entries", "count": True}, "must be an integer"),
        ({"type": "max_length", "length": -1}, "must not be negative"),
        ({"type": "regex", "pattern": "(?=x)"}, "invalid RE2 pattern"),
        ({"type": "has_format", "format": "phone"}, "not a registered format — did you mean"),
        ({"type": "has_format", "format": r"^\d+$"}, "or a 'regex' assertion"),
    ],
)
def test_load__bad_assertion_is_an_error_at_its_line(
    tmp_path: Path, assertion: dict[str, Any], expected: str
) -> None:
    result = load_spec(tmp_path, spec(assertions=[{"id": "x", **assertion}]))
    message = only_error(result)
    assert expected in message
    assert result.errors[0].origin.line is not None and result.errors[0].field.startswith(
        "assertions[0]"
    )


def test_load__old_value_key_is_mapped_with_a_warning(tmp_path: Path) -> None:
    legacy = [
        {"id": "n", "type": "has_entries", "value": "3"},
        {"id": "c", "type": "contains", "value": "Venues"},
    ]
    result = load_spec(tmp_path, spec(assertions=legacy))
    assert result.ok, messages(result)
    checks = result.suite.cases[0].checks if result.suite else ()
    assert checks[0].params == CountParams(3) and checks[1].params == NeedleParams("Venues")
    assert all("old spelling (one `value` for every type" in m for m in messages(result))


def test_load__missing_ids_get_positional_ids_with_a_warning(tmp_path: Path) -> None:
    result = load_spec(
        tmp_path,
        spec(
            assertions=[{"type": "contains", "needle": "a"}],
            grading_criteria=["Is it good?"],
        ),
    )
    assert result.ok, messages(result)
    case = result.suite.cases[0] if result.suite else None
    assert case is not None
    assert [i.id for i in case.items] == ["contains-0", "criterion-1"]
    assert len(result.problems) == 2 and all(
        p.severity is Severity.WARNING for p in result.problems
    )


def test_load__ids_are_unique_across_the_three_layers(tmp_path: Path) -> None:
    result = load_spec(
        tmp_path,
        spec(
            assertions=[{"id": "dup", "type": "contains", "needle": "a"}],
            grading_criteria=[{"id": "dup", "criterion": "ok?"}],
        ),
    )
    message = only_error(result)
    assert "grading_criteria[0].id" in message and "duplicate id 'dup'" in message
    assert "assertions[0]" in message


# --- Layer 2 sections ------------------------------------------------------------------------

VENUES = {
    "name": "Venues",
    "tiers": [
        {
            "label": "default",
            "min_entries": 3,
            "fields": [
                {"id": "v_name", "name": "name", "required": True},
                {"id": "v_phone", "name": "phone", "required": False, "format": "phone_us"},
                {"id": "v_zip", "name": "zip", "format": r"^\d{5}$"},
            ],
        }
    ],
}


def test_load__sections_become_one_extract_item(tmp_path: Path) -> None:
    result = load_spec(tmp_path, spec(sections=[VENUES]))
    assert result.ok, messages(result)
    (item,) = result.suite.cases[0].judge_items if result.suite else ()
    assert (item.id, item.kind, item.group, item.scale) == (
        EXTRACT_ID,
        "extract",
        "L2",
        Scale.BINARY,
    )
    (section,) = item.params.sections
    tier = section.tiers[0]
    assert (tier.min_entries, tier.max_entries, tier.description) == (3, None, "")
    assert tier.fields[2] == ExtractField("v_zip", "zip", True, r"^\d{5}$")
    assert "Venues / default: name, phone, zip" in item.text
    schema = item.params.schema
    assert schema["required"] == ["Venues"]
    entry = schema["properties"]["Venues"]["properties"]["default"]["items"]
    assert entry["required"] == ["name", "phone", "zip"]


def one_tier(field: dict[str, Any] | None = None, **tier: Any) -> dict[str, Any]:
    fields = [{"id": "f", "name": "n", **(field or {})}]
    return {"name": "S", "tiers": [{"label": "t", "fields": fields, **tier}]}


@pytest.mark.parametrize(
    ("section", "expected"),
    [
        ({"name": "S"}, "a section needs 'tiers'"),
        ({"name": "S", "tiers": []}, "non-empty list of tiers"),
        (one_tier({"pattern": "x"}), "use 'format', not 'pattern'"),
        (one_tier({"format": "(?<=a)"}), "neither a registered format"),
        (one_tier(min_entries=3, max_entries=1), "below min_entries 3"),
        (one_tier({"required": "yes"}), "must be true or false"),
        (one_tier(min_entries="2"), "must be an integer"),
        (one_tier(fields=[]), "non-empty list of {id, name"),
        (one_tier(label=None), "sections[0].tiers[0].label: must be a string"),
        (one_tier({"name": ""}), "must not be empty"),
        (one_tier({"format": ""}), "must not be empty"),
        ("Venues", "must be an object"),
    ],
)
def test_load__bad_section_is_an_error(tmp_path: Path, section: Any, expected: str) -> None:
    message = only_error(load_spec(tmp_path, spec(sections=[section])))
    assert expected in message and "sections[0]" in message


def test_load__duplicate_section_names_are_an_error(tmp_path: Path) -> None:
    other = json.loads(json.dumps(VENUES).replace("v_", "w_"))
    assert "duplicate section name 'Venues'" in only_error(
        load_spec(tmp_path, spec(sections=[VENUES, other]))
    )


def test_load__pre_12_flat_fields_become_a_default_tier(tmp_path: Path) -> None:
    flat = {"name": "Venues", "fields": [{"id": "v", "name": "name"}]}
    result = load_spec(tmp_path, spec(sections=[flat]))
    assert result.ok, messages(result)
    item = result.suite.cases[0].judge_items[0] if result.suite else None
    assert item is not None and item.params.sections[0].tiers[0].label == "default"
    assert "older shape" in messages(result)[0]


# --- Layer 3, thresholds, variance, judge model -----------------------------------------------


def test_load__criteria_become_unit_judge_items(tmp_path: Path) -> None:
    criteria = [{"id": "near", "criterion": "Are all venues near?"}]
    result = load_spec(tmp_path, spec(grading_criteria=criteria))
    (item,) = result.suite.cases[0].judge_items if result.suite else ()
    assert (item.id, item.text, item.kind, item.group) == (
        "near",
        "Are all venues near?",
        "criterion",
        "L3",
    )
    assert item.scale is Scale.UNIT


def test_load__blank_criterion_is_an_error(tmp_path: Path) -> None:
    message = only_error(
        load_spec(tmp_path, spec(grading_criteria=[{"id": "c", "criterion": " "}]))
    )
    assert "grading_criteria[0].criterion" in message


def test_load__policy_defaults(tmp_path: Path) -> None:
    result = load_spec(tmp_path, spec())
    assert result.suite is not None
    assert result.suite.policy.doc() == {
        "aggregation": "layered",
        "min_pass_rate": 0.7,
        "min_mean_score": 0.5,
    }
    assert result.suite.runs is None


def test_load__thresholds_and_variance_land_in_the_policy(tmp_path: Path) -> None:
    result = load_spec(
        tmp_path,
        spec(grade_thresholds={"min_pass_rate": 1, "min_mean_score": 0.9}, variance={"n_runs": 3}),
    )
    assert result.suite is not None
    policy = result.suite.policy
    assert (policy.min_pass_rate, policy.min_mean_score) == (1.0, 0.9)
    assert (policy.n_runs, policy.min_stability, result.suite.runs) == (3, 0.8, 3)


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({"grade_thresholds": {"min_pass_rate": 1.5}}, "must be between 0 and 1"),
        ({"grade_thresholds": {"min_pass": 0.5}}, "did you mean 'min_pass_rate'?"),
        ({"variance": {"n_runs": 0}}, "must be at least 1"),
        ({"variance": {"runs": 3}}, "did you mean 'n_runs'?"),
        ({"timeout": True}, "must be an integer"),
        ({"timeout": 0}, "must be at least 1"),
        ({"transport": "apii"}, "did you mean 'api'?"),
        ({"harness": None}, "must be one of"),
        ({"sync_tasks": "yes"}, "must be true or false"),
        ({"user_prompt": "  "}, "must not be empty"),
        ({"grading_model": ""}, "must not be empty"),
        ({"grading_model": "mistral-large"}, "cannot tell the provider"),
        ({"grading_provider": "google"}, "must be one of 'anthropic', 'openai', 'auto'"),
        ({"transport": None}, "must be one of 'api', 'cli', 'auto', not null"),
        ({"assertions": [{"id": "", "type": "contains", "needle": "x"}]}, "non-empty string"),
        ({"assertions": {"id": "a"}}, "must be a list of assertion objects"),
        ({"input_files": "a.csv"}, "must be a list of strings"),
        ({"trigger_tests": {"should_trigger": "x"}}, "must be a list of strings"),
        ({"trigger_tests": {"should_triger": []}}, "did you mean 'should_trigger'?"),
    ],
)
def test_load__bad_top_level_value_is_an_error(
    tmp_path: Path, extra: dict[str, Any], expected: str
) -> None:
    result = load_spec(tmp_path, spec(**extra))
    message = only_error(result)
    assert expected in message
    assert result.errors[0].field.split(".")[0].split("[")[0] == next(iter(extra))


@pytest.mark.parametrize(
    ("fields", "model"),
    [
        ({"grading_model": "claude-sonnet-4-6"}, "anthropic/claude-sonnet-4-6"),
        ({"grading_model": "gpt-5.4"}, "openai/gpt-5.4"),
        ({"grading_model": "o3-mini"}, "openai/o3-mini"),
        ({"grading_model": "my-model", "grading_provider": "openai"}, "openai/my-model"),
        ({"grading_model": "anthropic/claude-opus-4-1"}, "anthropic/claude-opus-4-1"),
        ({"grading_provider": "anthropic"}, None),
    ],
)
def test_load__grading_model_is_provider_qualified(
    tmp_path: Path, fields: dict[str, Any], model: str | None
) -> None:
    result = load_spec(tmp_path, spec(**fields))
    assert result.suite is not None and result.suite.judge_model == model


def test_load__runner_knobs_are_kept_and_timeout_applies(tmp_path: Path) -> None:
    result = load_spec(tmp_path, spec(timeout=120, allow_hang_heuristic=False, harness="codex"))
    case = result.suite.cases[0] if result.suite else None
    assert case is not None and case.timeout_seconds == 120.0
    assert case.extra.runner == {
        "timeout": 120,
        "allow_hang_heuristic": False,
        "harness": "codex",
    }


# --- trigger tests ---------------------------------------------------------------------------


def test_load__trigger_queries_become_trigger_cases(tmp_path: Path) -> None:
    triggers = {"should_trigger": ["find kid stuff"], "should_not_trigger": ["weather?"]}
    result = load_spec(tmp_path, spec(trigger_tests=triggers))
    assert result.suite is not None
    _, yes, no = result.suite.cases
    assert (yes.id, yes.prompt, yes.kind, yes.should_trigger) == (
        "trigger: find kid stuff",
        "find kid stuff",
        CaseKind.TRIGGER,
        True,
    )
    assert no.should_trigger is False
    (check,) = no.checks
    assert check.kind == "triggers.fired"
    assert check.params == TriggerParams("demo", False)


def test_load__a_query_in_both_trigger_lists_is_an_error(tmp_path: Path) -> None:
    triggers = {"should_trigger": ["same"], "should_not_trigger": ["same"]}
    message = only_error(load_spec(tmp_path, spec(trigger_tests=triggers)))
    assert "trigger_tests.should_not_trigger[0]" in message and "should_trigger[0]" in message


# --- input and output files ------------------------------------------------------------------


def test_load__input_files_stage_by_basename(tmp_path: Path) -> None:
    result = load_spec(
        tmp_path,
        spec(input_files=["fixtures/sales.csv", "notes.txt"]),
        files={"fixtures/sales.csv": "a,b\n", "notes.txt": "n"},
    )
    assert result.ok, messages(result)
    files = result.suite.cases[0].files if result.suite else ()
    assert [f.dest for f in files] == ["sales.csv", "notes.txt"]
    assert files[0].source == (tmp_path / "skills/demo/fixtures/sales.csv").resolve()
    assert files[0].origin.pointer == "input_files[0]"


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("/etc/passwd", "is absolute"),
        ("missing.csv", "does not exist"),
        ("../outside.txt", "leaves the eval file's folder"),
        ("fixtures", "is not a regular file"),
        ("", "must be a non-empty string"),
    ],
)
def test_load__bad_input_file_is_an_error(tmp_path: Path, entry: str, expected: str) -> None:
    (tmp_path / "skills").mkdir()
    (tmp_path / "skills/outside.txt").write_text("x")
    result = load_spec(tmp_path, spec(input_files=[entry]), files={"fixtures/a.csv": "x"})
    message = only_error(result)
    assert expected in message and "input_files[0]" in message


def test_load__symlink_out_of_the_spec_folder_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("s")
    path = write_skill(tmp_path, spec(input_files=["link.txt"]))
    os.symlink(tmp_path / "secret.txt", path.parent / "link.txt")
    assert "leaves the eval file's folder" in only_error(load_file(tmp_path, path, path.parent))


def test_load__two_inputs_with_one_basename_collide(tmp_path: Path) -> None:
    result = load_spec(
        tmp_path,
        spec(input_files=["a/data.csv", "b/data.csv"]),
        files={"a/data.csv": "1", "b/data.csv": "2"},
    )
    message = only_error(result)
    assert "input_files[1]" in message and "both stage as 'data.csv'" in message


def test_load__literal_output_pattern_with_an_input_basename_collides(tmp_path: Path) -> None:
    result = load_spec(
        tmp_path,
        spec(input_files=["sales.csv"], output_files=["out/sales.csv", "*.csv"]),
        files={"sales.csv": "1"},
    )
    message = only_error(result)
    assert "output_files[0]" in message and "basename of a staged input" in message


def test_load__output_file_wins_over_output_files(tmp_path: Path) -> None:
    both = load_spec(tmp_path, spec(output_file="research/results.md", output_files=["r/*.md"]))
    assert both.suite is not None and both.suite.cases[0].output_files == ("research/results.md",)
    many = load_spec(tmp_path, spec(output_files=["r/*.md", "r/*.json"]))
    assert many.suite is not None and many.suite.cases[0].output_files == ("r/*.md", "r/*.json")


def test_load__output_path_leaving_the_workspace_is_an_error(tmp_path: Path) -> None:
    assert "relative path inside" in only_error(load_spec(tmp_path, spec(output_file="../x.md")))


# --- system prompt resolution ----------------------------------------------------------------


def test_system_prompt__explicit_wins(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("root rules")
    result = load_spec(tmp_path, spec(system_prompt="Be careful."))
    case = result.suite.cases[0] if result.suite else None
    assert case is not None and case.system == "Be careful."
    assert case.extra.system_prompt_source == "explicit"


def test_system_prompt__null_means_derive_it(tmp_path: Path) -> None:
    result = load_spec(tmp_path, spec(system_prompt=None, **{"$schema": "x.json"}))
    assert result.ok and not result.problems, messages(result)
    case = result.suite.cases[0] if result.suite else None
    assert case is not None and case.extra.system_prompt_source == "skill_md"


def test_system_prompt__blank_explicit_is_an_error(tmp_path: Path) -> None:
    assert "system_prompt" in only_error(load_spec(tmp_path, spec(system_prompt=" \n")))


def test_system_prompt__a_broken_prompt_does_not_hide_other_errors(tmp_path: Path) -> None:
    bad = [{"id": "a", "type": "contains"}]
    result = load_spec(tmp_path, spec(system_prompt="", assertions=bad))
    assert [p.field for p in result.errors] == ["system_prompt", "assertions[0]"]


def test_system_prompt__sibling_agents_md_then_root_then_skill_body(tmp_path: Path) -> None:
    path = write_skill(tmp_path, spec())
    result = load_file(tmp_path, path, path.parent)
    case = result.suite.cases[0] if result.suite else None
    assert case is not None and case.system == "You find things.\n"
    assert case.extra.system_prompt_source == "skill_md"
    (tmp_path / "AGENTS.md").write_text("root rules")
    case = load_file(tmp_path, path, path.parent).suite.cases[0]  # type: ignore[union-attr]
    assert (case.system, case.extra.system_prompt_source) == ("root rules", "agents_md")
    assert case.extra.skill_body == "You find things.\n"  # what `/demo` expands to
    (path.parent / "AGENTS.md").write_text("skill rules")
    case = load_file(tmp_path, path, path.parent).suite.cases[0]  # type: ignore[union-attr]
    assert case.system == "skill rules"


def test_system_prompt__legacy_layout_skips_the_commands_folder_agents_md(tmp_path: Path) -> None:
    path = write_skill(
        tmp_path, spec(), spec_path=".claude/commands/demo.eval.json", skill_md="Legacy body"
    )
    (path.parent / "AGENTS.md").write_text("shared by every command: not used")
    result = load_file(tmp_path, path)
    case = result.suite.cases[0] if result.suite else None
    assert case is not None and case.system == "Legacy body"


def test_system_prompt__skill_file_in_the_parent_of_assets(tmp_path: Path) -> None:
    path = write_skill(
        tmp_path, spec(), spec_path="skills/demo/assets/demo.eval.json", skill_md=None
    )
    (tmp_path / "skills/demo/SKILL.md").write_text("---\nname: demo\n---\n")
    case = load_file(tmp_path, path).suite.cases[0]  # type: ignore[union-attr]
    assert case.system == ""  # an empty body stays empty, as in clauditor
    assert "the system prompt is empty" in messages(load_file(tmp_path, path))[0]


def test_system_prompt__missing_skill_file_is_an_error(tmp_path: Path) -> None:
    message = only_error(load_spec(tmp_path, spec(), skill_md=None))
    assert "no system prompt" in message


def test_system_prompt__unclosed_frontmatter_is_an_error(tmp_path: Path) -> None:
    message = only_error(load_spec(tmp_path, spec(), skill_md="---\nname: demo\nbody"))
    assert "not closed" in message


# --- the seed and the corpus -----------------------------------------------------------------


def test_load__every_seed_example_loads(tmp_path: Path, shared_dir: Path) -> None:
    examples = seed_examples(shared_dir / "seeds/clauditor-eval-spec-format.md")
    assert len(examples) == 5
    for n, example in enumerate(examples):
        files = {name: "x" for name in example.get("input_files", [])}
        path = f"skills/demo{n}/SKILL.eval.json"
        result = load_spec(tmp_path, example, files=files, spec_path=path)
        assert result.ok, messages(result)
    complete = load_spec(
        tmp_path,
        examples[1],
        files={"fixtures/sample-venues.csv": "x"},
        spec_path="c/SKILL.eval.json",
    )
    suite = complete.suite
    assert suite is not None and len(suite.cases) == 5 and suite.runs == 5
    assert suite.judge_model == "anthropic/claude-sonnet-4-6"
    assert [i.kind for i in suite.cases[0].judge_items] == ["extract"] + ["criterion"] * 3


@pytest.mark.parametrize("name", sorted(CORPUS_LAYOUT))
def test_load__corpus_file_loads_cleanly(tmp_path: Path, corpus_dir: Path, name: str) -> None:
    rel, fixtures = CORPUS_LAYOUT[name]
    spec_path = tmp_path / rel
    spec_path.parent.mkdir(parents=True)
    shutil.copy(corpus_dir / "clauditor" / name, spec_path)
    for fixture in fixtures:
        target = spec_path.parent / fixture
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(corpus_dir / "clauditor/fixtures" / FIXTURE, target)
    (tmp_path / "AGENTS.md").write_text("Project conventions.")
    result = load_file(tmp_path, spec_path)
    assert result.ok and not result.problems, messages(result)
    data = json.loads(spec_path.read_text())
    case = result.suite.cases[0] if result.suite else None
    assert case is not None and case.id == data["skill_name"]
    assert len(case.checks) == len(data["assertions"])
    assert len(result.suite.cases) == 1 + sum(  # type: ignore[union-attr]
        len(v) for v in data.get("trigger_tests", {}).values()
    )


# --- the JSON Schema -------------------------------------------------------------------------

SCHEMA = Path(__file__).resolve().parents[2] / "schemas/clauditor.schema.json"


@functools.cache
def validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA.read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def test_schema__corpus_and_seed_examples_validate(corpus_dir: Path, shared_dir: Path) -> None:
    documents = [
        json.loads((corpus_dir / "clauditor" / name).read_text()) for name in CORPUS_LAYOUT
    ]
    documents += seed_examples(shared_dir / "seeds/clauditor-eval-spec-format.md")
    check = validator()
    for document in documents:
        assert not list(check.iter_errors(document))


@pytest.mark.parametrize(
    "document",
    [
        {"assertions": [{"id": "a", "type": "contains", "value": "x"}]},
        {"assertions": [{"id": "a", "type": "min_length", "length": "500"}]},
        {"assertions": [{"id": "a", "type": "has_format", "format": "phone"}]},
        {"assertions": [{"type": "contains", "needle": "x"}]},
        {"sections": [{"name": "S", "fields": [{"id": "f", "name": "n"}]}]},
        {"sections": [one_tier({"pattern": "x"})]},
        {"grade_thresholds": {"min_pass_rate": 2}},
        {"variance": {"runs": 3}},
        {"timeout": True},
    ],
)
def test_schema__rejects_what_the_loader_rejects_or_warns_about(document: dict[str, Any]) -> None:
    assert list(validator().iter_errors(document))
