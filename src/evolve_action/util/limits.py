"""The limits on what a repository's files may ask of a reader, each written once.

Eval files, `.evolve.*` configs, trigger files and SKILL.md front matter come from pull
requests, so a file may be built to hurt: a YAML alias bomb (nine levels of ten aliases is a
billion values from 200 bytes), a 10 MB string, a thousand nested brackets, an integer of
5,000 digits (Python refuses to convert those to text, and no eval-file reader can hold one).
Every reader checks the same limits here and refuses with `InputError`, whose message says
what was found and what to do; the caller adds the file name.

The limits are far above real eval files (the largest in our corpus of 1,300 is 190 KB, some
5,000 values, nested 12 deep), and low enough that `validate` stays under 200 MB and a few
seconds on anything within them (bench/validate_limits.py).
"""

from __future__ import annotations

import re
import sys

MAX_BYTES = 16 * 1024 * 1024  # one document; the size check happens before reading it
MAX_VALUES = 200_000  # values in one document, every alias counted as what it expands to
MAX_DEPTH = 100  # nested objects and arrays
MAX_PROBLEMS = 1000  # reported for one document; the rest are counted
# Tokens a JSON reader scans (strings, keys, brackets, comments): a document within the value
# limit has fewer, and past it, the count alone says the file is over.
MAX_TOKENS = 3 * MAX_VALUES
MAX_JSON5_BYTES = 256 * 1024  # JSONC beyond comments and trailing commas: json5, ~8 s a MB
# Readers of these formats (Go's and JavaScript's JSON, Python's float) hold numbers as
# doubles; an integer past the largest double is no number any of them can read.
MAX_INT_DIGITS = len(str(int(sys.float_info.max)))  # 309
# A file's text written inline in an eval file (skill-validator's `content`), staged into the
# workspace: per file, and per case, since YAML aliases can repeat one text in many entries
# (the largest in our corpus is 4 KB).
MAX_INLINE_FILE_BYTES = 1024 * 1024
MAX_INLINE_CASE_BYTES = 16 * 1024 * 1024


class InputError(Exception):
    """The input is over a limit or unreadable; `line` is where, when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def check_size(size: int) -> None:
    """Refuse a document over `MAX_BYTES` before it is read."""
    if size > MAX_BYTES:
        raise InputError(
            f"the file is {_mib(size)}, over the {_mib(MAX_BYTES)} limit for one document;"
            " split it into smaller files",
            1,
        )


def too_many_values(line: int | None) -> InputError:
    return InputError(
        f"the document has more than {MAX_VALUES:,} values (YAML aliases count as what they"
        " repeat); split it into smaller files or use fewer aliases",
        line,
    )


def too_many_tokens(line: int | None) -> InputError:
    return InputError(
        f"the document has more than {MAX_TOKENS:,} strings, keys, brackets and comments;"
        " split it into smaller files",
        line,
    )


def too_deep(line: int | None) -> InputError:
    return InputError(
        f"the document nests objects and arrays more than {MAX_DEPTH} deep; flatten it",
        line,
    )


def integer(text: str, line: int | None, base: int = 10) -> int:
    """`text` as an int, or `InputError` when no eval-file reader could hold the number.

    The digits are counted before converting: Python itself refuses to convert more than
    4,300 decimal digits, and the work grows with the square of their number.
    """
    digits = text.lstrip("+-").replace("_", "").lstrip("0")
    if base == 10 and len(digits) > MAX_INT_DIGITS:
        raise _huge(len(digits), line)
    value = int(text, base)
    check_integer(value, line)
    return value


def check_integer(value: int, line: int | None) -> None:
    """`InputError` for an int past the largest double (whatever parser made it)."""
    if abs(value) > sys.float_info.max:
        raise _huge(int(value.bit_length() * 0.30103) + 1, line)  # never str(): it may refuse


def _huge(digits: int, line: int | None) -> InputError:
    return InputError(
        f"a number of about {digits:,} digits is larger than any eval-file reader can hold"
        " (1.8e308 at most); quote it if it is text",
        line,
    )


_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogate(text: str) -> bool:
    """Whether `text` holds a lone surrogate (JSON's `"\\ud800"` escape decodes to one)."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def replace_surrogates(text: str) -> str:
    """Lone surrogates are not Unicode text and cannot be written as UTF-8; they become
    U+FFFD, as Go's encoding/json (evolve's reader) decodes them."""
    return _SURROGATE.sub("\ufffd", text) if has_surrogate(text) else text
