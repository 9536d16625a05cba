"""`evolve-action validate`, driven through `cli.main` on repositories built in tmp_path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evolve_action.commands.cli import main
from evolve_action.model.evals import Origin, Problem, Severity
from evolve_action.publish.annotations import (
    annotate,
    escape_data,
    escape_property,
    problem_annotation,
)

GOOD = '{"evals": [{"id": 1, "prompt": "Summarize", "expectations": ["It is short"]}]}'
TWO = (
    '{"evals": [\n'
    '  {"id": 1, "prompt": "a", "expectations": ["x"]},\n'
    '  {"id": 2, "prompt": "b", "expectations": ["y"]}\n'
    "]}"
)
BROKEN = '{"evals": [\n  {"id": 1,\n   "prompt": "p",,\n}]}'
SKILL = "---\nname: s\ndescription: Use when testing.\n---\nBody\n"


def repo(root: Path, files: dict[str, str], *, plugin: bool = True) -> Path:
    if plugin:
        files = {".claude-plugin/plugin.json": '{"name": "p"}', **files}
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def in_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["validate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_validate__a_clean_repository_exits_0(in_repo: Path, capsys: Any) -> None:
    repo(in_repo, {"skills/s/SKILL.md": SKILL, "evals/s/evals.json": TWO})
    code, out, err = run(capsys)
    assert (code, out, err) == (0, "1 file, 2 cases, 0 errors, 0 warnings\n", "")


def test_validate__a_parse_error_is_reported_at_its_line(in_repo: Path, capsys: Any) -> None:
    repo(in_repo, {"evals/s/evals.json": BROKEN, "evals/t/evals.json": GOOD})
    code, out, _ = run(capsys, ".")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("evals/s/evals.json:3: invalid JSON")
    assert lines[-1] == "2 files, 1 case, 1 error, 0 warnings"


def test_validate__loader_problems_name_file_line_and_field(in_repo: Path, capsys: Any) -> None:
    repo(in_repo, {"evals/s/evals.json": '{"evals": [\n  {"id": 1, "prompt": ""}\n]}'})
    code, out, _ = run(capsys)
    assert code == 1
    assert out.splitlines()[0].startswith("evals/s/evals.json:2: evals[0].prompt: ")


def test_validate__warnings_alone_exit_0_and_are_marked(in_repo: Path, capsys: Any) -> None:
    text = '{"skill_name": "other", "evals": [{"id": 1, "prompt": "p", "expectations": ["e"]}]}'
    repo(in_repo, {"skills/s/SKILL.md": SKILL, "evals/s/evals.json": text})
    code, out, _ = run(capsys)
    assert code == 0
    assert ": warning: " in out.splitlines()[0]
    assert out.splitlines()[-1] == "1 file, 1 case, 0 errors, 1 warning"


def test_validate__json_output_is_stable(in_repo: Path, capsys: Any) -> None:
    repo(in_repo, {"evals/s/evals.json": BROKEN, "evals/t/evals.json": GOOD})
    code, out, _ = run(capsys, "--format", "json")
    assert code == 1
    doc = json.loads(out)
    assert doc["version"] == 1
    assert doc["summary"] == {"files": 2, "cases": 1, "errors": 1, "warnings": 0, "notices": 0}
    broken, good = doc["files"]
    assert broken == {
        "path": "evals/s/evals.json",
        "format": "evolve",
        "skill": "s",
        "cases": 0,
        "ok": False,
        "eval_file": True,
        "problems": [
            {
                "path": "evals/s/evals.json",
                "line": 3,
                "field": "",
                "severity": "error",
                "message": broken["problems"][0]["message"],
            }
        ],
    }
    assert (good["cases"], good["ok"], good["problems"]) == (1, True, [])
    assert doc["problems"] == []


def test_validate__annotations_inside_github_actions(
    in_repo: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    repo(in_repo, {"evals/s/evals.json": '{"evals": [\n  {"id": 1, "prompt": ""}\n]}'})
    _, out, _ = run(capsys)
    annotation = next(line for line in out.splitlines() if line.startswith("::"))
    assert annotation.startswith("::error file=evals/s/evals.json,line=2,title=evals[0].prompt::")


def test_validate__config_annotations_say_so(
    in_repo: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    repo(in_repo, {".evolve.json": "[1]", ".evolve.yaml": "runs: 2"}, plugin=False)
    _, out, _ = run(capsys)
    assert out.splitlines()[-1] == (
        "::error file=.evolve.yaml,title=invalid config::ambiguous config: found .evolve.yaml,"
        " .evolve.json; keep exactly one"
    )


def test_validate__json_mode_sends_annotations_to_stderr(
    in_repo: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    repo(in_repo, {"evals/s/evals.json": BROKEN})
    _, out, err = run(capsys, "--format", "json")
    json.loads(out)  # stdout stays one JSON document
    assert err.startswith("::error file=evals/s/evals.json,line=3,")


def test_validate__a_missing_path_is_a_usage_error(in_repo: Path, capsys: Any) -> None:
    code, out, err = run(capsys, "no/such/dir")
    assert (code, out) == (2, "")
    assert err == (
        "evolve-action validate: error: no/such/dir does not exist;"
        " give a directory or an eval file\n"
    )


def test_validate__one_file_by_name(in_repo: Path, capsys: Any) -> None:
    repo(in_repo, {"evals/s/evals.json": GOOD, "evals/t/evals.json": BROKEN})
    code, out, _ = run(capsys, "evals/s/evals.json")
    assert (code, out) == (0, "1 file, 1 case, 0 errors, 0 warnings\n")


def test_validate__a_file_of_unknown_name_needs_as(in_repo: Path, capsys: Any) -> None:
    repo(in_repo, {"suite.json": GOOD}, plugin=False)
    code, _, err = run(capsys, "suite.json")
    assert code == 2
    assert "cannot tell the format of suite.json from its name; pass --as FORMAT" in err
    assert run(capsys, "suite.json", "--as", "evolve")[:2] == (
        0,
        "1 file, 1 case, 0 errors, 0 warnings\n",
    )
    assert run(capsys, "suite.json", "--as", "skill-creator")[0] == 0


def test_validate__as_sends_the_file_to_another_loader(in_repo: Path, capsys: Any) -> None:
    repo(in_repo, {"suite.json": '[{"query": "make a pdf", "should_trigger": true}]'}, plugin=False)
    code, out, _ = run(capsys, "suite.json", "--as", "triggers")
    assert (code, out) == (0, "1 file, 1 case, 0 errors, 0 warnings\n")


def test_validate__as_with_a_directory_is_a_usage_error(in_repo: Path, capsys: Any) -> None:
    code, _, err = run(capsys, ".", "--as", "agentv")
    assert code == 2
    assert "--as names the format of an eval file; . is a directory" in err


def test_validate__paths_globs_narrow_discovery(in_repo: Path, capsys: Any) -> None:
    repo(in_repo, {"evals/s/evals.json": GOOD, "evals/t/evals.json": BROKEN})
    assert run(capsys, "--paths", "evals/s/**")[:2] == (0, "1 file, 1 case, 0 errors, 0 warnings\n")
    code, out, _ = run(capsys, "--paths", "evals/s/**,evals/t/*")
    assert (code, out.splitlines()[-1]) == (1, "2 files, 1 case, 1 error, 0 warnings")
    code, out, _ = run(capsys, "--paths", "evals/s/**", "--paths", "evals/t/*")
    assert (code, out.splitlines()[-1]) == (1, "2 files, 1 case, 1 error, 0 warnings")


def test_validate__a_path_after_paths_is_still_a_path(in_repo: Path, capsys: Any) -> None:
    repo(in_repo / "sub", {"evals/s/evals.json": GOOD, "evals/t/evals.json": BROKEN})
    repo(in_repo, {"evals/x/evals.json": BROKEN})
    code, out, _ = run(capsys, "--paths", "evals/s/**", "sub")
    assert (code, out) == (0, "1 file, 1 case, 0 errors, 0 warnings\n")


def test_validate__a_forced_layout_without_its_marker(in_repo: Path, capsys: Any) -> None:
    repo(in_repo, {"evals/s/evals.json": GOOD}, plugin=False)
    code, out, _ = run(capsys, "--layout", "marketplace")
    assert code == 1
    assert out.startswith(".claude-plugin/marketplace.json: layout 'marketplace' was requested")


def test_validate__two_formats_of_one_eval_file(in_repo: Path, capsys: Any) -> None:
    repo(in_repo, {"evals/s/evals.json": GOOD, "evals/s/evals.yaml": "evals: []\n"})
    code, out, _ = run(capsys)
    assert code == 1
    assert "ambiguous evals: found evals.json, evals.yaml in evals/s/; keep exactly one" in out


def test_validate__checks_the_config_and_uses_its_paths(in_repo: Path, capsys: Any) -> None:
    files = {
        ".evolve.yaml": "paths: [evals/s/**]\nalpha: 2\nflavour: 1\n",
        "evals/s/evals.json": GOOD,
        "evals/t/evals.json": BROKEN,
    }
    repo(in_repo, files)
    code, out, _ = run(capsys)
    assert code == 1
    assert out.splitlines() == [
        ".evolve.yaml:2: alpha: must be between 0 and 1, got 2",
        ".evolve.yaml:3: flavour: warning: unknown config key 'flavour' is ignored",
        "1 file, 1 case, 1 error, 1 warning",
    ]
    assert run(capsys, "--paths", "**")[2] == ""  # a flag replaces the config's globs


def test_validate__paths_below_the_working_directory_keep_their_prefix(
    in_repo: Path, capsys: Any
) -> None:
    repo(in_repo / "sub", {".evolve.json": "[]", "evals/s/evals.json": BROKEN})
    _, out, _ = run(capsys, "sub")
    assert out.splitlines()[:2] == [
        "sub/.evolve.json:1: the config must be a mapping of keys, not a list",
        out.splitlines()[1],
    ]
    assert out.splitlines()[1].startswith("sub/evals/s/evals.json:3: invalid JSON")


def test_validate__a_crashing_loader_is_reported_not_raised(
    in_repo: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import evolve_action.formats.evolve.load as evolve_loader

    def explode(*_: object) -> None:
        raise KeyError("boom")

    monkeypatch.setattr(evolve_loader, "load", explode)
    repo(in_repo, {"evals/s/evals.json": GOOD})
    code, out, _ = run(capsys)
    assert code == 1
    assert out.splitlines()[0] == (
        "evals/s/evals.json: this is a bug in evolve-action: the evolve loader failed with"
        " KeyError: 'boom'. Please report it with this file attached"
    )


def test_validate__the_same_file_twice_is_loaded_once(in_repo: Path, capsys: Any) -> None:
    repo(in_repo, {"evals/s/evals.json": GOOD})
    assert run(capsys, ".", "evals/s/evals.json")[1] == "1 file, 1 case, 0 errors, 0 warnings\n"


# --- annotation escaping -------------------------------------------------------------------


def test_escape_data_and_property() -> None:
    assert escape_data("50%\r\nnext: a,b") == "50%25%0D%0Anext: a,b"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_annotate__leaves_out_empty_properties() -> None:
    assert annotate("warning", "careful") == "::warning::careful"
    line = annotate("error", "bad\nvalue", file="a,b.json", line=3, title="x: y")
    assert line == "::error file=a%2Cb.json,line=3,title=x%3A y::bad%0Avalue"
    with pytest.raises(ValueError, match="unknown annotation level"):
        annotate("fatal", "x")


def test_problem_annotation__uses_the_field_as_title() -> None:
    warning = Problem(Origin("e.json", 4, "evals[0]"), "odd", Severity.WARNING)
    assert problem_annotation(warning) == ("::warning file=e.json,line=4,title=evals[0]::odd")
    bare = Problem(Origin("e.json"), "unreadable")
    assert problem_annotation(bare) == ("::error file=e.json,title=invalid eval file::unreadable")


def test_validate__a_config_file_alone(in_repo: Path, capsys: Any) -> None:
    repo(in_repo, {"ci/.evolve.yml": "runs: 0\n"}, plugin=False)
    code, out, _ = run(capsys, "ci/.evolve.yml")
    assert code == 1
    assert out.splitlines() == [
        "ci/.evolve.yml:1: runs: must be at least 1, got 0",
        "0 files, 0 cases, 1 error, 0 warnings",
    ]


def test_validate__a_special_file_is_a_usage_error(in_repo: Path, capsys: Any) -> None:
    import os

    os.mkfifo(in_repo / "evals.json")  # reading it would block forever
    code, _, err = run(capsys, "evals.json")
    assert code == 2
    assert "evals.json is neither a directory nor a regular file" in err
