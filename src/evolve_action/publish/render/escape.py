"""Make untrusted text (model output, eval text, evidence) safe to quote in Markdown.

Quoted text must not be able to: inject raw HTML, close our `<details>`, ping people or
teams with `@mentions`, forge our hidden marker, break out of a table row, or run long.
Every piece of text that did not come from our own templates goes through `cell()` or
`inline()` before it reaches a template.
"""

from __future__ import annotations

import re

_MENTION = re.compile(r"(?<![\w`])@(?=[A-Za-z0-9])")
_WS = re.compile(r"\s+")
_TICKS = re.compile(r"`+")
ZWSP = "\u200b"


def shorten(text: str, limit: int) -> str:
    """Cut to `limit` characters on a word boundary where one is near, with an ellipsis.

    A cut inside a code span (the check "command `make test` exits 0" cut after "make") keeps its
    closing backticks, after the ellipsis: an open span would swallow the rest of the line.
    """
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 1, 0)]
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    cut = cut.rstrip()
    fence = open_fence(cut)
    if fence and text[len(cut) :].find(fence) >= 0:
        return cut + "…" + fence
    return cut + "…"


def open_fence(text: str) -> str:
    """The backtick run that opens a code span `text` leaves unclosed, or ""."""
    opened = ""
    for run in _TICKS.findall(text):
        if not opened:
            opened = run
        elif run == opened:
            opened = ""
    return opened


def inline(text: str, limit: int = 300) -> str:
    """One line of prose: HTML escaped, mentions and markers defused, newlines flattened."""
    flat = _WS.sub(" ", text).strip()
    flat = shorten(flat, limit)
    flat = flat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    flat = _MENTION.sub("@" + ZWSP, flat)
    # Image/link syntax could load remote content or fake a link to something else.
    flat = flat.replace("![", "!\\[").replace("](", "]\\(")
    return flat


def cell(text: str, limit: int = 200) -> str:
    """A table cell: `inline()` plus escaped pipes, so it cannot split the row."""
    return inline(text, limit).replace("|", "\\|")


def code(text: str, limit: int = 80) -> str:
    """Inline code span that survives backticks inside the text; for ids and commands."""
    flat = shorten(_WS.sub(" ", text).strip(), limit)
    flat = flat.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def marker(key: str) -> str:
    """The hidden HTML comment that identifies our sticky comment (one per key)."""
    safe = "".join(ch for ch in key if ch.isalnum() or ch in "-_.") or "default"
    return f"<!-- evolve:sticky key={safe} -->"
