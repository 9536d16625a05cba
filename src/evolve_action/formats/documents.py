"""Read eval documents (`.json`, `.jsonc`, `.yaml`/`.yml`, `.jsonl`) into plain data, keeping lines.

Every format reduces to the JSON data model (dict, list, str, int, float, bool, None), so
loaders never see a parser's types. Line numbers are kept per JSON path, so a problem in
`evals[3].assertions[1]` can be reported at its `file:line`.

This is the one reading layer: every eval file, `.evolve.*` config and trigger file comes
through `read`, so the limits of `util.limits` (size, values, nesting, numbers) hold for all
of them, and lone surrogates (JSON's `"\\ud800"`) become U+FFFD here, before any loader or
output sees them. YAML is read by `util.yaml_reader` (YAML 1.2 core semantics, as evolve's
Go decoder reads it), which SKILL.md front matter shares.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evolve_action.formats import documents_js
from evolve_action.formats.documents_json import (
    JsonPath,
    line_map,
    parse_jsonl,
    parse_text,
    settled,
)
from evolve_action.util import frontmatter, limits, yaml_reader
from evolve_action.util.limits import InputError

__all__ = ["EXTENSIONS", "Document", "DocumentError", "JsonPath", "parse", "pointer", "read"]

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
        with path.open("rb") as handle:  # never more than the limit, whatever the file claims
            raw = handle.read(limits.MAX_BYTES + 1)
            if len(raw) > limits.MAX_BYTES:
                limits.check_size(max(len(raw), path.stat().st_size))
    except OSError as exc:
        raise DocumentError(rel, f"cannot read the file: {exc.strerror or exc}") from exc
    except InputError as exc:
        raise DocumentError(rel, exc.message, exc.line) from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DocumentError(rel, "the file is not valid UTF-8; save it as UTF-8", line) from exc
    del raw
    return parse(text, path=path, rel=rel, scalar_keys=scalar_keys)


def parse(text: str, *, path: Path, rel: str, scalar_keys: bool = False) -> Document:
    suffix = path.suffix.lower()
    try:
        limits.check_size(len(text))
        if suffix in (".yaml", ".yml"):
            data, lines = yaml_reader.load(text, scalar_keys=scalar_keys)
        elif suffix == ".jsonl":
            data, lines = parse_jsonl(text)
        elif suffix == ".md":
            data, lines = _markdown(text)
        elif suffix in documents_js.SUFFIXES:  # a module's exported literal object, never run
            data, lines = documents_js.document(text)
        else:
            lines = line_map(text)  # first: it refuses what is over the limits, cheaply
            data = settled(parse_text(text, lenient=suffix == ".jsonc"), text)
    except InputError as exc:
        raise DocumentError(rel, exc.message, exc.line) from exc
    return Document(path=path, rel=rel, data=data, lines=lines)


def _markdown(text: str) -> tuple[dict[str, Any], dict[JsonPath, int]]:
    """A Markdown eval file (a case's `prompt.md`, a grader, an `*.eval.md`): its front matter
    as a mapping under `front_matter` (lines as in the file), its text under `body`."""
    block, body = frontmatter.split(text)
    if block is None:
        return {"front_matter": {}, "body": text}, {}
    data, lines = yaml_reader.load(block)
    shifted = {("front_matter", *key): line + 1 for key, line in lines.items()}
    shifted[("front_matter",)] = 1
    shifted[("body",)] = block.count("\n") + 3
    return {"front_matter": data if data is not None else {}, "body": body}, shifted
