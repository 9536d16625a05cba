"""The reading layer's limits and semantics: `util.yaml_reader`, JSONC without json5, numbers,
surrogates, and the escaping of what output quotes."""

from __future__ import annotations

from pathlib import Path

import pytest

from evolve_action.formats.documents import DocumentError, parse
from evolve_action.util import frontmatter, limits
from evolve_action.util.limits import InputError
from evolve_action.util.text import printable
from evolve_action.util.yaml_reader import load


def test_yaml__anchors_merges_and_lines() -> None:
    data, lines = load(
        "base: &b {x: 1, y: 2}\nmore: &m {y: 3, z: 4}\n"
        "one:\n  <<: *b\n  y: 9\n"
        "two:\n  <<: [*m, *b]\n"
        "list: [*b, *b]\n"
    )
    assert data["one"] == {"x": 1, "y": 9}  # explicit keys win over merged ones
    assert data["two"] == {"x": 1, "y": 3, "z": 4}  # earlier mappings in the list win
    assert data["list"][0] is data["list"][1]  # an alias is the value, not a copy
    assert lines[("one", "y")] == 5 and lines[("list", 1)] == 8


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a: yes", "yes"),
        ("a: 0x1F", 31),
        ("a: 0o17", 15),
        ("a: 1_000", "1_000"),  # YAML 1.2: not an int
        ("a: 2.0", 2),
        ("a: 2.5", 2.5),
        ("a: ~", None),
        ("a: 2026-01-01", "2026-01-01"),
        ("a: !!str 12", "12"),
        ("a: !local 12", "12"),
        ('a: "12"', "12"),
    ],
)
def test_yaml__core_schema_scalars(text: str, value: object) -> None:
    assert load(text)[0] == {"a": value}


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("a: 1\nb: &r [*r]\n", "recursive alias", 2),
        ("a: *nope\n", "no anchor", 1),
        ("a: !!int abc\n", "not a valid int", 1),
        ("a: .inf\n", "not JSON-representable", 1),
        ("a: 1\n---\nb: 2\n", "a second document", 2),
        ("? [a]\n: b\n", "not a string", 1),
        ("a: {<<: 1}\n", "merges a mapping", 1),
        ("a:\n  b: " + "9" * 400 + "\n", "400 digits", 2),
        ("a: 0x" + "f" * 300 + "\n", "digits is larger", 1),
        ("x: 1\na: " + "[" * 150 + "]" * 150 + "\n", "more than 100 deep", 2),
        ("a: \x07\n", "#x0007 is not allowed", 1),
    ],
)
def test_yaml__refusals_say_what_and_where(text: str, message: str, line: int) -> None:
    with pytest.raises(InputError) as info:
        load(text)
    assert message in info.value.message and info.value.line == line


def test_yaml__an_alias_counts_as_what_it_repeats_and_as_deep_as_it_nests() -> None:
    bomb = "a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]\n" + "".join(
        f"b{i}: &b{i} [" + ", ".join([f"*{'a' if i == 0 else f'b{i - 1}'}"] * 10) + "]\n"
        for i in range(6)
    )
    with pytest.raises(InputError) as info:
        load(bomb)
    assert "200,000 values" in info.value.message and info.value.line == 6
    deep = "a: &a " + "[" * 60 + "]" * 60 + "\nb: " + "[" * 50 + "*a" + "]" * 50 + "\n"
    with pytest.raises(InputError, match="100 deep"):
        load(deep)


def test_json__limits_with_lines(tmp_path: Path) -> None:
    def fails(name: str, text: str) -> DocumentError:
        with pytest.raises(DocumentError) as info:
            parse(text, path=tmp_path / name, rel=name)
        return info.value

    assert fails("a.json", '{\n"a": ' + "[" * 101 + "]" * 101 + "}").line == 2
    assert fails("a.json", '{\n\n"a": ' + "9" * 5000 + "}").line == 3
    assert fails("a.json", '{"a":\n NaN}').line == 2
    assert fails("a.json", '{"a": 1e999}').message.startswith("the number 1e999 is out of range")
    assert fails("a.jsonl", '{"a": 1}\n{"b": ' + "9" * 400 + "}\n").line == 2
    many = "[" + ",".join(["0"] * (limits.MAX_VALUES + 1)) + "]"
    assert "values" in fails("a.json", many).message
    hex_jsonc = "{a: 0x" + "f" * 300 + "}"  # unquoted key: json5 reads it
    assert "digits is larger" in fails("a.jsonc", hex_jsonc).message


def test_jsonc__comments_and_trailing_commas_without_json5_keep_lines(tmp_path: Path) -> None:
    text = (
        '{\n  // a comment\n  "a": "keep // this, and /* this */",\n'
        '  /* a\n  block */ "b": [1, 2, /* c */ ],\n  "c": {"d": 1,  // x\n  },\n}\n'
    )
    doc = parse(text, path=tmp_path / "a.jsonc", rel="a.jsonc")
    assert doc.data == {"a": "keep // this, and /* this */", "b": [1, 2], "c": {"d": 1}}
    assert doc.line("b") == 5 and doc.line("c", "d") == 6


def test_jsonc__json5_beyond_its_size_limit_is_refused_with_a_hint(tmp_path: Path) -> None:
    text = "{a: '" + "x" * limits.MAX_JSON5_BYTES + "'}"
    with pytest.raises(DocumentError) as info:
        parse(text, path=tmp_path / "a.jsonc", rel="a.jsonc")
    assert "comments and trailing commas" in info.value.message


def test_surrogates_become_replacement_characters(tmp_path: Path) -> None:
    text = '{"\\ud800k": ["\\udc80", {"x": "a\\ud83d\\ude00"}]}'
    doc = parse(text, path=tmp_path / "a.json", rel="a.json")
    assert doc.data == {"\ufffdk": ["\ufffd", {"x": "a\U0001f600"}]}
    assert doc.line("\ufffdk", 1, "x") == 1


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    from evolve_action.formats.documents import read

    path = tmp_path / "evals.json"
    with path.open("wb") as handle:
        handle.truncate(limits.MAX_BYTES + 1)  # sparse: costs no disk
    with pytest.raises(DocumentError) as info:
        read(path, "evals.json")
    assert info.value.line == 1 and "split it" in info.value.message


def test_front_matter_reads_through_the_same_limits() -> None:
    assert frontmatter.fields("---\nname: a\nflag: yes\n---\nbody") == {"name": "a", "flag": "yes"}
    assert frontmatter.fields("---\nname: " + "9" * 5000 + "\n---\n") == {}
    assert frontmatter.fields("---\nname: a\n") == {}  # never closed
    assert frontmatter.split("---\nname: a\n---\nbody\n") == ("name: a\n", "body\n")


def test_printable_escapes_controls_surrogates_and_reordering() -> None:
    assert printable("ok é ✓") == "ok é ✓"
    assert printable("a\x1b[2J\n\ud800\u202e") == "a\\x1b[2J\\x0a\\ud800\\u202e"


def test_problems_past_the_limit_are_counted_in_one_last_problem(tmp_path: Path) -> None:
    from evolve_action.formats.base import Problems
    from evolve_action.model.evals import Severity

    doc = parse('{"evals": []}', path=tmp_path / "a.json", rel="a.json")
    problems = Problems(doc)
    for i in range(limits.MAX_PROBLEMS + 5):
        problems.warn(("evals",), f"w{i}")
    assert len(problems.items) == limits.MAX_PROBLEMS + 1
    assert problems.items[-1].severity is Severity.WARNING
    assert problems.items[-1].message.startswith("5 more problems are not shown")
    problems.error(("evals",), "bad")
    assert problems.items[-1].severity is Severity.ERROR  # a file with errors still fails
    assert "6 more problems (1 of them errors)" in problems.items[-1].message
    assert (problems.count, problems.errors, problems.has_errors) == (1006, 1, True)
