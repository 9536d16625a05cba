"""Text for people: cutting to a byte budget without splitting a character, and the name of a
JSON value's kind for messages.

Model output, tool arguments and evidence are quoted in prompts, results files and comments
whose limits are in bytes (GitHub's comment limit, our record sizes); cutting by characters
would overshoot on non-ASCII text and cutting raw bytes would leave invalid UTF-8.
"""

from __future__ import annotations

from typing import Any


def cut_bytes(text: str, limit: int) -> str:
    """The first `limit` UTF-8 bytes of `text`, never splitting a character."""
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    return raw[:limit].decode("utf-8", errors="ignore")


def json_kind(value: Any) -> str:
    """What kind of JSON (or YAML) value this is, as a message names it: "a string", "null".

    The one wording for every reader of a file we did not write (config, results); the
    loaders under `formats/` still carry their own copies, to be folded in here."""
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
