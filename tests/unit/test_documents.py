from __future__ import annotations

from pathlib import Path

import pytest

from evolve_action.formats.documents import DocumentError, pointer, read

DOC_JSON = '{\n  "evals": [\n    {"id": 1, "prompt": "hi", "flag": "no"}\n  ]\n}\n'
DOC_JSONC = (
    '{\n  // a comment\n  "evals": [\n    {"id": 1, "prompt": "hi", "flag": "no",},\n  ],\n}\n'
)
DOC_YAML = 'evals:\n  - id: 1\n    prompt: hi\n    flag: "no"\n'


@pytest.mark.parametrize(
    ("name", "text"), [("a.json", DOC_JSON), ("a.jsonc", DOC_JSONC), ("a.yaml", DOC_YAML)]
)
def test_read__same_document_in_every_syntax(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    doc = read(path, name)
    assert doc.data == {"evals": [{"id": 1, "prompt": "hi", "flag": "no"}]}
    assert doc.line("evals", 0, "prompt") in (3, 4)


def test_read__yaml_12_core_semantics(tmp_path: Path) -> None:
    path = tmp_path / "e.yaml"
    path.write_text(
        "base: &b\n  shared: 1\n"
        "items:\n  - a: no\n    b: on\n    c: yes\n    d: '3.0'\n    e: 2026-01-01\n"
        "    f: 1.0\n    g: true\n    h: ~\n    <<: *b\n"
    )
    item = read(path, "e.yaml").data["items"][0]
    assert item == {
        "shared": 1,
        "a": "no",
        "b": "on",
        "c": "yes",
        "d": "3.0",
        "e": "2026-01-01",
        "f": 1,
        "g": True,
        "h": None,
    }


def test_read__yaml_non_string_key_is_an_error_with_line(tmp_path: Path) -> None:
    path = tmp_path / "e.yaml"
    path.write_text("ok: 1\n1: x\n")
    with pytest.raises(DocumentError) as info:
        read(path, "evals/e.yaml")
    assert info.value.line == 2
    assert "evals/e.yaml:2" in str(info.value)


def test_read__json_with_comment_hints_at_jsonc(tmp_path: Path) -> None:
    path = tmp_path / "evals.json"
    path.write_text('{\n  // no\n  "evals": []\n}\n')
    with pytest.raises(DocumentError) as info:
        read(path, "evals.json")
    assert info.value.line == 2
    assert ".jsonc" in info.value.message


def test_pointer() -> None:
    assert pointer("evals", 2, "assertions", 0, "pattern") == "evals[2].assertions[0].pattern"
    assert pointer() == ""
