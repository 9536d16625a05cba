"""skill-evaluator evals.json → Suite: config, ids, structural types, rubric, files, rounds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from evolve_action.formats.base import LoadContext
from evolve_action.formats.documents import Document, read
from evolve_action.formats.skill_evaluator.load import load, matches
from evolve_action.formats.skill_evaluator.params import (
    ContainsParams,
    CountParams,
    ExistsParams,
    ScriptParams,
)
from evolve_action.model.evals import (
    Case,
    Check,
    Format,
    JudgeItem,
    LoadResult,
    Scale,
    Severity,
    Skill,
)


def write(root: Path, data: Any, *, raw: str | None = None) -> Path:
    path = root / "skills" / "demo" / "evals" / "evals.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(raw if raw is not None else json.dumps(data, indent=2))
    return path


def load_data(root: Path, data: Any, *, raw: str | None = None) -> LoadResult:
    path = write(root, data, raw=raw)
    doc = read(path, rel="skills/demo/evals/evals.json")
    return load(doc, LoadContext(root=root, skill=Skill("demo", path.parent.parent)))


def one_eval(root: Path, **fields: Any) -> LoadResult:
    return load_data(root, {"evals": [{"id": 1, "prompt": "do it", **fields}]})


def only_case(result: LoadResult) -> Case:
    assert result.ok, [p.render() for p in result.problems]
    assert result.suite is not None
    (case,) = result.suite.cases
    return case


def errors(result: LoadResult) -> list[str]:
    return [p.render() for p in result.errors]


def warnings(result: LoadResult) -> list[str]:
    return [p.render() for p in result.problems if p.severity is Severity.WARNING]


def check(root: Path, entry: dict[str, Any]) -> Check:
    case = only_case(one_eval(root, structural_expectations=[entry]))
    (item,) = case.checks
    return item


# --- corpus -----------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["testing-evals.json", "acd-plan__evals__evals.json"])
def test_load__corpus_files(corpus_dir: Path, suffix: str) -> None:
    (path,) = (corpus_dir / "skill-evaluator").glob(f"*{suffix}")
    doc = read(path, rel=path.name)
    result = load(doc, LoadContext(root=corpus_dir, skill=Skill("x", corpus_dir)))
    assert result.ok, errors(result)
    assert result.suite is not None
    assert result.suite.format is Format.SKILL_EVALUATOR
    assert result.suite.runs == 3
    assert len(result.suite.cases) == 3
    assert matches(doc.data)
    for case in result.suite.cases:
        assert case.checks and all(c.kind.startswith("skill_evaluator.") for c in case.checks)
        assert all(j.scale is Scale.LIKERT5 for j in case.judge_items)


def test_load__testing_template_details(corpus_dir: Path) -> None:
    (path,) = (corpus_dir / "skill-evaluator").glob("*testing-evals.json")
    result = load(
        read(path, rel="t.json"), LoadContext(root=corpus_dir, skill=Skill("testing", None))
    )
    assert result.suite is not None
    first = result.suite.cases[0]
    assert [c.id for c in first.checks] == [f"S{i}" for i in range(1, 10)]
    s4 = first.checks[3]
    assert s4.critical is False
    assert s4.params.except_context == ("onSubmit", "onChange", "onPress", "callback")
    assert first.checks[0].critical is True
    assert first.origin.line == 10
    dim = first.judge_items[0]
    assert (dim.id, dim.weight, dim.kind) == ("tdd_philosophy", 2.0, "rubric")
    assert set(dim.anchors) == {"1", "3", "5"}
    assert result.suite.judge_model == "claude-sonnet-4-5-20250929"
    assert result.suite.policy.baseline_comparison is True
    # It asks for the no-skill arm (`plan.no_skill`), which runs: nothing to warn about.
    assert not any("baseline_comparison" in w for w in warnings(result))


def test_matches__by_content() -> None:
    assert matches({"eval_config": {}, "evals": []})
    assert matches({"evals": [{"id": 1, "quality_rubric": {}}]})
    assert not matches({"evals": [{"id": 1, "prompt": "p", "expectations": ["x"]}]})
    assert not matches([1, 2])


# --- config and ids ---------------------------------------------------------------------------


def test_config__defaults_when_absent(tmp_path: Path) -> None:
    result = one_eval(tmp_path, structural_expectations=[{"type": "no_errors"}])
    assert result.suite is not None
    assert result.suite.runs is None and result.suite.judge_model is None
    assert result.suite.policy.structural_gate is True
    assert result.suite.policy.rubric_threshold == 0.6


def test_config__values_and_bad_types(tmp_path: Path) -> None:
    data = {
        "eval_config": {"runs_per_eval": 5, "structural_gate": False, "judge_model": "j"},
        "evals": [{"id": 1, "prompt": "p"}],
    }
    suite = load_data(tmp_path, data).suite
    assert suite is not None
    assert (suite.runs, suite.judge_model, suite.policy.structural_gate) == (5, "j", False)
    data["eval_config"] = {"runs_per_eval": 0, "structural_gate": "yes"}
    found = errors(load_data(tmp_path, data))
    assert any("eval_config.runs_per_eval" in e and ">= 1" in e for e in found)
    assert any("eval_config.structural_gate" in e and "true or false" in e for e in found)


def test_ids__int_and_string_normalised_duplicates_rejected(tmp_path: Path) -> None:
    data = {"evals": [{"id": 7, "prompt": "a"}, {"id": "x", "prompt": "b"}]}
    suite = load_data(tmp_path, data).suite
    assert suite is not None
    assert [c.id for c in suite.cases] == ["7", "x"]
    dup = load_data(tmp_path, {"evals": [{"id": 7, "prompt": "a"}, {"id": "7", "prompt": "b"}]})
    assert dup.suite is None
    (message,) = errors(dup)
    assert "evals[1].id" in message and "duplicate eval id '7'" in message and "line 3" in message


@pytest.mark.parametrize("bad", [True, 1.5, None, "", {"a": 1}])
def test_ids__invalid(tmp_path: Path, bad: Any) -> None:
    result = load_data(tmp_path, {"evals": [{"id": bad, "prompt": "p"}]})
    assert result.suite is None
    assert "evals[0]" in errors(result)[0]


def test_problems__carry_file_line_and_field(tmp_path: Path) -> None:
    raw = '{\n  "evals": [\n    {\n      "id": 1,\n      "prompt": 3\n    }\n  ]\n}\n'
    result = load_data(tmp_path, None, raw=raw)
    assert errors(result) == [
        "skills/demo/evals/evals.json:5: evals[0].prompt: must be a string, not a number"
    ]


def test_top_level__not_an_object_or_no_evals(tmp_path: Path) -> None:
    assert "expected an object" in errors(load_data(tmp_path, [1]))[0]
    assert "evals is missing" in errors(load_data(tmp_path, {"eval_config": {}}))[0]
    assert "evals is empty" in errors(load_data(tmp_path, {"evals": []}))[0]


def test_unknown_fields_are_accepted(tmp_path: Path) -> None:
    case = only_case(
        one_eval(
            tmp_path, category="x", structural_expectations=[{"type": "no_errors", "note": "free"}]
        )
    )
    assert case.checks[0].kind == "skill_evaluator.no_errors"


def test_context_is_appended_to_the_prompt(tmp_path: Path) -> None:
    case = only_case(one_eval(tmp_path, context="The repo uses pnpm.", expected_output="ok"))
    assert case.prompt == "do it\n\nThe repo uses pnpm."
    assert case.expected_output == "ok"


# --- structural expectations ------------------------------------------------------------------


def test_structural__common_defaults(tmp_path: Path) -> None:
    item = check(tmp_path, {"type": "file_exists", "pattern": "*.md"})
    assert (item.id, item.text, item.critical) == ("S1", "file_exists", False)
    assert item.params == ExistsParams("*.md")
    assert item.origin.pointer == "evals[0].structural_expectations[0]"


def test_structural__file_contains_params(tmp_path: Path) -> None:
    item = check(tmp_path, {"type": "file_contains", "match": "Given", "critical": True})
    assert item.params == ContainsParams("*", ("Given",), None)
    assert item.critical
    many = check(tmp_path, {"type": "file_contains", "match": "a", "match_any": ["b", "c"]})
    assert many.params.terms == ("b", "c")


def test_structural__file_contains_regex_replaces_terms_with_warning(tmp_path: Path) -> None:
    result = one_eval(
        tmp_path,
        structural_expectations=[{"type": "file_contains", "match": "x", "match_regex": "(?i)y"}],
    )
    assert only_case(result).checks[0].params.terms == ()
    assert any("replaces match/match_any" in w for w in warnings(result))


def test_structural__file_not_contains_params(tmp_path: Path) -> None:
    item = check(
        tmp_path,
        {
            "type": "file_not_contains",
            "pattern": "src/*.ts",
            "match_any": ["vi.fn("],
            "match_regex": "etc\\.",
            "except_context": ["onSubmit"],
        },
    )
    assert item.params == ContainsParams("src/*.ts", ("vi.fn(",), "etc\\.", ("onSubmit",))


def test_structural__file_count_defaults_and_operator_warning(tmp_path: Path) -> None:
    assert check(tmp_path, {"type": "file_count"}).params == CountParams("*", 1, ">=")
    result = one_eval(
        tmp_path, structural_expectations=[{"type": "file_count", "count": 2, "operator": "=>"}]
    )
    assert only_case(result).checks[0].params.operator == ">="
    assert any("unknown operator '=>' falls back to >=" in w for w in warnings(result))


def test_structural__custom_script_and_no_errors(tmp_path: Path) -> None:
    done = check(tmp_path, {"type": "custom_script", "script": "test -f a"})
    assert done.params == ScriptParams("test -f a")
    assert check(tmp_path, {"type": "no_errors", "id": 4}).id == "4"


@pytest.mark.parametrize(
    ("entry", "field", "words"),
    [
        ({"type": "file_exists"}, "structural_expectations[0]", "pattern is required"),
        ({"type": "file_exists", "pattern": "../x"}, ".pattern", "leaves the outputs"),
        ({"type": "file_exists", "pattern": "/etc/*"}, ".pattern", "leaves the outputs"),
        ({"type": "file_contains", "pattern": "*"}, "[0]", "match, match_any or match_regex"),
        ({"type": "file_contains", "match_any": []}, "[0]", "match, match_any or match_regex"),
        ({"type": "file_contains", "match": ""}, ".match", "matches every file"),
        ({"type": "file_contains", "match_regex": "(?=x)"}, ".match_regex", "invalid RE2"),
        ({"type": "file_not_contains", "match_any": "x"}, ".match_any", "list of strings"),
        ({"type": "file_not_contains", "match": "x", "except_context": [""]}, "except", "every"),
        ({"type": "file_count", "count": -1}, ".count", ">= 0"),
        ({"type": "file_count", "count": "2"}, ".count", ">= 0"),
        ({"type": "file_count", "operator": 3}, ".operator", "one of"),
        ({"type": "custom_script"}, "[0]", "script is required"),
        ({"type": "file_size"}, ".type", "unknown structural type 'file_size'"),
        ({"pattern": "*"}, "[0]", "type is required"),
        ({"type": "no_errors", "critical": "yes"}, ".critical", "true or false"),
        ({"type": "no_errors", "id": True}, ".id", "string or an integer"),
        ("file_exists", "[0]", "must be an object"),
    ],
)
def test_structural__validation(tmp_path: Path, entry: Any, field: str, words: str) -> None:
    result = one_eval(tmp_path, structural_expectations=[entry])
    assert result.suite is None
    (message,) = errors(result)
    assert f"evals[0].structural_expectations{field}" in message or field in message
    assert words in message


def test_structural__inline_flags_accepted(tmp_path: Path) -> None:
    item = check(tmp_path, {"type": "file_contains", "match_regex": "(?i)(### Musts|gaps?)"})
    assert item.params.match_regex == "(?i)(### Musts|gaps?)"


def test_structural__duplicate_ids_rejected(tmp_path: Path) -> None:
    entries = [{"type": "no_errors", "id": "S2"}, {"type": "no_errors"}]  # 2nd defaults to S2
    result = one_eval(tmp_path, structural_expectations=entries)
    assert any("duplicate id 'S2'" in e for e in errors(result))


# --- rubric and expectations ------------------------------------------------------------------


def dimension(**fields: Any) -> dict[str, Any]:
    base = {"id": "Q1", "name": "clarity", "description": "Is it clear", "weight": 2}
    base["scoring"] = {"1": "no", "3": "some", "5": "yes"}
    return {**base, **fields}


def test_rubric__dimension_to_likert_item(tmp_path: Path) -> None:
    case = only_case(one_eval(tmp_path, quality_rubric={"dimensions": [dimension()]}))
    (item,) = case.judge_items
    assert isinstance(item, JudgeItem)
    assert (item.id, item.text, item.scale, item.kind, item.weight) == (
        "clarity",
        "Is it clear",
        Scale.LIKERT5,
        "rubric",
        2.0,
    )
    assert dict(item.anchors) == {"1": "no", "3": "some", "5": "yes"}
    assert item.params.dimension_id == "Q1"


def test_rubric__aliases_and_defaults(tmp_path: Path) -> None:
    dim = {"description": "d", "anchors": {"1": "a", "3": "b", "5": "c"}}
    (item,) = only_case(one_eval(tmp_path, rubric={"dimensions": [dim]})).judge_items
    assert (item.id, item.weight, item.anchors["3"]) == ("Q1", 1.0, "b")


def test_rubric__missing_anchor_warns(tmp_path: Path) -> None:
    result = one_eval(
        tmp_path, quality_rubric={"dimensions": [dimension(scoring={"1": "a", "5": "b"})]}
    )
    assert result.ok
    assert any("missing anchors 3" in w for w in warnings(result))


@pytest.mark.parametrize(
    ("dim", "words"),
    [
        (dimension(weight=0), "positive number"),
        (dimension(weight=-1.5), "positive number"),
        (dimension(weight="2"), "positive number"),
        (dimension(scoring={"7": "x"}), "is not a score"),
        (dimension(scoring={"1": 1}), "must be a string"),
        (dimension(scoring=["a"]), 'keys "1", "3", "5"'),
        (dimension(anchors={"1": "a"}), "scoring or its alias anchors"),
    ],
)
def test_rubric__validation(tmp_path: Path, dim: dict[str, Any], words: str) -> None:
    result = one_eval(tmp_path, quality_rubric={"dimensions": [dim]})
    assert result.suite is None
    assert any(words in e and "quality_rubric.dimensions[0]" in e for e in errors(result))


def test_rubric__both_names_and_duplicate_dimension(tmp_path: Path) -> None:
    both = one_eval(tmp_path, quality_rubric={"dimensions": []}, rubric={"dimensions": []})
    assert "quality_rubric or its alias rubric" in errors(both)[0]
    dup = one_eval(tmp_path, quality_rubric={"dimensions": [dimension(), dimension(id="Q2")]})
    assert any("duplicate id 'clarity'" in e for e in errors(dup))
    none = one_eval(tmp_path, quality_rubric={})
    assert "dimensions is required" in errors(none)[0]


def test_expectations__binary_judge_items(tmp_path: Path) -> None:
    case = only_case(one_eval(tmp_path, expectations=["Has tests", {"text": "No mocks"}]))
    assert [(j.id, j.text, j.scale, j.source) for j in case.judge_items] == [
        ("E1", "Has tests", Scale.BINARY, "expectation"),
        ("E2", "No mocks", Scale.BINARY, "expectation"),
    ]
    assert "expectations[0]" in errors(one_eval(tmp_path, expectations=[3]))[0]


def test_items__order_checks_expectations_rubric(tmp_path: Path) -> None:
    case = only_case(
        one_eval(
            tmp_path,
            quality_rubric={"dimensions": [dimension()]},
            expectations=["e"],
            structural_expectations=[{"type": "no_errors"}],
        )
    )
    assert [i.id for i in case.items] == ["S1", "E1", "clarity"]


def test_items__nothing_graded_warns(tmp_path: Path) -> None:
    assert any("nothing is graded" in w for w in warnings(one_eval(tmp_path)))


# --- files ------------------------------------------------------------------------------------


def test_files__staged_by_evolve_rule(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "demo"
    for rel in ("evals/files/src/app.ts", "evals/files/input.ts", "assets/seed.txt"):
        (skill / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill / rel).write_text(rel)
    files = ["evals/files/src/app.ts", "evals/files/input.ts", "assets/seed.txt"]
    case = only_case(one_eval(tmp_path, files=files))
    assert [(f.dest, f.source.read_text()) for f in case.files] == [
        ("src/app.ts", "evals/files/src/app.ts"),
        ("input.ts", "evals/files/input.ts"),
        ("seed.txt", "assets/seed.txt"),
    ]
    assert case.files[0].origin.pointer == "evals[0].files[0]"


def test_files__problems(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("s")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("x")
    skill = tmp_path / "skills" / "demo"
    (skill / "a").mkdir(parents=True)
    (skill / "a" / "x.txt").write_text("1")
    (skill / "b").mkdir()
    (skill / "b" / "x.txt").write_text("2")
    cases = {
        f"../../../{outside.name}": "escapes the repository",
        "/etc/passwd": "is absolute",
        "evals/files/missing.txt": "is not a file",
    }
    for entry, words in cases.items():
        assert words in errors(one_eval(tmp_path, files=[entry]))[0], entry
    assert "both stage to x.txt" in errors(one_eval(tmp_path, files=["a/x.txt", "b/x.txt"]))[0]
    assert "inline file content" in errors(one_eval(tmp_path, files=[{"a": "b"}]))[0]
    # Inside the repository but outside the skill is allowed: the path is the author's choice.
    assert only_case(one_eval(tmp_path, files=["../../secret.txt"])).files[0].dest == "secret.txt"


# --- guided conversations ---------------------------------------------------------------------


ROUNDS = [
    {"role": "planner", "phase": "1-2", "prompt": "Frame it and ask questions."},
    {"role": "user", "response": "Slice 1, please."},
    {"role": "planner", "phase": "3-4", "prompt": "Write the spec to response.md"},
]


def guided(root: Path, **fields: Any) -> LoadResult:
    entry = {"id": "g", "mode": "guided-conversation", "rounds": ROUNDS, **fields}
    return load_data(root, {"evals": [entry]})


def test_guided__rounds_run_as_one_prompt_with_warning(tmp_path: Path) -> None:
    result = guided(tmp_path, structural_expectations=[{"type": "no_errors"}])
    case = only_case(result)
    order = [
        case.prompt.index("## Round 1 (planner, phase 1-2)"),
        case.prompt.index("Frame it and ask questions."),
        case.prompt.index("## The user's reply\n\nSlice 1, please."),
        case.prompt.index("## Round 2 (planner, phase 3-4)"),
        case.prompt.index("Write the spec to response.md"),
    ]
    assert order == sorted(order)
    assert case.messages == ()
    assert case.extra.mode == "guided-conversation"
    assert [r["role"] for r in case.extra.rounds] == ["planner", "user", "planner"]
    (warning,) = warnings(result)
    assert "evals[0].rounds" in warning and "3 rounds run as one prompt" in warning


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"rounds": []}, "non-empty list"),
        ({"rounds": [{"role": "bot", "prompt": "x"}]}, 'role must be "planner" or "user"'),
        ({"rounds": [{"role": "planner"}]}, "prompt is required"),
        ({"rounds": [ROUNDS[0], ROUNDS[1]]}, "last round must be a planner round"),
        ({"prompt": "also"}, "either prompt or rounds"),
    ],
)
def test_guided__validation(tmp_path: Path, fields: dict[str, Any], words: str) -> None:
    result = guided(tmp_path, **fields)
    assert result.suite is None
    assert any(words in e for e in errors(result)), errors(result)


def test_guided__mode_without_rounds(tmp_path: Path) -> None:
    result = load_data(tmp_path, {"evals": [{"id": 1, "mode": "guided-conversation"}]})
    assert "needs its rounds list" in errors(result)[0]


# --- JSON Schema ------------------------------------------------------------------------------

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "schemas" / "skill-evaluator.schema.json").read_text()
)


def test_schema__valid_draft_2020_12_and_corpus_validates(corpus_dir: Path) -> None:
    Draft202012Validator.check_schema(SCHEMA)
    paths = sorted((corpus_dir / "skill-evaluator").glob("*evals.json"))
    assert len(paths) == 2
    for path in paths:
        found = [e.message for e in Draft202012Validator(SCHEMA).iter_errors(read(path).data)]
        assert found == [], path.name


@pytest.mark.parametrize(
    "entry",
    [
        {"id": 1, "prompt": "p", "structural_expectations": [{"type": "file_size"}]},
        {"id": 1, "prompt": "p", "structural_expectations": [{"type": "file_exists"}]},
        {"id": 1, "prompt": "p", "structural_expectations": [{"type": "file_contains"}]},
        {"id": 1, "prompt": "p", "structural_expectations": [{"type": "custom_script"}]},
        {"id": 1, "prompt": "p", "quality_rubric": {"dimensions": [{"weight": 0}]}},
        {"id": 1, "prompt": "p", "quality_rubric": {"dimensions": [{"scoring": {"7": "x"}}]}},
        {"id": 1, "prompt": "p", "rounds": ROUNDS},
        {"id": True, "prompt": "p"},
        {"id": 1},
    ],
)
def test_schema__rejects_what_the_loader_rejects(tmp_path: Path, entry: dict[str, Any]) -> None:
    data = {"evals": [entry]}
    assert load_data(tmp_path, data).suite is None
    assert not Draft202012Validator(SCHEMA).is_valid(data)


def test_ids__duplicate_reported_even_when_the_first_eval_is_invalid(tmp_path: Path) -> None:
    bad = {"id": "a", "prompt": "p", "structural_expectations": [{"type": "nope"}]}
    result = load_data(tmp_path, {"evals": [bad, {"id": "a", "prompt": "q"}]})
    found = errors(result)
    assert len(found) == 2
    assert "unknown structural type" in found[0] and "duplicate eval id 'a'" in found[1]


def test_structural__null_pattern_means_default_and_bad_pattern_type_errors(tmp_path: Path) -> None:
    item = check(tmp_path, {"type": "file_count", "pattern": None})
    assert item.params.pattern == "*"
    result = one_eval(tmp_path, structural_expectations=[{"type": "file_count", "pattern": 5}])
    assert "structural_expectations[0].pattern: must be a string" in errors(result)[0]


# --- robustness -------------------------------------------------------------------------------

_KEYS = [
    "id", "prompt", "type", "pattern", "match", "match_any", "match_regex", "except_context",
    "count", "operator", "script", "critical", "dimensions", "weight", "scoring", "anchors",
    "rounds", "role", "response", "files", "mode", "structural_expectations", "quality_rubric",
    "rubric", "expectations", "eval_config", "runs_per_eval", "structural_gate", "evals",
]  # fmt: skip
_SCALARS = st.none() | st.booleans() | st.integers(-3, 9) | st.floats(-2, 9) | st.text(max_size=6)
_VALUES = st.recursive(
    _SCALARS | st.sampled_from(["file_exists", "file_contains", "planner", "user", "*.md"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_KEYS), inner),
    max_leaves=25,
)


@settings(max_examples=100, deadline=None)
@given(data=st.dictionaries(st.sampled_from(_KEYS), _VALUES, max_size=6))
def test_load__never_raises_on_arbitrary_documents(data: dict[str, Any]) -> None:
    root = Path(__file__).resolve().parent  # nothing is written: only existence checks
    doc = Document(path=root / "evals" / "evals.json", rel="evals/evals.json", data=data)
    result = load(doc, LoadContext(root=root, skill=Skill("demo", None)))
    assert result.ok or result.suite is None
    assert all(p.message for p in result.problems)
