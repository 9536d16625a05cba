"""A JSON eval file that does not parse says what most likely broke it, at the line to fix:
a trailing comma (at the comma's line), a comment, single quotes, a bare key, a missing comma,
an empty file."""

from __future__ import annotations

import pytest

from evolve_action.formats.documents_json import parse_jsonl, parse_text
from evolve_action.util.limits import InputError

CASES = [
    (
        '{"evals": [\n  {"id": 1},\n]\n}\n',
        2,
        "(likely a trailing comma before `]`: JSON allows none; remove it; or name the file"
        " .jsonc)",
    ),
    ('{"a": 1,\n}', 1, "(likely a trailing comma before `}`"),
    ('{"a": 1, // why\n "b": 2}', 1, "(likely a comment: JSON has none"),
    ("{'a': 1}", 1, "(likely single quotes: JSON strings and keys take double quotes)"),
    ('{\n  skill_name: "x"\n}', 2, "(likely a key without quotes"),
    ('{"a": 1\n "b": 2}', 1, "(likely a missing comma between two values"),
    ('{"a": 1}\n}', 2, "(likely more than one value"),
    ('{"a": "open\n}', 1, "(likely a raw line break or tab inside a string"),
    ('{"a": [1, 2', 1, "(likely the document ends early"),
    ("", 1, "the file is empty; write a JSON document in it"),
    ("  \n\n", 1, "the file is empty"),
]


@pytest.mark.parametrize(("text", "line", "words"), CASES)
def test_invalid_json_names_its_likely_cause_at_the_right_line(
    text: str, line: int, words: str
) -> None:
    with pytest.raises(InputError) as caught:
        parse_text(text, lenient=False)
    assert words in str(caught.value)
    assert caught.value.line == line


def test_a_jsonc_file_does_not_send_the_reader_to_jsonc() -> None:
    big = '{"a": [' + ", ".join(["1"] * 100_000) + ", 'x']}"
    with pytest.raises(InputError) as caught:
        parse_text(big, lenient=True)
    message = str(caught.value)
    assert "single quotes" in message and "name the file .jsonc" not in message


def test_a_jsonl_row_names_its_cause_too() -> None:
    with pytest.raises(InputError) as caught:
        parse_jsonl('{"a": 1}\n{"b": 2,}\n')
    assert caught.value.line == 2 and "trailing comma" in str(caught.value)
