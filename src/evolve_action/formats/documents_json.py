"""JSON, JSONC and JSON Lines text into JSON-model data and the line of every value.

The data comes from the standard library's parser (C, linear); `.jsonc` loses its comments
and trailing commas first, and only what is still not JSON goes to json5 (pure Python, about
8 s a megabyte, so only in files up to `MAX_JSON5_BYTES`). The line of each value comes
from a walk over the tokens (`line_map`), which runs before the parser: it is where the
value and nesting limits are checked, so a document over them costs nothing to refuse.
A parse error names its likely cause (a trailing comma, a comment, an empty file:
`likely_cause`). The parser's hooks refuse numbers no reader can hold, and after parsing, one pass
(`settled`, only when the text has a `\\udXXX` escape) turns lone surrogates into U+FFFD.
Everything here raises `InputError` with the line.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

from evolve_action.util import limits
from evolve_action.util.limits import InputError

JsonPath = tuple[str | int, ...]


def parse_json(text: str) -> Any:
    """JSON held in a string of a document (agentv's expected output), read within the same
    limits as a document; `InputError` when it is not JSON or is over one."""
    line_map(text)
    if not text.strip():
        raise InputError("invalid JSON: the text is empty")
    return settled(parse_text(text, lenient=False), text)


def parse_text(text: str, *, lenient: bool) -> Any:
    """JSON; for `.jsonc`, comments and trailing commas too, and JSON5 in files up to 256 KB."""
    kind = "JSONC" if lenient else "JSON"
    if not text.strip():
        raise InputError(f"invalid {kind}: the file is empty; write a JSON document in it", 1)
    source = _strip_jsonc(text) if lenient else text
    try:
        return _loads(source)
    except json.JSONDecodeError as exc:
        if lenient and len(text) <= limits.MAX_JSON5_BYTES:
            return _parse_json5(text)
        hint, line = likely_cause(source, exc, lenient=lenient)
        if lenient:  # past JSON5's limit, the unquoted keys and the like are not taken either
            hint += (
                f" (a .jsonc file over {limits.MAX_JSON5_BYTES // 1024} KB may add only"
                " comments and trailing commas to JSON)"
            )
        raise InputError(f"invalid {kind}: {exc.msg}{hint}", line) from exc
    except RecursionError as exc:
        raise InputError("invalid JSON: nested too deeply") from exc


_JSONC = "; or name the file .jsonc"


def likely_cause(text: str, exc: json.JSONDecodeError, *, lenient: bool) -> tuple[str, int]:
    """What most often makes the parser stop where it did, in words (" (likely …)"), and the
    line to point at: a trailing comma's own line, not the bracket's after it."""
    before = text[: exc.pos].rstrip()
    here = text[exc.pos : exc.pos + 2]
    jsonc = "" if lenient else _JSONC
    cause, line = "", exc.lineno
    end_of_before = text.count("\n", 0, len(before)) + 1
    if not text[exc.pos :].strip():
        cause = "the document ends early: a value or a closing bracket is missing"
    elif here[:1] in ("}", "]") and before.endswith(","):
        line = end_of_before
        cause = f"a trailing comma before `{here[0]}`: JSON allows none; remove it{jsonc}"
    elif here in ("//", "/*"):
        cause = f"a comment: JSON has none; remove it{jsonc}"
    elif here[:1] == "'":
        cause = "single quotes: JSON strings and keys take double quotes"
    elif exc.msg.startswith("Expecting property name") and (here[:1].isalpha() or here[:1] == "_"):
        cause = "a key without quotes: JSON keys take double quotes"
    elif exc.msg.startswith("Expecting ',' delimiter"):
        line = end_of_before
        cause = "a missing comma between two values, at the end of this line"
    elif exc.msg.startswith("Extra data"):
        cause = "more than one value: something after the end of the document (a stray bracket?)"
    elif exc.msg.startswith("Unterminated string"):
        cause = 'a string with no closing `"`'
    elif exc.msg.startswith("Invalid control character"):
        cause = "a raw line break or tab inside a string: write \\n or \\t"
    return (f" (likely {cause})" if cause else ""), line


def _loads(text: str) -> Any:
    try:
        return json.loads(text, **_hooks(text))
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise
        raise InputError(f"invalid JSON: {exc}") from exc


def _parse_json5(text: str) -> Any:
    import json5  # pure Python and about 30 ms to import: only some `.jsonc` files need it

    try:
        return json5.loads(text, **_hooks(text))
    except InputError:
        raise
    except ValueError as exc:
        msg = str(exc)
        match = re.search(r":(\d+)\b", msg)
        line = int(match.group(1)) if match else None
        raise InputError(f"invalid JSONC: {msg}", line) from exc
    except RecursionError as exc:
        raise InputError("invalid JSONC: nested too deeply") from exc


def _hooks(text: str) -> dict[str, Any]:
    """Parser hooks that refuse, at their line, numbers no reader can hold (an integer past
    the largest double, a float that overflows to infinity) and the constants (`NaN`,
    `Infinity`) that JSON does not have."""

    def line_of(token: str) -> int:
        return text.count("\n", 0, max(text.find(token), 0)) + 1

    def parse_int(digits: str, base: int = 10) -> int:  # json5 passes base=16 for hex
        try:
            return limits.integer(digits, None, base)
        except InputError as exc:
            exc.line = line_of(digits)
            raise

    def parse_float(number: str) -> float:
        value = float(number)
        if not math.isfinite(value):
            message = f"the number {number[:40]} is out of range (not JSON-representable)"
            raise InputError(f"{message}; use a smaller one", line_of(number))
        return value

    def parse_constant(name: str) -> Any:
        message = f"invalid JSON: {name} is not a JSON value; write a number or a string"
        raise InputError(message, line_of(name))

    return {"parse_int": parse_int, "parse_float": parse_float, "parse_constant": parse_constant}


# Tokens that always match once begun: a string runs to its closing quote or to the end of
# its line, a comment to its end or to the end of the text. So nothing is scanned twice
# (`/*/*/*...` never closing would otherwise cost the square of its length), and the repeats
# are possessive (`*+`): a repeat that may backtrack keeps state for every repetition, which
# turned a 10 MB string of escapes into 600 MB.
_STRING = r""""(?:[^"\\\n]++|\\[\s\S]?)*+"?|'(?:[^'\\\n]++|\\[\s\S]?)*+'?"""
_COMMENT = r"//[^\n]*+|/\*[\s\S]*?(?:\*/|\Z)"
_COMMENTS = re.compile(f"(?P<string>{_STRING})|{_COMMENT}")
_TRAILING_COMMA = re.compile(rf"(?P<string>{_STRING})|,(?=\s*+[}}\]])")


def _strip_jsonc(text: str) -> str:
    """JSONC as JSON: comments become blanks (newlines kept, so lines stay), then trailing
    commas go. Linear, unlike json5; what is not JSON after this goes to json5. Each pass
    stops at `MAX_TOKENS` matches, as the line map does."""
    count = [0]

    def counted(match: re.Match[str]) -> None:
        count[0] += 1
        if count[0] > limits.MAX_TOKENS:
            raise limits.too_many_tokens(text.count("\n", 0, match.start()) + 1)

    def blank(match: re.Match[str]) -> str:
        counted(match)
        if match.group("string") is not None:
            return match.group()
        return re.sub(r"[^\n]+", lambda m: " " * len(m.group()), match.group())

    def drop(match: re.Match[str]) -> str:
        counted(match)
        return match.group() if match.group("string") is not None else ""

    stripped = _COMMENTS.sub(blank, text)
    count[0] = 0
    return _TRAILING_COMMA.sub(drop, stripped)


# Only text with a `\\udXXX` escape can decode to a lone surrogate (UTF-8 text cannot hold one).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def settled(data: Any, text: str) -> Any:
    """`data` (parsed from `text`) with its lone surrogates as U+FFFD, keys included.

    One pass with an explicit stack, and only when `text` has such an escape; it builds
    nothing unless a key holds a surrogate.
    """
    if _SURROGATE_ESCAPE.search(text) is None:
        return data
    if isinstance(data, str):
        return limits.replace_surrogates(data)
    todo: list[Any] = [data] if isinstance(data, (dict, list)) else []
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            if any(limits.has_surrogate(key) for key in node):
                renamed = [(limits.replace_surrogates(k), v) for k, v in node.items()]
                node.clear()
                node.update(renamed)
            pairs: Any = list(node.items())
        else:
            pairs = enumerate(node)
        for key, value in pairs:
            if isinstance(value, (dict, list)):
                todo.append(value)
            elif isinstance(value, str) and limits.has_surrogate(value):
                node[key] = limits.replace_surrogates(value)
    return data


# Commas and colons are not matched: in text a real parser accepted, the next token alone
# says whether a key, a value or a closing bracket comes.
_STRUCTURE = re.compile(
    rf"""
    {_COMMENT}                                # comments (skipped)
  | {_STRING}
  | [{{}}\[\]]
  | [^\s\ufeff{{}}\[\]:,"'/]+|/               # numbers, literals, JSON5 identifiers
    """,
    re.VERBOSE,
)


def line_map(text: str, counted: list[int] | None = None) -> dict[JsonPath, int]:
    """Map every JSON path to its line by following the token stream (comments allowed).

    The data itself comes from a real parser; this walk only follows the structure, with an
    explicit stack rather than recursion, and on text it cannot follow it returns what it found.
    It runs before the parser, so that a document over the limits on values or nesting is
    refused (`InputError`, at the line) before anything is built for it. `counted` carries the
    count of values across calls (the rows of a `.jsonl` file).
    """
    count = counted if counted is not None else [0]
    lines: dict[JsonPath, int] = {}
    # One frame per open container: [path, slot]. The slot is an array's next index (int),
    # None for an object awaiting a key, or (key,) when the next token starts that key's value.
    stack: list[list[Any]] = []
    at: JsonPath = ()
    for tok, line in _tokens(text):
        first = tok[0]
        if stack:
            frame = stack[-1]
            slot = frame[1]
            if slot is None:  # an object, between members: its end, or a key
                if first == "}":
                    stack.pop()
                else:
                    plain = first == '"' and "\\" not in tok
                    name = tok[1:-1] if plain else _key_name(tok)
                    lines[(*frame[0], name)] = line
                    frame[1] = (name,)
                continue
            if type(slot) is int:
                if first == "]":
                    stack.pop()
                    continue
                at = (*frame[0], slot)
                frame[1] = slot + 1
            else:
                at = (*frame[0], slot[0])
                frame[1] = None
        elif lines:
            break  # past the end of the root value
        lines.setdefault(at, line)
        count[0] += 1
        if count[0] > limits.MAX_VALUES:
            raise limits.too_many_values(line)
        if first == "{" or first == "[":
            if len(stack) >= limits.MAX_DEPTH:
                raise limits.too_deep(line)
            stack.append([at, None if first == "{" else 0])
    return lines


def _tokens(text: str) -> Iterator[tuple[str, int]]:
    """The structural tokens of `text` with their lines, comments left out; `InputError`
    past the token limit (comments count: they cost the walk as much)."""
    line, seen = 1, 0
    for tokens, match in enumerate(_STRUCTURE.finditer(text), 1):
        start = match.start()
        line += text.count("\n", seen, start)
        seen = start
        if tokens > limits.MAX_TOKENS:
            raise limits.too_many_tokens(line)
        tok = match.group()
        if tok[0] != "/" or tok[1:2] not in ("/", "*"):
            yield tok, line


def _key_name(tok: str) -> str:
    """A key that is not a plain string (those the walk slices itself, being most keys): an
    escaped or single-quoted string, decoded, or a JSON5 identifier, as written."""
    return _decode_key(tok) if tok[0] == '"' or tok[0] == "'" else tok


def _decode_key(token: str) -> str:
    if token.startswith("'"):
        token = '"' + token[1:-1].replace('"', '\\"') + '"'
    try:
        decoded = json.loads(token)
    except ValueError:
        return token.strip("\"'")
    return limits.replace_surrogates(decoded) if isinstance(decoded, str) else token


def parse_jsonl(text: str) -> tuple[list[Any], dict[JsonPath, int]]:
    rows: list[Any] = []
    lines: dict[JsonPath, int] = {}
    counted = [0]
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            line_map(raw, counted)
            rows.append(settled(_loads(raw), raw))  # InputError's line: the row's
        except InputError as exc:
            exc.line = number
            raise
        except json.JSONDecodeError as exc:
            hint, _ = likely_cause(raw, exc, lenient=False)
            raise InputError(f"invalid JSON line: {exc}{hint}", number) from exc
        except ValueError as exc:
            raise InputError(f"invalid JSON line: {exc}", number) from exc
        lines[(len(rows) - 1,)] = number
    lines[()] = 1
    return rows, lines
