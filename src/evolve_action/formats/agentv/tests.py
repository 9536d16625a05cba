"""Where an agentv suite's cases come from: inline, or other files it names.

`tests` (older: `evalcases`, `eval_cases`, `cases`) holds the cases, or names where they are:

- one string: a YAML list or JSONL file (`tests: ./dataset.jsonl`), or a folder whose
  subfolders each hold a `case.yaml` (`tests: ./cases/`; the subfolder names the case, and a
  `workspace/` beside it is that case's workspace template);
- list entries `file://cases/accuracy.yaml` (AgentV 4; globs allowed), or bare paths (the later
  spec), each expanding to the cases of that file.

A JSONL file given alone is a dataset whose shared settings sit in the YAML of the same name.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from evolve_action.formats.agentv.common import At, Src, resolve_file
from evolve_action.formats.agentv.csv import read_csv
from evolve_action.formats.agentv.vars import without_env
from evolve_action.formats.base import Problems
from evolve_action.formats.discovery_refs import glob_inside
from evolve_action.formats.documents import DocumentError, read
from evolve_action.model.evals import Origin, Problem
from evolve_action.util.text import json_kind

CASE_KEYS = ("evalcases", "eval_cases", "cases", "tests")
FILE_PROTOCOL = "file://"
CASE_FILES = ("case.yaml", "case.yml")
CASE_EXTENSIONS = (".yaml", ".yml", ".jsonl")
_GLOB = frozenset("*?[{")
MAX_GLOB_FILES = 200  # a glob naming more files than this is a mistake, not a dataset

Row = tuple[Src, At, Any]


def read_src(src: Src, path: Path, rel: str) -> Src | None:
    """Another agentv document, read as the eval file is (env interpolation emptied)."""
    try:
        doc = read(path, rel, scalar_keys=True)
    except DocumentError as exc:
        src.problems.add(Problem(Origin(exc.rel, exc.line), exc.message))
        return None
    except RecursionError:
        src.problems.add(Problem(Origin(rel), "the document is nested too deeply"))
        return None
    other = Src(doc, Problems(doc), src.root, src.main_dir)
    other.doc = replace(doc, data=without_env(other, doc.data))
    return other


def case_rows(main: Src, settings: dict[str, Any], sources: list[Src]) -> list[Row] | None:
    """The suite's case rows, or None when it has no case list at all."""
    if isinstance(main.doc.data, list):
        return [(main, (i,), row) for i, row in enumerate(main.doc.data)]
    keys = [k for k in CASE_KEYS if k in settings]
    if not keys:
        return None
    if len(keys) > 1:
        main.error((keys[1],), f"both {keys[0]!r} and {keys[1]!r} list cases; keep one")
        return []
    key = keys[0]
    value = settings[key]
    if isinstance(value, str):
        return _referenced(main, (key,), value.removeprefix(FILE_PROTOCOL), sources)
    if not isinstance(value, list) or not value:
        main.error((key,), "must be a non-empty list of cases, or the path of a cases file")
        return []
    rows: list[Row] = []
    for i, row in enumerate(value):
        if isinstance(row, str) and (key == "tests" or row.startswith(FILE_PROTOCOL)):
            rows.extend(_referenced(main, (key, i), row.removeprefix(FILE_PROTOCOL), sources))
        else:
            rows.append((main, (key, i), row))
    return rows


def _referenced(main: Src, at: At, ref: str, sources: list[Src]) -> list[Row]:
    if _GLOB & set(ref):
        return _glob(main, at, ref, sources)
    folder = _folder(main, ref)
    if folder is not None:
        return _directory(main, at, folder, sources)
    if not ref.endswith((*CASE_EXTENSIONS, ".json", ".csv")):
        main.error(
            at,
            f"{ref!r}: a test file reference names a .yaml, .yml, .jsonl or .csv file, or a"
            " folder of case folders",
        )
        return []
    path = resolve_file(main, at, ref)
    if path is not None and path.suffix == ".csv":
        return _csv(main, at, path, sources)
    return [] if path is None else _file(main, path, sources)


def _csv(main: Src, at: At, path: Path, sources: list[Src]) -> list[Row]:
    """AgentV 5 (promptfoo) CSV tests: one row per test (`agentv_csv.py`)."""
    doc, warnings = read_csv(path, path.relative_to(main.root).as_posix())
    for message in warnings:
        main.warn(at, message)
    if doc is None:
        return []
    src = Src(doc, Problems(doc), main.root, main.main_dir)
    sources.append(src)
    return [(src, (i,), row) for i, row in enumerate(doc.data)]


def _folder(main: Src, ref: str) -> Path | None:
    base = main.root if ref.startswith("/") else main.dir
    try:
        folder = (base / ref.lstrip("/")).resolve()
        usable = folder.is_dir() and folder.is_relative_to(main.root)
    except (OSError, RuntimeError, ValueError):
        return None
    return folder if usable else None


def _glob(main: Src, at: At, pattern: str, sources: list[Src]) -> list[Row]:
    base = main.root if pattern.startswith("/") else main.dir
    try:
        matches = sorted(
            p.resolve()
            for p in glob_inside(base, pattern.lstrip("/"), main.root)
            if p.is_file() and p.suffix in CASE_EXTENSIONS
        )
    except (OSError, ValueError, NotImplementedError) as exc:
        main.error(at, f"cannot use the pattern {pattern!r}: {exc}")
        return []
    inside = [p for p in matches if p.is_relative_to(main.root)]
    if not inside:
        main.error(at, f"{pattern!r} matches no .yaml, .yml or .jsonl file; fix the pattern")
        return []
    if len(inside) > MAX_GLOB_FILES:
        main.error(at, f"{pattern!r} matches {len(inside)} files; name at most {MAX_GLOB_FILES}")
        return []
    rows: list[Row] = []
    for path in inside:
        rows.extend(_file(main, path, sources))
    return rows


def _file(main: Src, path: Path, sources: list[Src]) -> list[Row]:
    """Cases from a YAML list (or a mapping with a case list) or JSONL rows."""
    src = read_src(main, path, path.relative_to(main.root).as_posix())
    if src is None:
        return []
    sources.append(src)
    data = src.doc.data
    prefix: At = ()
    if isinstance(data, dict):
        key = next((k for k in CASE_KEYS if isinstance(data.get(k), list)), None)
        if key is None:
            src.error((), "a referenced test file holds a list of cases (or `tests:`)")
            return []
        prefix = (key,)
        data = data[key]
    if not isinstance(data, list):
        src.error((), f"a referenced test file holds a list of cases, not {json_kind(data)}")
        return []
    out: list[Row] = []
    for i, row in enumerate(data):
        if isinstance(row, str):
            src.error((*prefix, i), "a referenced test file cannot reference further files")
            continue
        out.append((src, (*prefix, i), row))
    return out


def _directory(main: Src, at: At, folder: Path, sources: list[Src]) -> list[Row]:
    """One case per subfolder holding a case.yaml: its id defaults to the folder's name."""
    rows: list[Row] = []
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink()):
        case_file = next((sub / n for n in CASE_FILES if (sub / n).is_file()), None)
        if case_file is None:
            main.warn(at, f"{sub.name}/ has no case.yaml, so it holds no case; add one")
            continue
        src = read_src(main, case_file, case_file.resolve().relative_to(main.root).as_posix())
        if src is None:
            continue
        sources.append(src)
        row = src.doc.data
        if not isinstance(row, dict):
            src.error((), f"a case.yaml holds one case (a mapping), not {json_kind(row)}")
            continue
        row = dict(row)
        row.setdefault("id", sub.name)
        if "workspace" not in row and (sub / "workspace").is_dir():
            row["workspace"] = {"template": "workspace"}
        rows.append((src, (), row))
    if not rows and not main.problems.has_errors:
        main.error(at, f"{folder.name}/ holds no case folder (a subfolder with a case.yaml)")
    return rows
