"""YAML text into JSON-model data and the line of every value, within `util.limits`.

The data is built straight from the parser's events (LibYAML's when PyYAML has it, else
PyYAML's own parser), never as PyYAML's node graph: that graph costs about 500 bytes and
10 µs a value, and it expands nothing, so it could neither bound an alias bomb nor afford a
large file. Built from events, an alias is the anchored value itself (shared, not copied)
and counts as the number of values it stands for; the document's total of values, its size
and its nesting (aliases included) stay under the limits, with the line where one is passed.

Semantics are the YAML 1.2 core schema, as evolve's Go decoder reads YAML: only
`true`/`false` are booleans (`yes`, `no`, `on`, `off` stay strings), timestamps stay strings,
mapping keys must be strings, anchors and `<<` merge keys resolve, and an integral float
becomes an int (Go re-marshals `1.0` as `1`).
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml
from yaml import events

from evolve_action.util import limits
from evolve_action.util.limits import InputError

try:  # LibYAML: the same events as PyYAML's parser, about twenty times as fast
    from yaml._yaml import CParser as _Parser

    _OFFSETS_IN_BYTES = True  # LibYAML counts a reader error's offset in UTF-8 bytes
except ImportError:  # pragma: no cover - PyYAML without its C extension
    _OFFSETS_IN_BYTES = False
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _Parser(Reader, Scanner, Parser):  # type: ignore[no-redef]
        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)


Path = tuple[str | int, ...]

_CORE = "tag:yaml.org,2002:"
_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_MERGE = object()  # the key `<<` (plain): its value's mappings merge into this one


class _Frame:
    """An open sequence or mapping."""

    __slots__ = ("anchor", "deepest", "items", "key", "merges", "path", "total")

    def __init__(self, path: Path, items: Any, anchor: str | None, total: int) -> None:
        self.path = path
        self.items = items  # list, or dict for a mapping
        self.anchor = anchor
        self.total = total  # the document's count of values when this one began
        self.deepest = len(path)
        self.key: object = None  # a mapping's key awaiting its value (None: none)
        self.merges: list[dict[str, Any]] = []


def load(text: str, *, scalar_keys: bool = False) -> tuple[Any, dict[Path, int]]:
    """(data, line of each path) of a single-document YAML text; `InputError` otherwise.

    `scalar_keys`: a scalar key that is not a string (`0:`) is kept as its text, as
    JavaScript readers (agentv) do, instead of refused.
    """
    return _Reader(text, scalar_keys).run()


class _Reader:
    def __init__(self, text: str, scalar_keys: bool) -> None:
        self.text = text
        self.scalar_keys = scalar_keys
        self.lines: dict[Path, int] = {}
        self.anchors: dict[str, tuple[Any, int, int]] = {}  # value, values, depth below
        self.open: set[str] = set()  # anchors whose value is still being read
        self.stack: list[_Frame] = []
        self.total = 0
        self.root: Any = None
        self.done = False

    def run(self) -> tuple[Any, dict[Path, int]]:
        parser = None
        try:
            parser = _Parser(self.text)  # PyYAML's own reader checks the characters here
            while True:
                event = parser.get_event()
                if event is None or isinstance(event, events.StreamEndEvent):
                    break
                self._event(event)
        except yaml.reader.ReaderError as exc:
            raise self._reader_error(exc) from exc
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 1 if mark is not None else None
            raise InputError(f"invalid YAML: {exc.problem or exc}", line) from exc
        except yaml.YAMLError as exc:
            raise InputError(f"invalid YAML: {exc}") from exc
        finally:
            dispose = getattr(parser, "dispose", None) if parser is not None else None
            if dispose is not None:
                dispose()
        if not self.lines:
            return None, {(): 1}
        return self.root, self.lines

    def _reader_error(self, exc: yaml.reader.ReaderError) -> InputError:
        if _OFFSETS_IN_BYTES:
            line = self.text.encode("utf-8", "replace")[: exc.position].count(b"\n") + 1
        else:
            line = self.text.count("\n", 0, exc.position) + 1
        char = exc.character if isinstance(exc.character, int) else 0
        return InputError(f"invalid YAML: character #x{char:04x} is not allowed; remove it", line)

    # --- events -----------------------------------------------------------------------

    def _event(self, event: events.Event) -> None:
        line = event.start_mark.line + 1 if event.start_mark is not None else 0
        if isinstance(event, events.DocumentStartEvent):
            if self.done:
                raise InputError(
                    "invalid YAML: a second document; an eval file holds one (remove the '---')",
                    line,
                )
        elif isinstance(event, events.DocumentEndEvent):
            self.done = True
        elif isinstance(event, events.ScalarEvent):
            path = self._slot(line, key_ok=True)
            if path is None:  # a mapping key
                self._key(event, line)
                return
            value = self._scalar(event, line)
            self._count(1, line)
            self._anchor(event.anchor, value, 1, 0)
            self._attach(value, line)
        elif isinstance(event, events.AliasEvent):
            self._alias(event, line)
        elif isinstance(event, (events.SequenceStartEvent, events.MappingStartEvent)):
            path = self._slot(line, key_ok=False)
            assert path is not None
            self._count(1, line)
            if len(path) >= limits.MAX_DEPTH:
                raise limits.too_deep(line)
            items: Any = [] if isinstance(event, events.SequenceStartEvent) else {}
            frame = _Frame(path, items, event.anchor, self.total - 1)
            if event.anchor is not None:
                self.open.add(event.anchor)
            self.stack.append(frame)
        elif isinstance(event, (events.SequenceEndEvent, events.MappingEndEvent)):
            self._close(line)

    def _slot(self, line: int, *, key_ok: bool) -> Path | None:
        """The path of the value that begins here; None when it is a mapping's key."""
        if not self.stack:
            path: Path = ()
        else:
            frame = self.stack[-1]
            if isinstance(frame.items, list):
                path = (*frame.path, len(frame.items))
            elif frame.key is None:
                if not key_ok:
                    raise _not_a_string_key(line)
                return None
            elif frame.key is _MERGE:
                path = frame.path
            else:
                path = (*frame.path, str(frame.key))
        self.lines.setdefault(path, line)
        return path

    def _key(self, event: events.ScalarEvent, line: int) -> None:
        frame = self.stack[-1]
        if event.tag is None and event.implicit[0] and event.value == "<<":
            frame.key = _MERGE
            return
        key = self._scalar(event, line)
        if not isinstance(key, str):
            if not self.scalar_keys:
                raise _not_a_string_key(line)
            key = event.value
        key = limits.replace_surrogates(key)
        frame.key = key
        self.lines[(*frame.path, key)] = line
        self._anchor(event.anchor, key, 1, 0)  # keys are not counted, as in JSON

    def _alias(self, event: events.AliasEvent, line: int) -> None:
        name = event.anchor
        if name in self.open:
            raise InputError("invalid YAML: a recursive alias (it contains itself)", line)
        if name not in self.anchors:
            message = f"invalid YAML: the alias *{name} has no anchor &{name} before it"
            raise InputError(message, line)
        value, size, depth = self.anchors[name]
        frame = self.stack[-1] if self.stack else None
        if frame is not None and isinstance(frame.items, dict) and frame.key is None:
            if not isinstance(value, str):
                raise _not_a_string_key(line)
            frame.key = value
            self.lines[(*frame.path, value)] = line
            return
        path = self._slot(line, key_ok=False)
        assert path is not None
        self._count(size, line)
        if isinstance(value, (list, dict)):
            deepest = len(path) + depth
            if deepest >= limits.MAX_DEPTH:
                raise limits.too_deep(line)
            if self.stack:
                self.stack[-1].deepest = max(self.stack[-1].deepest, deepest)
        self._attach(value, line)

    def _close(self, line: int) -> None:
        frame = self.stack.pop()
        value = frame.items
        if frame.merges:
            merged: dict[str, Any] = {}
            for source in frame.merges:
                merged.update(source)
            merged.update(value)
            value = merged
        if self.stack:
            parent = self.stack[-1]
            parent.deepest = max(parent.deepest, frame.deepest)
        if frame.anchor is not None:
            self.open.discard(frame.anchor)
            size = self.total - frame.total
            self.anchors[frame.anchor] = (value, size, frame.deepest - len(frame.path))
        self._attach(value, line)

    def _anchor(self, name: str | None, value: Any, size: int, depth: int) -> None:
        if name is not None:
            self.anchors[name] = (value, size, depth)

    def _count(self, size: int, line: int) -> None:
        self.total += size
        if self.total > limits.MAX_VALUES:
            raise limits.too_many_values(line)

    def _attach(self, value: Any, line: int) -> None:
        if not self.stack:
            self.root = value
            return
        frame = self.stack[-1]
        if isinstance(frame.items, list):
            frame.items.append(value)
        elif frame.key is _MERGE:
            frame.merges.extend(_merge_sources(value, line))
            frame.key = None
        else:
            frame.items[str(frame.key)] = value
            frame.key = None

    # --- scalars ----------------------------------------------------------------------

    def _scalar(self, event: events.ScalarEvent, line: int) -> Any:
        tag, text = event.tag, event.value
        if tag is None or tag == "!":
            if not event.implicit[0]:
                return limits.replace_surrogates(text)
            tag = _resolve(text)
        elif not tag.startswith(_CORE):
            return limits.replace_surrogates(text)  # a local tag (`!foo`) keeps the text
        kind = tag[len(_CORE) :]
        try:
            if kind == "bool":
                return text.lower() == "true"
            if kind == "null":
                return None
            if kind == "int":
                return _integer(text, line)
            if kind == "float":
                return _float(text, line)
        except ValueError as exc:
            raise InputError(f"invalid YAML: {text[:40]!r} is not a valid {kind}", line) from exc
        return limits.replace_surrogates(text)  # str, timestamp, binary and the rest


def _resolve(text: str) -> str:
    first = text[:1]
    if first in "tTfF" and _BOOL.match(text):
        return _CORE + "bool"
    if first in ("~", "n", "N", "") and _NULL.match(text):
        return _CORE + "null"
    if first in "-+0123456789" and first and _INT.match(text):
        return _CORE + "int"
    if first in "-+0123456789." and first and _FLOAT.match(text):
        return _CORE + "float"
    return _CORE + "str"


def _integer(text: str, line: int) -> int:
    clean = text.replace("_", "")
    if clean.startswith(("0o", "0x")):
        return limits.integer(clean[2:], line, 8 if clean[1] == "o" else 16)
    return limits.integer(clean, line)


def _float(text: str, line: int) -> float | int:
    value = float(text.replace("_", "").lower().replace(".inf", "inf").replace(".nan", "nan"))
    if not math.isfinite(value):
        raise InputError(f"invalid YAML: {text[:40]} is not JSON-representable", line)
    return int(value) if value.is_integer() else value


def _merge_sources(value: Any, line: int) -> list[dict[str, Any]]:
    """The mappings `<<: value` merges, lowest precedence first (as PyYAML orders them)."""
    if isinstance(value, dict):
        return [value]
    if isinstance(value, list) and all(isinstance(v, dict) for v in value):
        return list(reversed(value))
    raise InputError("invalid YAML: `<<` merges a mapping or a list of mappings only", line)


def _not_a_string_key(line: int) -> InputError:
    return InputError(
        "invalid YAML: mapping key is not a string (not JSON-representable); quote the key", line
    )
