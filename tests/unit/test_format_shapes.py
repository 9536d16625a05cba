"""Files named like eval files whose shape is another tool's (or none) get a notice, never an
error: `shapes.foreign` on documents, then `validate` and `load_all` on repositories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evolve_action.commands.cli import main
from evolve_action.formats import load_all, shapes
from evolve_action.model.evals import Format, Origin, Problem, Severity
from evolve_action.publish.annotations import problem_annotation

# Synthetic documents in each tool's documented shape.
VALLY = """\
name: dump-collect
type: capability
stimuli:
  - name: configure dumps
    prompt: Configure crash dumps.
    graders:
      - type: output-contains
        config: {substring: DOTNET_DbgEnableMiniDump}
"""
WAZA = """\
skill: pdf
config: {trials_per_task: 3}
tasks: ["tasks/*.yaml"]
graders: [{type: code, name: has_output}]
"""
SKILL_VALIDATOR = """\
scenarios:
  - name: build
    prompt: Build it.
    assertions: [{type: output_contains, value: ok}]
"""
MCPCHECKER = """\
kind: Eval
metadata: {name: obs}
config: {agentFile: agent.yaml}
"""
WORKFLOW = """\
name: eval
on: [pull_request]
jobs:
  run: {runs-on: ubuntu-latest, steps: [{run: make eval}]}
"""
LIGHTSPEED = """\
- conversation_group_id: metrics
  turns: [{turn_id: t1, query: How many pods are running}]
"""


@pytest.mark.parametrize(
    ("data", "fmt", "looks_like"),
    [
        ({"stimuli": [], "name": "x"}, Format.EVOLVE, "a Vally file"),  # as AgentV: Vally
        ({"skill": "s", "tasks": ["t/*.yaml"]}, Format.EVOLVE, "a waza file"),  # as AgentV: read
        ({"scenarios": []}, Format.EVOLVE, "a skill-validator file"),  # as AgentV: read
        ({"kind": "Eval", "metadata": {}}, Format.AGENTV, "mcpchecker `kind: Eval`"),
        ({"on": ["push"], "jobs": {}}, Format.AGENTV, "a GitHub workflow"),
        ({True: ["push"], "jobs": {}}, Format.AGENTV, "a GitHub workflow"),  # YAML 1.1 `on`
        ({"foo": 1}, Format.AGENTV, shapes.NOT_OURS),
        ([{"conversation_group_id": "g"}], Format.EVOLVE, shapes.NOT_OURS),
        ([{"turn_id": "t"}], Format.AGENTV, shapes.NOT_OURS),
        ({"kind": "Eval"}, Format.EVOLVE, "mcpchecker `kind: Eval`"),
        ({"hello": "world"}, Format.TRIGGERS, shapes.NOT_OURS),
    ],
)
def test_foreign__names_what_a_file_looks_like(data: Any, fmt: Format, looks_like: str) -> None:
    found = shapes.foreign(data, fmt)
    assert found is not None and found.looks_like == looks_like
    assert "\n" not in found.notice(fmt)


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        ({"tests": [], "stimuli": []}, Format.AGENTV),  # an AgentV case list wins
        ({"description": "typo'd tests key", "test": []}, Format.AGENTV),  # ours, broken
        ([{"id": "a", "input": "x"}], Format.AGENTV),  # AgentV's bare list of cases
        ({"evals": "not a list"}, Format.EVOLVE),  # ours, broken: evolve's error says why
        ([{"id": 1, "expect": ["x"]}], Format.EVOLVE),
        ([{"query": "q", "should_trigger": True}], Format.TRIGGERS),
        ({}, Format.AGENTV),  # empty: the loader says what a file needs
        ("text", Format.EVOLVE),
        ({"name": "s", "stimuli": []}, Format.CLAUDITOR),
    ],
)
def test_foreign__leaves_our_own_shapes_to_their_loaders(data: Any, fmt: Format) -> None:
    assert shapes.foreign(data, fmt) is None


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


FOREIGN_TREE = {
    "evals/mcpchecker/eval.yaml": MCPCHECKER,
    "evals/lightspeed/evals.yaml": LIGHTSPEED,
    ".github/workflows/eval.yml": WORKFLOW,
}


def test_validate__foreign_files_are_notices_and_exit_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, FOREIGN_TREE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    assert main(["validate"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "0 files, 0 cases, 0 errors, 0 warnings, 3 notices"
    said = {line.split(":", 1)[0]: line for line in out[:-1]}
    assert set(said) == set(FOREIGN_TREE)
    assert "this is a GitHub workflow" in said[".github/workflows/eval.yml"]
    assert "mcpchecker `kind: Eval`" in said["evals/mcpchecker/eval.yaml"]
    assert shapes.NOT_OURS in said["evals/lightspeed/evals.yaml"]
    assert all(": notice: not read: " in line for line in said.values())


def test_validate_json__marks_files_that_are_not_eval_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {**FOREIGN_TREE, "EVAL.yaml": "tests: [{id: a, input: hi, criteria: ok}]\n"})
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    marks = {f["path"]: f["eval_file"] for f in doc["files"]}
    assert marks == {**dict.fromkeys(FOREIGN_TREE, False), "EVAL.yaml": True}
    foreign = [f for f in doc["files"] if not f["eval_file"]]
    assert all(f["format"] is None and f["cases"] == 0 for f in foreign)
    assert {p["severity"] for f in foreign for p in f["problems"]} == {"notice"}
    assert doc["summary"] == {"files": 1, "cases": 1, "errors": 0, "warnings": 0, "notices": 3}


def test_load_all__a_run_never_sees_foreign_files(tmp_path: Path) -> None:
    write(tmp_path, FOREIGN_TREE)
    assert load_all(tmp_path) == []


@pytest.mark.parametrize(
    ("text", "fmt"), [(VALLY, Format.VALLY), (SKILL_VALIDATOR, Format.SKILL_VALIDATOR)]
)
def test_vally_and_skill_validator_files_are_read_as_theirs_not_as_agentv(
    tmp_path: Path, text: str, fmt: Format
) -> None:
    write(tmp_path, {"tests/dotnet/dump-collect/eval.yaml": text})
    (result,) = load_all(tmp_path)
    assert result.ok and result.format is fmt


def test_a_broken_agentv_file_without_agentv_keys_is_not_run_and_fails_nothing(
    tmp_path: Path,
) -> None:
    write(tmp_path, {"evals/eval.yaml": "description: d\ntest: []\n"})
    (result,) = load_all(tmp_path)
    assert not result.ok and not result.failed and not result.errors
    assert result.problems[0].message.startswith("not run: its name alone")
    assert any("no cases: add `tests:`" in p.message for p in result.problems)


def test_a_broken_agentv_file_with_its_case_list_still_gets_its_error(tmp_path: Path) -> None:
    write(tmp_path, {"evals/eval.yaml": "description: d\ntests: [3]\n"})
    (result,) = load_all(tmp_path)
    assert result.failed and result.errors


def test_a_notice_is_a_notice_annotation() -> None:
    problem = Problem(Origin("eval.yml", 1), "not read: a workflow", Severity.NOTICE)
    assert problem_annotation(problem).startswith("::notice file=eval.yml,line=1")
    assert problem.render() == "eval.yml:1: notice: not read: a workflow"
