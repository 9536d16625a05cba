"""The literal part of a TypeScript or JavaScript module: its exported object, never run.

AXIS configs (`axis.config.ts`) and scenarios are often `export default { name: "...",
prompt: "...", judge: [{ check: "..." }], setup: helper(), variants: helper() } satisfies
ScenarioInput;`. Nothing here runs
the module: a small reader takes the object after `export default` and keeps the values
that are plain literals (strings, `+`-joined strings, template strings without `${}`,
numbers, booleans, arrays and objects of them, and an array of strings joined by
`.join("...")`). The object may also be wrapped in a call
(`defineScenario({...})`), be CommonJS's `module.exports`, or be a variable the module exports
by name. A value written as code (a call, a variable)
becomes `CODE`, so the loader can say what it did not read. Any surprise gives None: the
scenario is then reported as not read, never guessed.
"""

from __future__ import annotations

import re
from typing import Any

SUFFIXES = (".ts", ".mts", ".cts", ".js", ".mjs", ".cjs")
CODE_KEY = "$code"  # in a document read from a module: the fields written as code
EXPORT = "export"  # under CODE_KEY: the export itself is code
CODE = object()  # a value that is code, not a literal
MAX_TEXT = 256 * 1024
MAX_DEPTH = 20

# Where the scenario object starts: `export default {`, a wrapping call such as
# `export default defineScenario({`, CommonJS `module.exports = {`, or a variable the module
# exports by name (`const scenario: Scenario = {...}; export default scenario;`).
_CALL = r"(?:[A-Za-z_$][\w$.]*\s*(?:<[^<>()]*>)?\s*\(\s*)?"
_STARTS = (
    re.compile(r"export\s+default\s*" + _CALL + r"(?=\{)"),
    re.compile(r"module\.exports\s*=\s*" + _CALL + r"(?=\{)"),
)
_NAMED = re.compile(r"export\s+default\s+([A-Za-z_$][\w$]*)\s*(?:satisfies\s+\w+\s*)?;?\s*$", re.M)
_TOKEN = re.compile(
    r"""\s+|//[^\n]*|/\*.*?\*/"""  # space and comments
    r"""|(?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\$]|\\.|\$(?!\{))*`)"""
    r"""|(?P<num>-?\d+(?:\.\d+)?)"""
    r"""|(?P<name>[A-Za-z_$][\w$]*)"""
    r"""|(?P<punct>\.\.\.|[{}\[\](),:+.?!<>=&|*/%-])""",
    re.DOTALL,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "`": "`"}


def default_export(text: str) -> dict[str, Any] | None:
    """The literal fields of the module's `export default {...}`, or None."""
    if len(text) > MAX_TEXT:
        return None
    start = _start(text)
    if start is None:
        return None
    tokens = _tokens(text[start:])
    if tokens is None:
        return None
    reader = _Reader(tokens)
    try:
        value = reader.value(0)
    except (IndexError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def document(text: str) -> tuple[dict[str, Any], dict[tuple[str | int, ...], int]]:
    """A module as a document: the literal fields of its exported object, and under `$code`
    the names of the fields written as code (left out); `{"$code": ["export"]}` when the
    module exports no literal object at all."""
    found = default_export(text)
    if found is None:  # the whole export is code: a document with nothing literal in it
        return {CODE_KEY: [EXPORT]}, {}
    start = _start(text) or 0
    coded: list[str] = []
    data: dict[str, Any] = _plain(found, "", coded)
    if coded:
        data[CODE_KEY] = coded
    return data, {(): text.count("\n", 0, start) + 1}


def _plain(value: Any, at: str, coded: list[str]) -> Any:
    """A literal value with the code inside it left out, each left-out field's path (such as
    `judging.agents[0].model`) added to `coded`; a list keeps its literal items."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            where = f"{at}.{key}" if at else key
            if item is CODE:
                coded.append(where)
            else:
                out[key] = _plain(item, where, coded)
        return out
    if isinstance(value, list):
        if any(v is CODE for v in value):
            coded.append(f"{at}[…]")
        return [_plain(v, f"{at}[{i}]", coded) for i, v in enumerate(value) if v is not CODE]
    return value


def _start(text: str) -> int | None:
    """Where the exported object literal's `{` is, or None."""
    for pattern in _STARTS:
        found = pattern.search(text)
        if found is not None:
            return found.end()
    named = _NAMED.search(text)
    if named is None:
        return None
    name = re.escape(named.group(1))
    bound = re.search(rf"(?:const|let|var)\s+{name}\s*(?::[^=]*)?=\s*{_CALL}(?=\{{)", text)
    return bound.end() if bound is not None else None


def _template(text: str, pos: int) -> int | None:
    """The end of a template string with `${...}` parts starting at `pos`, or None."""
    depth, i = 0, pos + 1
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if depth == 0 and char == "`":
            return i + 1
        if char == "$" and text.startswith("${", i):
            depth += 1
            i += 2
            continue
        if depth and char == "}":
            depth -= 1
        elif depth and char == "{":
            depth += 1
        i += 1
    return None


def _tokens(text: str) -> list[tuple[str, str]] | None:
    out: list[tuple[str, str]] = []
    pos = 0
    depth = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None and text.startswith("`", pos):  # a template with `${}`: code
            end = _template(text, pos)
            if end is None:
                return None
            out.append(("code", text[pos:end]))
            pos = end
            continue
        if match is None:
            return None
        pos = match.end()
        kind = match.lastgroup
        if kind is None:
            continue
        token = match.group(kind)
        out.append((kind, token))
        if token in "{[(" and kind == "punct":
            depth += 1
        elif token in "}])" and kind == "punct":
            depth -= 1
            if depth == 0:
                return out
    return None


class _Reader:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.at = 0

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.at] if self.at < len(self.tokens) else ("end", "")

    def take(self) -> tuple[str, str]:
        token = self.peek()
        self.at += 1
        return token

    def value(self, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise ValueError("too deep")
        kind, token = self.peek()
        if token == "{" and kind == "punct":
            return self._after(self._object(depth))
        if token == "[" and kind == "punct":
            return self._after(self._array(depth))
        if kind == "str":
            return self._joined()
        if kind == "num":
            self.take()
            return self._after(float(token) if "." in token else int(token))
        if kind == "name" and token in ("true", "false"):
            self.take()
            return self._after(token == "true")
        self._skip_code()
        return CODE

    def _object(self, depth: int) -> dict[str, Any]:
        self.take()
        out: dict[str, Any] = {}
        while self.peek()[1] != "}":
            kind, key = self.take()
            if key == "...":
                self._skip_code()
            else:
                if kind == "str":
                    key = _string(key)
                elif kind != "name":
                    raise ValueError(f"unexpected key {key!r}")
                if self.peek()[1] == ":":
                    self.take()
                    out[key] = self.value(depth + 1)
                else:
                    out[key] = CODE  # shorthand `{ setup }` or a method
                    self._skip_code()
            if self.peek()[1] == ",":
                self.take()
        self.take()
        return out

    def _array(self, depth: int) -> list[Any]:
        self.take()
        out: list[Any] = []
        while self.peek()[1] != "]":
            out.append(self.value(depth + 1))
            if self.peek()[1] == ",":
                self.take()
        self.take()
        return out

    def _after(self, value: Any) -> Any:
        """The value, or what follows makes it: `[...].join("x")` of strings is a string,
        `as const` / `satisfies T` change nothing, anything else makes it code."""
        if self.peek()[1] in (",", "}", "]", ")", ""):
            return value
        kind, token = self.peek()
        if kind == "name" and token in ("as", "satisfies"):
            self._skip_code()
            return value
        ahead = [t for _, t in self.tokens[self.at : self.at + 5]]
        joins = ahead[:3] == [".", "join", "("] and ahead[4:5] == [")"]
        strings = isinstance(value, list) and all(isinstance(v, str) for v in value)
        if joins and strings and self.tokens[self.at + 3][0] == "str":
            sep = _string(self.tokens[self.at + 3][1])
            self.at += 5
            return self._after(sep.join(value))
        self._skip_code()
        return CODE

    def _joined(self) -> Any:
        parts = [_string(self.take()[1])]
        while self.peek()[1] == "+" and self.tokens[self.at + 1][0] == "str":
            self.take()
            parts.append(_string(self.take()[1]))
        return self._after("".join(parts))  # a string joined with code is code

    def _skip_code(self) -> None:
        """Skip an expression up to the `,` or closing bracket that ends it."""
        depth = 0
        while True:
            kind, token = self.peek()
            if kind == "end":
                raise ValueError("unterminated")
            if kind == "punct" and token in "{[(":
                depth += 1
            elif kind == "punct" and token in "}])":
                if depth == 0:
                    return
                depth -= 1
            elif kind == "punct" and token == "," and depth == 0:
                return
            self.take()


def _string(token: str) -> str:
    body = token[1:-1]
    if token[0] == "`":
        body = body.replace("\r\n", "\n")
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)
