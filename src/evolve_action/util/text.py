"""Cutting text to a byte budget without splitting a character.

Model output, tool arguments and evidence are quoted in prompts, results files and comments
whose limits are in bytes (GitHub's comment limit, our record sizes); cutting by characters
would overshoot on non-ASCII text and cutting raw bytes would leave invalid UTF-8.
"""

from __future__ import annotations


def cut_bytes(text: str, limit: int) -> str:
    """The first `limit` UTF-8 bytes of `text`, never splitting a character."""
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    return raw[:limit].decode("utf-8", errors="ignore")
