"""The evolve evals loader: ids, items, templates, formats and evolve's documented edge cases."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from evolve_action.formats import load_file
from evolve_action.formats.base import LoadContext
from evolve_action.formats.documents import read
from evolve_action.formats.evolve import load as evolve
from evolve_action.formats.evolve.files import stage
from evolve_action.formats.evolve.params import typed
from evolve_action.model.evals import Check, Format, JudgeItem, LoadResult, Severity, Skill, Suite


def repo(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    root = tmp_path / "repo"
    (root / "skills" / "demo").mkdir(parents=True)
    (root / "skills" / "demo" / "SKILL.md").write_text("---\nname: demo\n---\n")
    (root / "evals" / "demo").mkdir(parents=True)
    for rel, text in (files or {}).items():
        path = root / "evals" / "demo" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def load(root: Path, text: str, name: str = "evals.json", skill: str = "demo") -> LoadResult:
    path = root / "evals" / skill / name
    path.write_text(text)
    ctx = LoadContext(root=root, skill=Skill(skill, root / "skills" / skill))
    return evolve.load(read(path, f"evals/{skill}/{name}"), ctx)


def load_data(root: Path, data: Any) -> LoadResult:
    return load(root, json.dumps(data, indent=2))


def case(**fields: Any) -> dict[str, Any]:
    return {"id": "c", "prompt": "do it", "expectations": ["it is done"], **fields}


def messages(result: LoadResult, severity: Severity = Severity.ERROR) -> list[str]:
    return [p.render() for p in result.problems if p.severity is severity]


def suite_of(result: LoadResult) -> Suite:
    assert result.ok, messages(result)
    assert result.suite is not None
    return result.suite


# --- ids -------------------------------------------------------------------------------------


def test_integer_ids_become_strings_and_collide_with_equal_strings(tmp_path: Path) -> None:
    root = repo(tmp_path)
    ok = suite_of(load_data(root, {"evals": [case(id=1), case(id="x1")]}))
    assert [c.id for c in ok.cases] == ["1", "x1"]
    clash = load_data(root, {"evals": [case(id=1), case(id="1")]})
    assert clash.suite is None
    [error] = clash.errors
    assert error.field == "evals[1].id" and 'duplicate id "1"' in error.message
    assert "evals[0]" in error.message


@pytest.mark.parametrize("bad", [True, 1.5, 1.0, {"a": 1}, [1]])
def test_ids_of_other_types_are_errors(tmp_path: Path, bad: Any) -> None:
    result = load_data(repo(tmp_path), {"evals": [case(id=bad)]})
    [error] = result.errors
    assert error.field == "evals[0].id" and "must be a string or an integer" in error.message


def test_yaml_integral_float_id_normalizes_like_evolve(tmp_path: Path) -> None:
    text = "evals:\n  - id: 1.0\n    prompt: p\n    expectations: [e]\n"
    assert suite_of(load(repo(tmp_path), text, "evals.yaml")).cases[0].id == "1"


def test_string_ids_are_verbatim(tmp_path: Path) -> None:
    suite = suite_of(load_data(repo(tmp_path), {"evals": [case(id=" Mixed Case ")]}))
    assert suite.cases[0].id == " Mixed Case "


def test_field_names_match_regardless_of_case_as_in_evolve(tmp_path: Path) -> None:
    data = {"Evals": [{"ID": 1, "Prompt": "p", "Expectations": ["e"], "prompt_extra": 1}]}
    result = load_data(repo(tmp_path), data)
    [c] = suite_of(result).cases
    assert (c.id, c.prompt, c.items[0].text) == ("1", "p", "e")
    warnings = messages(result, Severity.WARNING)
    assert len(warnings) == 4
    assert any('evals[0].Prompt: warning: read as "prompt"' in w for w in warnings)


def test_missing_id_and_prompt_and_items_are_all_reported(tmp_path: Path) -> None:
    data = {"evals": [{"prompt": "p", "expectations": ["e"]}, {"id": 2}, {"id": 3, "prompt": "p"}]}
    result = load_data(repo(tmp_path), data)
    found = messages(result)
    assert any("evals[0]: missing id" in m for m in found)
    assert any("evals[1]: missing prompt" in m for m in found)
    assert any("evals[2]: no expectations or assertions" in m for m in found)
    assert result.suite is None


# --- items: ordering, types, templates -------------------------------------------------------


def test_expectations_precede_bare_strings_and_objects(tmp_path: Path) -> None:
    data = {
        "evals": [
            {
                "id": "c",
                "prompt": "p",
                "assertions": [
                    {"type": "file_exists", "path": "out.txt"},
                    "bare statement",
                    {"type": "llm", "text": "object statement"},
                ],
                "expectations": ["first expectation"],
            }
        ]
    }
    items = suite_of(load_data(repo(tmp_path), data)).cases[0].items
    assert [(type(i).__name__, i.id, i.source) for i in items] == [
        ("JudgeItem", "expectations[0]", "expectation"),
        ("Check", "assertions[0]", "assertion"),
        ("JudgeItem", "assertions[1]", "assertion"),
        ("JudgeItem", "assertions[2]", "assertion"),
    ]


@pytest.mark.parametrize(
    ("assertion", "kind", "text"),
    [
        ({"type": "file_exists", "path": "a.txt"}, "evolve.file_exists", "file a.txt exists"),
        ({"type": "file_absent", "path": "a.txt"}, "evolve.file_absent", "file a.txt is absent"),
        ({"type": "regex", "pattern": "^ok"}, "evolve.regex", "output matches /^ok/"),
        ({"type": "regex", "path": "a", "pattern": "x"}, "evolve.regex", "a matches /x/"),
        ({"type": "not_regex", "pattern": "x"}, "evolve.not_regex", "output does not match /x/"),
        (
            {"type": "not_regex", "path": "a", "pattern": "x"},
            "evolve.not_regex",
            "a does not match /x/",
        ),
        ({"type": "command", "run": "make"}, "evolve.command", "command `make` exits 0"),
        (
            {"type": "command", "run": "false", "expect_exit": 1},
            "evolve.command",
            "command `false` exits 1",
        ),
        ({"type": "tool_call", "tool": "^Bash$"}, "evolve.tool_call", "agent called tool /^Bash$/"),
        (
            {"type": "tool_call", "tool": "Bash", "pattern": "go"},
            "evolve.tool_call",
            "agent called tool /Bash/ with args /go/",
        ),
    ],
)
def test_deterministic_types_and_their_text(
    tmp_path: Path, assertion: dict[str, Any], kind: str, text: str
) -> None:
    data = {"evals": [{"id": 1, "prompt": "p", "assertions": [{**assertion, "note": "extra"}]}]}
    [check] = suite_of(load_data(repo(tmp_path), data)).cases[0].items
    assert isinstance(check, Check)
    assert (check.kind, check.text) == (kind, text)
    authored = {k: v for k, v in assertion.items() if k != "type"}
    assert check.params == typed(kind.removeprefix("evolve."), authored)


@pytest.mark.parametrize(
    ("assertion", "field", "message"),
    [
        ({"type": "file_exists"}, "evals[0].assertions[0]", "missing path"),
        ({"type": "file_absent", "path": ""}, "evals[0].assertions[0].path", "missing path"),
        ({"type": "regex"}, "evals[0].assertions[0]", "missing pattern"),
        ({"type": "command"}, "evals[0].assertions[0]", "missing run"),
        ({"type": "tool_call"}, "evals[0].assertions[0]", "missing tool"),
        ({"type": "llm"}, "evals[0].assertions[0]", "missing text"),
        ({"type": "regex", "pattern": "(?=x)"}, "evals[0].assertions[0].pattern", "invalid RE2"),
        ({"type": "tool_call", "tool": "("}, "evals[0].assertions[0].tool", "invalid RE2"),
        (
            {"type": "tool_call", "tool": "B", "pattern": "(a"},
            "evals[0].assertions[0].pattern",
            "invalid RE2",
        ),
        (
            {"type": "command", "run": "x", "expect_exit": "1"},
            "evals[0].assertions[0].expect_exit",
            "integer",
        ),
        ({"type": "regex", "pattern": 5}, "evals[0].assertions[0].pattern", "must be a string"),
        ({"type": "regexp", "pattern": "x"}, "evals[0].assertions[0].type", 'did you mean "regex"'),
        (
            {"type": "shell", "run": "x"},
            "evals[0].assertions[0].type",
            'unknown assertion type "shell"',
        ),
        ({"path": "x"}, "evals[0].assertions[0]", "missing `type`"),
        ("", "evals[0].assertions[0]", "empty assertion"),
    ],
)
def test_assertion_problems_name_the_field(
    tmp_path: Path, assertion: Any, field: str, message: str
) -> None:
    data = {"evals": [{"id": 1, "prompt": "p", "assertions": [assertion]}]}
    result = load_data(repo(tmp_path), data)
    assert result.suite is None
    [error] = result.errors
    assert error.field == field and message in error.message
    assert error.origin.line is not None and error.origin.line > 1


def test_re2_features_python_re_lacks_are_accepted(tmp_path: Path) -> None:
    data = {
        "evals": [
            {
                "id": 1,
                "prompt": "p",
                "assertions": [
                    {"type": "regex", "pattern": "^[[:alpha:]]+\\z"},
                    {"type": "tool_call", "tool": "^Bash$", "pattern": "\\pL+"},
                ],
            }
        ]
    }
    assert len(suite_of(load_data(repo(tmp_path), data)).cases[0].checks) == 2


def test_skill_creator_assertion_objects_load_as_judge_items_with_one_warning(
    tmp_path: Path,
) -> None:
    assertions = [
        {"name": "has-steps", "description": "All 4 steps are present"},
        {"id": "a2", "text": "Uses pnpm", "type": "llm_judge"},
        {"name": "slug-only"},
    ]
    data = {"evals": [{"id": 1, "prompt": "p", "assertions": assertions}]}
    result = load_data(repo(tmp_path), data)
    texts = [i.text for i in suite_of(result).cases[0].judge_items]
    assert texts == ["All 4 steps are present", "Uses pnpm", "slug-only"]
    warnings = messages(result, Severity.WARNING)
    assert len(warnings) == 3
    assert any("2 assertion objects have no `type`" in w for w in warnings)
    assert any("llm_judge" in w for w in warnings)
    # the statement is graded; the label beside it is said to be ignored
    assert any("`name` is not graded (on 1 assertion object)" in w for w in warnings)


# --- drafts, fields, file-level --------------------------------------------------------------


def test_skill_creator_drafts_are_graded_against_expected_output(tmp_path: Path) -> None:
    data = {"evals": [{"id": i, "prompt": "p", "expected_output": f"out {i}"} for i in (1, 2)]}
    result = load_data(repo(tmp_path), data)
    suite = suite_of(result)
    [item] = suite.cases[0].items
    assert isinstance(item, JudgeItem)
    assert item.source == "expected_output" and item.text.endswith("out 1")
    [warning] = suite.warnings
    assert "2 evals have no expectations or assertions" in warning.message
    assert warning.field == "evals[0]"


def test_case_fields(tmp_path: Path) -> None:
    raw = case(
        name="Label",
        expected_output="ctx",
        max_turns=5,
        timeout_seconds=30,
        skip_providers=["openai", " "],
        unknown_field={"kept": "quietly"},
    )
    [c] = suite_of(load_data(repo(tmp_path), {"evals": [raw]})).cases
    assert (c.name, c.expected_output, c.max_turns, c.timeout_seconds) == ("Label", "ctx", 5, 30)
    assert c.skip_providers == frozenset({"openai"})
    assert c.label == "Label"


@pytest.mark.parametrize(
    ("field", "value"),
    [("max_turns", 0), ("timeout_seconds", 1.5), ("max_turns", True), ("timeout_seconds", "9")],
)
def test_limits_must_be_positive_integers(tmp_path: Path, field: str, value: Any) -> None:
    [error] = load_data(repo(tmp_path), {"evals": [case(**{field: value})]}).errors
    assert error.field == f"evals[0].{field}" and "integer ≥ 1" in error.message


def test_case_origin_is_the_case_line(tmp_path: Path) -> None:
    text = (
        '{\n  "evals": [\n    {"id": 1, "prompt": "p", "expectations": ["e"]},\n    {\n'
        '      "id": 2, "prompt": "p", "expectations": ["e"]\n    }\n  ]\n}\n'
    )
    suite = suite_of(load(repo(tmp_path), text))
    assert [(c.origin.line, c.origin.pointer) for c in suite.cases] == [
        (3, "evals[0]"),
        (4, "evals[1]"),
    ]
    assert suite.cases[1].items[0].origin.line == 5


def test_allowed_tools_is_accepted_with_one_warning(tmp_path: Path) -> None:
    data = {"evals": [case(id=1, allowed_tools="Read Write"), case(id=2, allowed_tools="Read")]}
    suite = suite_of(load_data(repo(tmp_path), data))
    [warning] = suite.warnings
    assert warning.field == "evals[0].allowed_tools" and "ignored (2 cases)" in warning.message


def test_models_and_skill_name(tmp_path: Path) -> None:
    root = repo(tmp_path)
    data = {"skill_name": "other", "models": [" anthropic ", "openai/gpt-5.4"], "evals": [case()]}
    suite = suite_of(load_data(root, data))
    assert suite.models == ("anthropic", "openai/gpt-5.4")
    [warning] = suite.warnings
    assert warning.message.startswith("skill_name other does not match skill directory demo")
    blank = load_data(root, {"models": ["anthropic", "  "], "evals": [case()]})
    [error] = blank.errors
    assert error.field == "models[1]" and "empty model restriction" in error.message


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([{"id": 1, "expect": ["x"]}], "the top level is a list"),
        ([{"query": "q", "should_trigger": True}], "list of trigger queries"),
        ({"skill": "x", "cases": [{"id": 1}]}, 'found "cases": rename it to "evals"'),
        ({"evals": {"a": 1}}, "must be a list of eval cases"),
        ("just text", "the document is a string"),
        ({"evals": [case(), "oops"]}, "must be an object with id and prompt"),
    ],
)
def test_non_conforming_shapes_get_a_precise_message(
    tmp_path: Path, data: Any, message: str
) -> None:
    result = load_data(repo(tmp_path), data)
    assert result.suite is None and any(message in p.message for p in result.errors)


# --- multiple formats and YAML ----------------------------------------------------------------

JSON_DOC = """{
  "skill_name": "demo",
  "evals": [
    {"id": 1, "prompt": "write it", "files": ["seed.txt"],
     "expectations": ["it is written"],
     "assertions": [{"type": "regex", "path": "out.txt", "pattern": "^done$"}, "nice"]}
  ]
}
"""
JSONC_DOC = """{
  // comments and trailing commas
  "skill_name": "demo",
  "evals": [
    {"id": 1, "prompt": "write it", "files": ["seed.txt",],
     /* block */ "expectations": ["it is written",],
     "assertions": [{"type": "regex", "path": "out.txt", "pattern": "^done$",}, "nice",],},
  ],
}
"""
YAML_DOC = """skill_name: demo
evals:
  - id: 1
    prompt: write it
    files: [seed.txt]
    expectations:
      - it is written
    assertions:
      - {type: regex, path: out.txt, pattern: "^done$"}
      - nice
"""


def projection(suite: Suite) -> Any:
    return [
        (
            c.id,
            c.prompt,
            [(f.dest, f.source) for f in c.files],
            [(i.id, i.text, i.source, getattr(i, "params", {})) for i in c.items],
        )
        for c in suite.cases
    ]


def test_the_same_document_in_every_extension_gives_the_same_suite(tmp_path: Path) -> None:
    root = repo(tmp_path, {"seed.txt": "s"})
    suites = [
        suite_of(load(root, text, name))
        for name, text in [
            ("evals.json", JSON_DOC),
            ("evals.jsonc", JSONC_DOC),
            ("evals.yaml", YAML_DOC),
            ("evals.yml", YAML_DOC),
        ]
    ]
    assert all(projection(s) == projection(suites[0]) for s in suites)


def test_yaml_12_scalars_anchors_and_merge_keys(tmp_path: Path) -> None:
    text = """base: &base
  prompt: on
  expectations: [no]
evals:
  - <<: *base
    id: no
  - <<: *base
    id: "3.0"
    name: 2026-01-01
"""
    suite = suite_of(load(repo(tmp_path), text, "evals.yaml"))
    assert [c.id for c in suite.cases] == ["no", "3.0"]
    assert suite.cases[0].prompt == "on" and suite.cases[0].items[0].text == "no"
    assert suite.cases[1].name == "2026-01-01"


def test_yaml_non_string_keys_are_a_load_problem(tmp_path: Path) -> None:
    root = repo(tmp_path)
    path = root / "evals" / "demo" / "evals.yaml"
    path.write_text("evals:\n  - 1: x\n")
    ctx = LoadContext(root=root, skill=Skill("demo", root / "skills" / "demo"))
    result = load_file(path, "evals/demo/evals.yaml", Format.EVOLVE, ctx)
    [error] = result.errors
    assert "not a string" in error.message and error.origin.line == 2


def test_null_values_count_as_absent(tmp_path: Path) -> None:
    text = (
        "evals:\n  - id: 1\n    prompt: p\n    name: null\n    files: null\n    expectations: [e]\n"
    )
    [c] = suite_of(load(repo(tmp_path), text, "evals.yaml")).cases
    assert c.name == "" and c.files == ()


# --- the corpus ------------------------------------------------------------------------------

NON_CONFORMING = {
    "0vulns__ad-takeover-skill__evals__evals.json": "the top level is a list",
    "paolopasca__diet-optimizer__evals__evals.json": 'found "cases"',
}


def corpus_files(corpus: Path) -> list[Path]:
    return sorted(corpus.glob("evolve/*evals.*")) + sorted(corpus.glob("skill-creator/*evals.json"))


def test_corpus_evals_files_load(tmp_path: Path, corpus_dir: Path) -> None:
    loaded = 0
    for source in corpus_files(corpus_dir):
        root = tmp_path / source.stem
        evals_dir = root / "evals" / "skill"
        evals_dir.mkdir(parents=True)
        path = evals_dir / ("evals" + source.suffix)
        shutil.copy(source, path)
        for entry in _fixture_entries(source):
            staged = stage(entry)
            assert not isinstance(staged, str), (source.name, entry)
            (evals_dir / staged.cleaned).parent.mkdir(parents=True, exist_ok=True)
            (evals_dir / staged.cleaned).write_text("fixture")
        ctx = LoadContext(root=root, skill=Skill("skill", None))
        result = load_file(path, f"evals/skill/{path.name}", Format.EVOLVE, ctx)
        if source.name in NON_CONFORMING:
            [error] = result.errors
            assert NON_CONFORMING[source.name] in error.message
            continue
        assert result.ok, (source.name, [p.render() for p in result.errors])
        assert result.suite is not None and result.suite.cases
        loaded += 1
    assert loaded >= 15


def _fixture_entries(source: Path) -> list[str]:
    data = read(source, source.name).data
    if not isinstance(data, dict) or not isinstance(data.get("evals"), list):
        return []
    return [f for c in data["evals"] for f in (c.get("files") or []) if isinstance(f, str)]


# --- the bundled example ---------------------------------------------------------------------

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "demo-plugin"


def test_the_example_plugin_loads_clean_and_uses_every_assertion_type() -> None:
    from evolve_action.formats import load_all

    results = load_all(EXAMPLE)
    assert [r.rel for r in results if not r.ok or r.problems] == []
    suites = [r.suite for r in results if r.suite is not None]
    assert {s.format for s in suites} == {Format.EVOLVE, Format.TRIGGERS}
    assert {s.skill.name for s in suites} == {"greeter", "changelog"}
    kinds = {i.kind for s in suites for c in s.cases for i in c.checks}
    evolve_kinds = {f"evolve.{t}" for t in ("file_exists", "file_absent", "regex", "not_regex")}
    evolve_kinds |= {"evolve.command", "evolve.tool_call", "triggers.fired"}
    assert kinds == evolve_kinds
    sources = {i.source for s in suites for c in s.cases for i in c.judge_items}
    assert sources == {"expectation", "assertion"}
