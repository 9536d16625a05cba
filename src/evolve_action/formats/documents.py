"""Read eval documents (`.json`, `.jsonc`, `.yaml`/`.yml`, `.jsonl`) into plain data, keeping lines.

Every format reduces to the JSON data model (dict, list, str, int, float, bool, None), so
loaders never see a parser's types. Line numbers are kept per JSON path, so a problem in
`evals[3].assertions[1]` can be reported at its `file:line`.

YAML follows the YAML 1.2 core schema, as evolve's Go decoder does: only `true`/`false` are
booleans (`yes`, `no`, `on`, `off` stay strings), timestamps stay strings, mapping keys must
be strings, anchors and `<<` merge keys resolve, and an integral float becomes an int (Go
re-marshals `1.0` as `1`). PyYAML's YAML 1.1 defaults would silently change such values.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

JsonPath = tuple[str | int, ...]

EXTENSIONS = (".json", ".jsonc", ".yaml", ".yml")


class DocumentError(Exception):
    """The file cannot be read or parsed; `line` points at the fault when known."""

    def __init__(self, rel: str, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.rel = rel
        self.message = message
        self.line = line

    def __str__(self) -> str:
        where = f"{self.rel}:{self.line}" if self.line else self.rel
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class Document:
    """A parsed document and the line each value starts on."""

    path: Path
    rel: str
    data: Any
    lines: dict[JsonPath, int] = field(default_factory=dict)

    def line(self, *at: str | int) -> int | None:
        """The line of `at`, or of its nearest ancestor that has one."""
        key: JsonPath = tuple(at)
        while True:
            found = self.lines.get(key)
            if found is not None or not key:
                return found
            key = key[:-1]


def pointer(*at: str | int) -> str:
    """`("evals", 2, "prompt")` → `evals[2].prompt`, the field names authors see in messages."""
    out = ""
    for part in at:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


def read(path: Path, rel: str | None = None, *, scalar_keys: bool = False) -> Document:
    """Parse `path` by its extension. Raises `DocumentError` with a line where possible."""
    rel = rel if rel is not None else path.as_posix()
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DocumentError(rel, f"cannot read the file: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DocumentError(rel, "the file is not valid UTF-8; save it as UTF-8", line) from exc
    return parse(text, path=path, rel=rel, scalar_keys=scalar_keys)


def parse(text: str, *, path: Path, rel: str, scalar_keys: bool = False) -> Document:
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        data, lines = _parse_yaml(text, rel, scalar_keys=scalar_keys)
    elif suffix == ".jsonl":
        data, lines = _parse_jsonl(text, rel)
    else:
        data = _parse_json(text, rel, lenient=suffix == ".jsonc")
        lines = _json_lines(text)
    return Document(path=path, rel=rel, data=data, lines=lines)


# --- JSON and JSONC ------------------------------------------------------------------------


def _parse_json(text: str, rel: str, *, lenient: bool) -> Any:
    if not lenient:
        try:
            return json.loads(text, parse_constant=_reject_constant)
        except json.JSONDecodeError as exc:
            hint = ""
            if exc.msg.startswith("Expecting property name") or "comment" in text[:200]:
                hint = " (comments and trailing commas need the .jsonc extension)"
            raise DocumentError(rel, f"invalid JSON: {exc.msg}{hint}", exc.lineno) from exc
        except ValueError as exc:
            raise DocumentError(rel, f"invalid JSON: {exc}") from exc
    import json5  # pure Python and about 30 ms to import: only `.jsonc` files need it

    try:
        return json5.loads(text)
    except ValueError as exc:
        msg = str(exc)
        match = re.search(r":(\d+)\b", msg)
        line = int(match.group(1)) if match else None
        raise DocumentError(rel, f"invalid JSONC: {msg}", line) from exc
    except RecursionError as exc:
        raise DocumentError(rel, "invalid JSONC: nested too deeply") from exc


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


# Commas and colons are not matched: in text a real parser accepted, the next token alone
# says whether a key, a value or a closing bracket comes.
_STRUCTURE = re.compile(
    r"""
    //[^\n]*|/\*.*?\*/                        # comments (skipped)
  | "(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'   # strings
  | [{}\[\]]
  | [^\s\ufeff{}\[\]:,"'/]+|/                 # numbers, literals, JSON5 identifiers
    """,
    re.VERBOSE | re.DOTALL,
)


def _json_lines(text: str) -> dict[JsonPath, int]:
    """Map every JSON path to its line by following the token stream (comments allowed).

    The data itself comes from a real parser; this walk only follows the structure, with an
    explicit stack rather than recursion, and on text it cannot follow it returns what it found.
    """
    lines: dict[JsonPath, int] = {}
    # One frame per open container: [path, slot]. The slot is an array's next index (int),
    # None for an object awaiting a key, or (key,) when the next token starts that key's value.
    stack: list[list[Any]] = []
    line, seen = 1, 0
    at: JsonPath = ()
    for match in _STRUCTURE.finditer(text):
        tok = match.group()
        first = tok[0]
        if first == "/" and tok[1:2] in ("/", "*"):
            continue
        start = match.start()
        line += text.count("\n", seen, start)
        seen = start
        if stack:
            frame = stack[-1]
            slot = frame[1]
            if slot is None:  # an object, between members
                if first == "}":
                    stack.pop()
                    continue
                if first == '"' and "\\" not in tok:
                    name = tok[1:-1]
                elif first == '"' or first == "'":
                    name = _decode_key(tok)
                else:
                    name = tok
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
        if first == "{":
            stack.append([at, None])
        elif first == "[":
            stack.append([at, 0])
    return lines


def _decode_key(token: str) -> str:
    if token.startswith("'"):
        token = '"' + token[1:-1].replace('"', '\\"') + '"'
    try:
        decoded = json.loads(token)
    except ValueError:
        return token.strip("\"'")
    return decoded if isinstance(decoded, str) else token


def _parse_jsonl(text: str, rel: str) -> tuple[list[Any], dict[JsonPath, int]]:
    rows: list[Any] = []
    lines: dict[JsonPath, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            rows.append(json.loads(raw, parse_constant=_reject_constant))
        except ValueError as exc:
            raise DocumentError(rel, f"invalid JSON line: {exc}", number) from exc
        lines[(len(rows) - 1,)] = number
    lines[()] = 1
    return rows, lines


# --- YAML (1.2 core semantics on PyYAML) ---------------------------------------------------


class _Yaml12Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core-schema implicit resolution (no 1.1 booleans or dates)."""


_Yaml12Loader.yaml_implicit_resolvers = {}
for _tag, _regexp, _first in (
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
    ("tag:yaml.org,2002:merge", r"^(?:<<)$", "<"),
):
    _Yaml12Loader.add_implicit_resolver(_tag, re.compile(_regexp), list(_first))


def _parse_yaml(
    text: str, rel: str, *, scalar_keys: bool = False
) -> tuple[Any, dict[JsonPath, int]]:
    try:
        loader = _Yaml12Loader(text)
    except yaml.reader.ReaderError as exc:  # control characters are refused before parsing
        where = text[: exc.position].count("\n") + 1
        message = f"invalid YAML: character #x{exc.character:04x} is not allowed; remove it"
        raise DocumentError(rel, message, where) from exc
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {(): 1}
        lines: dict[JsonPath, int] = {}
        data = _Builder(loader, rel, lines, scalar_keys=scalar_keys).build(node, ())
        return data, lines
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = exc.problem or str(exc)
        raise DocumentError(rel, f"invalid YAML: {problem}", line) from exc
    except yaml.YAMLError as exc:
        raise DocumentError(rel, f"invalid YAML: {exc}") from exc
    except RecursionError as exc:
        raise DocumentError(rel, "invalid YAML: nested too deeply") from exc
    finally:
        loader.dispose()


class _Builder:
    """Turns a composed YAML node graph into JSON-model data, recording lines by path."""

    def __init__(
        self,
        loader: _Yaml12Loader,
        rel: str,
        lines: dict[JsonPath, int],
        *,
        scalar_keys: bool = False,
    ) -> None:
        self.loader = loader
        self.rel = rel
        self.lines = lines
        self.active: set[int] = set()  # alias cycles (`&a [*a]`) are not JSON-representable
        # JavaScript readers (agentv) turn scalar keys such as `0:` into the string "0".
        self.scalar_keys = scalar_keys

    def build(self, node: Node, at: JsonPath) -> Any:
        self.lines.setdefault(at, node.start_mark.line + 1)
        if isinstance(node, ScalarNode):
            return self._scalar(node)
        if id(node) in self.active:
            line = node.start_mark.line + 1
            raise DocumentError(self.rel, "invalid YAML: a recursive alias", line)
        self.active.add(id(node))
        try:
            if isinstance(node, SequenceNode):
                return [self.build(child, (*at, i)) for i, child in enumerate(node.value)]
            if isinstance(node, MappingNode):
                return self._mapping(node, at)
        finally:
            self.active.discard(id(node))
        raise DocumentError(self.rel, "invalid YAML: unsupported node", node.start_mark.line + 1)

    def _mapping(self, node: MappingNode, at: JsonPath) -> dict[str, Any]:
        self.loader.flatten_mapping(node)  # resolves `<<` merge keys in place
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            line = key_node.start_mark.line + 1
            key = self._scalar(key_node) if isinstance(key_node, ScalarNode) else key_node
            if self.scalar_keys and isinstance(key_node, ScalarNode) and not isinstance(key, str):
                key = key_node.value
            if not isinstance(key, str):
                raise DocumentError(
                    self.rel,
                    "invalid YAML: mapping key is not a string (not JSON-representable);"
                    " quote the key",
                    line,
                )
            self.lines[(*at, key)] = line
            out[key] = self.build(value_node, (*at, key))
        return out

    def _scalar(self, node: ScalarNode) -> Any:
        tag = node.tag
        if tag == "tag:yaml.org,2002:str" or tag == "!" or tag.startswith("!"):
            return node.value
        if tag == "tag:yaml.org,2002:bool":
            return node.value.lower() == "true"
        if tag == "tag:yaml.org,2002:null":
            return None
        if tag == "tag:yaml.org,2002:int":
            text = node.value.replace("_", "")
            if text.startswith(("0o", "0x")):
                return int(text[2:], 8 if text[1] == "o" else 16)
            return int(text)
        if tag == "tag:yaml.org,2002:float":
            value = float(self.loader.construct_yaml_float(node))
            if value != value or value in (float("inf"), float("-inf")):
                raise DocumentError(
                    self.rel,
                    f"invalid YAML: {node.value} is not JSON-representable",
                    node.start_mark.line + 1,
                )
            return int(value) if value.is_integer() else value
        if tag in ("tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:binary"):
            return node.value
        return node.value
