"""`.evolve.yaml` `formats:` says what a path's files are: found by its glob, read in that
format without sniffing, and certain, so a problem is an error again."""

from __future__ import annotations

from pathlib import Path

import pytest

from evolve_action.commands.cli import main
from evolve_action.formats import discovery, load_all, load_found
from evolve_action.formats.placement import Declared
from evolve_action.model.evals import Format, Severity
from evolve_action.settings.config import load_config

AGENTV = "tests:\n  - id: a\n    input: Greet Ada.\n    criteria: It greets Ada.\n"
NO_KEYS = "description: d\n"  # a name AgentV uses, none of AgentV's keys


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_config_reads_entries_and_says_what_is_wrong(tmp_path: Path) -> None:
    write(tmp_path, {".evolve.yaml": (
        "formats:\n"
        "  - {paths: 'cases/*.yml', as: agentv}\n"
        "  - {paths: 'evals/**/evals.json', as: skill-creator}\n"
        "  - {paths: 'x/*.yaml', as: nosuch}\n"
        "  - {paths: '../up/*.yaml', as: waza}\n"
        "  - just a string\n"
    )})  # fmt: skip
    loaded = load_config(tmp_path)
    assert loaded.config.formats == (
        Declared("cases/*.yml", Format.AGENTV),
        Declared("evals/**/evals.json", Format.EVOLVE),
    )
    messages = [p.render() for p in loaded.errors]
    assert len(messages) == 3, messages
    assert "'nosuch' is not a format evolve-action reads" in messages[0]
    assert "climb out" in messages[1]
    assert ".evolve.yaml:6" in messages[2]


def test_a_declared_file_is_found_by_its_glob_and_read_in_that_format(tmp_path: Path) -> None:
    write(tmp_path, {"cases/greet.yml": AGENTV})
    assert load_all(tmp_path) == []  # no convention names `cases/*.yml`
    (result,) = load_all(tmp_path, declared=(Declared("cases/*.yml", Format.AGENTV),))
    assert result.ok and result.format is Format.AGENTV
    assert result.suite is not None and [c.id for c in result.suite.cases] == ["a"]


def test_a_declared_format_is_certain_so_its_problems_are_errors(tmp_path: Path) -> None:
    write(tmp_path, {"evals/eval.yaml": NO_KEYS})
    (guessed,) = load_all(tmp_path)
    assert not guessed.failed and guessed.problems[0].severity is Severity.WARNING
    (declared,) = load_all(tmp_path, declared=(Declared("evals/*.yaml", Format.AGENTV),))
    assert declared.failed and "no cases" in declared.errors[0].message


def test_a_declared_format_is_not_sniffed_into_another(tmp_path: Path) -> None:
    vally = "stimuli:\n  - {name: s, prompt: p, graders: [{type: completed}]}\n"
    write(tmp_path, {"evals/eval.yaml": vally})
    (sniffed,) = load_all(tmp_path)
    assert sniffed.format is Format.VALLY
    (declared,) = load_all(tmp_path, declared=(Declared("evals/eval.yaml", Format.AGENTV),))
    assert declared.format is Format.AGENTV and declared.failed


def test_validate_strict_keeps_the_errors_of_a_file_whose_format_is_not_certain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"evals/eval.yaml": NO_KEYS})
    assert main(["validate", str(tmp_path)]) == 0
    assert "warning: not run: its name alone made it a agentv file" in capsys.readouterr().out
    assert main(["validate", "--strict", str(tmp_path)]) == 1
    assert "no cases" in capsys.readouterr().out


def test_a_file_two_formats_fit_gets_a_notice_until_evolve_yaml_says_which(
    tmp_path: Path,
) -> None:
    both = (
        "stimuli: [{name: s, prompt: p, graders: [{type: completed}]}]\n"
        "scenarios: [{name: t, prompt: p, assertions: [{type: output_contains, value: x}]}]\n"
    )
    write(tmp_path, {"evals/x/eval.yaml": both})
    assert load_all(tmp_path) == []  # a notice only, which a run leaves out
    found = discovery.discover(tmp_path)
    (notice,) = [load_found(found.root, item) for item in found.files]
    assert notice.not_eval and "the keys of vally and skill-validator" in notice.problems[0].message
    (declared,) = load_all(tmp_path, declared=(Declared("evals/**/eval.yaml", Format.VALLY),))
    assert declared.format is Format.VALLY and declared.suite is not None
