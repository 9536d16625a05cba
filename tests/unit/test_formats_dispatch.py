"""`load_file` and `load_all`: one dispatch, content sniffing, and one model per document."""

from __future__ import annotations

import dataclasses
import json
from enum import Enum
from pathlib import Path
from typing import Any

import pytest

from evolve_action import formats
from evolve_action.formats import load_all, load_file
from evolve_action.formats.base import LoadContext
from evolve_action.model.evals import Format, Skill

EVOLVE_YAML = """\
skill_name: s
models: [anthropic]
evals:
  - id: 1
    name: first
    prompt: "Write out.txt"
    expected_output: a file
    files: [files/src/main.go, seed.txt]
    expectations: [It wrote the file]
    assertions:
      - Polite
      - {type: file_exists, path: out.txt}
      - {type: regex, path: out.txt, pattern: "^ok$"}
      - {type: command, run: "test -f out.txt", expect_exit: 0}
    max_turns: 4
  - id: two
    prompt: "Second"
    expectations: ["yes", "no"]
"""

JSONC_PREFIX = "// the same document, with comments and trailing commas\n"


def shape(value: Any) -> Any:
    """The model without where it came from: origins, paths and lines differ by format."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: shape(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.name not in ("origin", "path", "rel", "warnings")
        }
    if isinstance(value, tuple | list):
        return [shape(v) for v in value]
    if isinstance(value, dict) or hasattr(value, "items"):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, Enum):
        return value.value
    return value


def skill_at(root: Path) -> Skill:
    for rel in ("skills/s/SKILL.md", "evals/s/files/src/main.go", "evals/s/seed.txt"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    return Skill("s", root / "skills/s")


def to_jsonc(data: Any) -> str:
    text = json.dumps(data, indent=2)
    return JSONC_PREFIX + text.replace("\n  ]", ",\n  ]").replace('"\n    }', '", /* end */\n    }')


def test_load_file__json_jsonc_yaml_and_yml_give_the_same_model(tmp_path: Path) -> None:
    import yaml

    skill = skill_at(tmp_path)
    ctx = LoadContext(root=tmp_path, skill=skill)
    data = yaml.safe_load(EVOLVE_YAML)
    texts = {
        "evals.json": json.dumps(data, indent=2),
        "evals.jsonc": to_jsonc(data),
        "evals.yaml": EVOLVE_YAML,
        "evals.yml": EVOLVE_YAML,
    }
    shapes = {}
    for name, text in texts.items():
        directory = tmp_path / "evals" / "s"
        for old in directory.glob("evals.*"):
            old.unlink()
        (directory / name).write_text(text)
        result = load_file(directory / name, f"evals/s/{name}", Format.EVOLVE, ctx)
        assert result.problems == (), (name, result.problems)
        assert result.suite is not None
        shapes[name] = shape(result.suite)
    assert "//" in texts["evals.jsonc"] and ",\n  ]" in texts["evals.jsonc"]
    first = shapes.pop("evals.json")
    assert len(first["cases"]) == 2 and len(first["cases"][0]["items"]) == 5
    for name, other in shapes.items():
        assert other == first, name


def test_load_file__sniffs_skill_evaluator_content(tmp_path: Path) -> None:
    skill = skill_at(tmp_path)
    path = tmp_path / "skills/s/evals/evals.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"eval_config": {"runs_per_eval": 2}, "evals": []}))
    ctx = LoadContext(root=tmp_path, skill=skill)
    assert load_file(path, "e.json", Format.EVOLVE, ctx).format is Format.SKILL_EVALUATOR


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        ({"eval_config": {}}, Format.SKILL_EVALUATOR),
        ({"evals": [{"id": 1}, {"structural_expectations": []}]}, Format.SKILL_EVALUATOR),
        ({"evals": [{"quality_rubric": {}}]}, Format.SKILL_EVALUATOR),
        ({"evals": [{"expectations": []}]}, Format.EVOLVE),
        ({"evals": "nope"}, Format.EVOLVE),
        ([{"query": "x"}], Format.EVOLVE),
    ],
)
def test_sniff(data: Any, fmt: Format) -> None:
    from evolve_action.formats.documents import Document

    assert formats.sniff(Document(Path("evals.json"), "evals.json", data), Format.EVOLVE) is fmt
    doc = Document(Path("x.eval.json"), "x", {"eval_config": {}})
    assert formats.sniff(doc, Format.CLAUDITOR) is Format.CLAUDITOR  # only evals.* is sniffed


def test_load_file__a_missing_loader_module_is_a_clear_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evolve_action.formats import families

    missing = families.Family("clauditor", {Format.CLAUDITOR: "no_such_loader"})
    others = tuple(f for f in families.FAMILIES if f.package != "clauditor")
    monkeypatch.setattr(families, "FAMILIES", (*others, missing))
    path = tmp_path / "SKILL.eval.json"
    path.write_text("{}")
    result = load_file(
        path, "SKILL.eval.json", Format.CLAUDITOR, LoadContext(tmp_path, Skill("s", None))
    )
    (problem,) = result.problems
    assert problem.message == "this build of evolve-action cannot read clauditor files yet"


def test_load_file__a_loader_returning_garbage_is_a_bug_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import evolve_action.formats.evolve.triggers as triggers

    monkeypatch.setattr(triggers, "load", lambda doc, ctx: None)
    path = tmp_path / "triggers.json"
    path.write_text("[]")
    result = load_file(
        path, "triggers.json", Format.TRIGGERS, LoadContext(tmp_path, Skill("s", None))
    )
    (problem,) = result.problems
    assert "bug in evolve-action" in problem.message
    assert "TypeError: returned NoneType, not a LoadResult" in problem.message


def test_load_file__an_unreadable_file_is_a_problem(tmp_path: Path) -> None:
    ctx = LoadContext(tmp_path, Skill("s", None))
    result = load_file(tmp_path / "gone.json", "gone.json", Format.EVOLVE, ctx)
    assert result.suite is None
    assert result.problems[0].message.startswith("cannot read the file")


def test_load_all__discovery_problems_then_loaded_files(tmp_path: Path) -> None:
    for rel, text in {
        ".claude-plugin/plugin.json": "{}",
        "evals/a/evals.json": '{"evals": [{"id": 1, "prompt": "p", "expectations": ["e"]}]}',
        "evals/b/evals.json": "{}",
        "evals/b/evals.yml": "{}",
        "evals/c/triggers.json": '{"triggers": [{"query": "q", "should_trigger": true}]}',
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    results = load_all(tmp_path)
    assert [(r.rel, r.format, r.suite is not None) for r in results] == [
        ("evals/b/evals.json", None, False),
        ("evals/a/evals.json", Format.EVOLVE, True),
        ("evals/c/triggers.json", Format.TRIGGERS, True),
    ]
    assert "keep exactly one" in results[0].problems[0].message
    assert [r.rel for r in load_all(tmp_path, paths=["evals/c/*"])] == ["evals/c/triggers.json"]
