"""AgentV 5 test files in CSV (`tests: file://cases/x.csv`), read as promptfoo reads them.

The header names the columns: each plain column is a var of the row's test; `__expected`
(and `__expected1`, `__expected2`, ...) hold one assertion each, written `type: value`
(`contains: Paris`, `icontains: paris`, `llm-rubric: ...`, `grade: ...` for llm-rubric,
`not-contains: ...`, `regex: ...`, `javascript: ...`) or a bare value, which must equal the
answer; `__description` names the test and `__threshold` sets its threshold. Other `__`
columns (`__prefix`, `__suffix`, `__metric`, `__metadata:*`, `__config:*`) are warned about.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

from evolve_action.formats.agentv.types import kind_of_type
from evolve_action.formats.documents import Document

MAX_BYTES = 4 * 1024 * 1024
_ASSERTION = re.compile(r"^(not-)?([a-z][a-z-]*(?::[a-z-]+)?):\s?(.*)$", re.DOTALL)
ALIASES = {"grade": "llm-rubric", "fn": "javascript", "eval": "javascript"}


def read_csv(path: Path, rel: str) -> tuple[Document | None, list[str]]:
    """The CSV as a document holding a list of AgentV test rows, and warnings (as messages)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, [f"cannot read {rel}: {exc.strerror or exc}"]
    if len(raw) > MAX_BYTES:
        return None, [f"{rel} is over {MAX_BYTES // (1024 * 1024)} MiB; split it"]
    text = raw.decode("utf-8-sig", "replace")
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except (StopIteration, csv.Error):
        return None, [f"{rel} has no header row"]
    rows: list[dict[str, Any]] = []
    lines: dict[tuple[str | int, ...], int] = {}
    warned: list[str] = []
    for values in reader:
        if not any(v.strip() for v in values):
            continue
        row = _row(header, values, warned)
        lines[(len(rows),)] = reader.line_num
        rows.append(row)
    return Document(path, rel, rows, lines), sorted(set(warned))


def _row(header: list[str], values: list[str], warned: list[str]) -> dict[str, Any]:
    variables: dict[str, str] = {}
    asserts: list[Any] = []
    row: dict[str, Any] = {}
    for name, value in zip(header, values, strict=False):
        name = name.strip()
        if not name.startswith("__"):
            variables[name] = value
        elif re.fullmatch(r"__expected\d*", name):
            if value.strip():
                asserts.append(assertion(value))
        elif name == "__description" and value.strip():
            row["id"] = value.strip()
        elif name == "__threshold" and value.strip():
            try:
                row["threshold"] = float(value)
            except ValueError:
                warned.append(f"__threshold {value!r} is not a number; it is ignored")
        elif value.strip():
            warned.append(f"column {name} is not read here; it is ignored")
    row["vars"] = variables
    if asserts:
        row["assert"] = asserts
    return row


def assertion(cell: str) -> Any:
    """One `__expected` cell as an AgentV grader (a bare value must equal the answer)."""
    found = _ASSERTION.match(cell.strip())
    if found is None:
        return {"type": "equals", "value": cell}
    negate, kind, value = found.groups()
    kind = ALIASES.get(kind, kind)
    if kind_of_type(kind) is None and kind != "javascript":  # `paris: ...` is a value
        return {"type": "equals", "value": cell}
    if kind == "llm-rubric":
        return value  # a bare statement is a criterion, as in an `assert` list
    return {"type": f"{negate or ''}{kind}", "value": value}
