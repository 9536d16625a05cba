"""Text for people: cutting to a byte budget without splitting a character, escaping what
cannot be shown, and the name of a JSON value's kind for messages.

Model output, tool arguments and evidence are quoted in prompts, results files and comments
whose limits are in bytes (GitHub's comment limit, our record sizes); cutting by characters
would overshoot on non-ASCII text and cutting raw bytes would leave invalid UTF-8.
"""

from __future__ import annotations

import re
from typing import Any


def cut_bytes(text: str, limit: int) -> str:
    """The first `limit` UTF-8 bytes of `text`, never splitting a character."""
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    return raw[:limit].decode("utf-8", errors="ignore")


# Control characters (C0, DEL, C1), lone surrogates, and the characters that reorder or break
# a line on screen (bidirectional overrides and isolates, Unicode's line and paragraph
# separators): in a terminal or a CI log they could hide text, forge a line, or, for
# surrogates, not be written at all (they are not encodable as UTF-8).
_UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\ud800-\udfff\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]"
)


def printable(text: str) -> str:
    """`text` with unprintable characters written as escapes (`\\x1b`, `\\ud800`), so that
    quoting a file's content or name in output can neither fail nor forge what is shown."""
    if text.isprintable() and text.isascii():
        return text
    return _UNPRINTABLE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def json_kind(value: Any) -> str:
    """What kind of JSON (or YAML) value this is, as a message names it: "a string", "null".

    The one wording for every reader of a file we did not write: config, results and every
    format's loader."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    return "a mapping"


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 eval`, `3 evals`; `many` for an irregular plural."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def pct(rate: float) -> str:
    """A rate as a percentage, with a decimal only where it matters (62.5%, 70%)."""
    text = f"{rate * 100:.1f}".removesuffix(".0")
    return f"{text}%"
