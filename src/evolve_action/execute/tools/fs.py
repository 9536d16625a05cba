"""The file tools (Read, Write, Edit, Glob, Grep), confined to one workspace.

Path rule, shown to the model in the tool descriptions: a relative path is relative to the
workspace root (the model's current directory); an absolute path is accepted only below
`/workspace`, the name the sandbox gives the workspace, and maps to the same file. Every path
is then resolved with its symlinks and must land inside the workspace. Nothing here ever
shows the workspace's real location: results name files by workspace-relative paths.

Each function returns the result text or raises `ToolFailure` with a message for the model.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, TextIO

from evolve_action.execute.sandbox.confine import HOME_DIR, SANDBOX_ROOT, TMP_DIR, resolved
from evolve_action.util import globs
from evolve_action.util.regex import RegexError, compile_re2

READ_LIMIT = 2000  # lines per Read, like Claude Code
LINE_CAP = 2000  # characters per shown line
GLOB_CAP = 200
GREP_CAP = 250
_BINARY_PROBE = 8192
_GREP_MAX_BYTES = 5_000_000
_SKIP_DIRS = frozenset({".git", HOME_DIR, TMP_DIR})


class ToolFailure(Exception):
    """A tool call the model got wrong; its message goes back as an `is_error` result."""


@dataclass(frozen=True)
class Paths:
    """Maps the model's paths to files of the workspace, refusing every escape."""

    root: Path  # resolved

    def resolve(self, raw: str) -> Path:
        if not raw or "\0" in raw:
            raise ToolFailure("the path is empty or contains a NUL byte")
        path = PurePosixPath(raw)
        if path.is_absolute():
            rel = self._relative(path)
            if rel is None:
                raise ToolFailure(self._outside(raw))
            path = rel
        target = resolved(self.root / path)
        if target is None:
            raise ToolFailure(f"{raw}: the path cannot be resolved (a symlink loop?)")
        if not target.is_relative_to(self.root):
            raise ToolFailure(self._outside(raw))
        if linked_elsewhere(target):
            raise ToolFailure(
                f"{raw}: the file has other names (hard links), which may be outside the "
                "workspace; tools do not read or write through hard links"
            )
        return target

    def show(self, path: Path) -> str:
        rel = path.relative_to(self.root).as_posix()
        return rel

    def _relative(self, path: PurePosixPath) -> PurePosixPath | None:
        for base in (PurePosixPath(SANDBOX_ROOT), PurePosixPath(self.root)):
            if path == base or path.is_relative_to(base):
                return path.relative_to(base)
        return None

    @staticmethod
    def _outside(raw: str) -> str:
        return (
            f"{raw}: the path is outside the workspace; tools only reach files in the "
            f"workspace (the current directory, also named {SANDBOX_ROOT}), symlinks included"
        )


def read(paths: Paths, file_path: str, offset: int | None = None, limit: int | None = None) -> str:
    target = _existing_file(paths, file_path)
    with target.open("rb") as fh:
        if b"\0" in fh.read(_BINARY_PROBE):
            size = target.stat().st_size
            raise ToolFailure(f"{file_path}: a binary file ({size} bytes); Read shows text only")
    first = max(offset or 1, 1)
    count = READ_LIMIT if limit is None or limit < 1 else limit
    shown: list[str] = []
    total = 0
    with target.open(encoding="utf-8", errors="replace", newline="") as fh:
        for total, text in enumerate(_bounded_lines(fh), start=1):
            if first <= total < first + count:
                shown.append(f"{total:6d}\t{text}")
    if total == 0:
        return f"({paths.show(target)} is empty)"
    if not shown:
        return f"({paths.show(target)} has {total} lines; offset {first} is past its end)"
    last = first + len(shown) - 1
    if first > 1 or last < total:
        shown.append(f"[lines {first}-{last} of {total}; use offset and limit to read more]")
    return "\n".join(shown)


def _bounded_lines(fh: TextIO) -> Iterator[str]:
    """Lines without their ending, each cut at LINE_CAP characters; memory stays bounded
    even for a gigabyte on one line (a minified bundle, or a model's flood)."""
    while chunk := fh.readline(LINE_CAP + 1):
        if len(chunk) <= LINE_CAP or chunk.endswith("\n"):
            yield chunk.rstrip("\r\n")
            continue
        while (rest := fh.readline(1 << 16)) and not rest.endswith("\n"):
            pass  # skip the remainder of an overlong line
        yield chunk[:LINE_CAP] + " [line truncated]"


def write(paths: Paths, file_path: str, content: str) -> str:
    target = paths.resolve(file_path)
    if target.is_dir():
        raise ToolFailure(f"{file_path}: is a directory, not a file")
    existed = target.exists()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode("utf-8", errors="surrogatepass")
        target.write_bytes(data)
    except OSError as exc:
        raise ToolFailure(f"{file_path}: cannot write: {exc.strerror}") from exc
    verb = "Updated" if existed else "Created"
    return f"{verb} {paths.show(target)} ({len(data)} bytes)"


def edit(
    paths: Paths, file_path: str, old_string: str, new_string: str, replace_all: bool = False
) -> str:
    target = _existing_file(paths, file_path)
    if not old_string:
        raise ToolFailure("old_string is empty; to create or overwrite a file use Write")
    if old_string == new_string:
        raise ToolFailure("old_string and new_string are the same; there is nothing to change")
    text = target.read_text(encoding="utf-8", errors="surrogateescape")
    found = text.count(old_string)
    if found == 0:
        raise ToolFailure(
            f"{file_path}: old_string was not found; Read the file and copy the exact text, "
            "whitespace included"
        )
    if found > 1 and not replace_all:
        raise ToolFailure(
            f"{file_path}: old_string occurs {found} times; add surrounding context to make it "
            "unique, or set replace_all to change every occurrence"
        )
    text = (
        text.replace(old_string, new_string)
        if replace_all
        else text.replace(old_string, new_string, 1)
    )
    try:
        target.write_text(text, encoding="utf-8", errors="surrogateescape")
    except OSError as exc:
        raise ToolFailure(f"{file_path}: cannot write: {exc.strerror}") from exc
    return f"Edited {paths.show(target)}: replaced {found if replace_all else 1} occurrence(s)"


def glob(paths: Paths, pattern: str, path: str | None = None) -> str:
    base = _existing_dir(paths, path)
    clean = pattern.strip()
    if clean.startswith(SANDBOX_ROOT + "/"):
        clean = clean[len(SANDBOX_ROOT) + 1 :]
    if not clean or clean.startswith("/") or ".." in clean.split("/"):
        raise ToolFailure(f"{pattern!r}: use a relative glob such as **/*.py (no '..')")
    matcher = _compile(glob_regex(clean), pattern)
    found = sorted(
        paths.show(f)
        for f in _files(base, paths.root)
        if matcher.fullmatch(f.relative_to(base).as_posix())
    )
    if not found:
        return "No files found"
    more = len(found) - GLOB_CAP
    note = [f"[{more} more files not shown; narrow the pattern]"] if more > 0 else []
    return "\n".join(found[:GLOB_CAP] + note)


def grep(paths: Paths, pattern: str, path: str | None = None, glob: str | None = None) -> str:
    regex = _compile(pattern, pattern)
    start = paths.resolve(path or ".")
    if not start.exists():
        raise ToolFailure(f"{path}: no such file or directory in the workspace")
    files = [start] if start.is_file() else list(_files(start, paths.root))
    base = start.parent if start.is_file() else start
    filt = _compile(glob_regex(glob), glob) if glob else None
    hits: list[str] = []
    for file in files:
        rel = file.relative_to(base).as_posix()
        if filt and not filt.fullmatch(rel if "/" in (glob or "") else file.name):
            continue
        for number, line in _text_lines(file):
            if regex.search(line):
                hits.append(f"{paths.show(file)}:{number}:{line[:500]}")
                if len(hits) > GREP_CAP:
                    hits[-1] = f"[more than {GREP_CAP} matches; narrow the pattern or path]"
                    return "\n".join(hits)
    return "\n".join(hits) if hits else "No matches found"


def glob_regex(pattern: str) -> str:
    """A glob as a regex for RE2: `*` and `?` within one segment, `**/` any directories, `{a,b}`."""
    return globs.regex(pattern, globs.TOOL)


def _compile(pattern: str, shown: str | None) -> Any:
    try:
        return compile_re2(pattern)
    except RegexError as exc:
        raise ToolFailure(f"invalid pattern {shown!r}: {exc} (RE2 syntax: no lookaround)") from exc


def _existing_file(paths: Paths, file_path: str) -> Path:
    target = paths.resolve(file_path)
    if target.is_dir():
        raise ToolFailure(f"{file_path}: is a directory; list it with Glob or Bash ls")
    if not target.is_file():
        raise ToolFailure(f"{file_path}: no such file in the workspace")
    return target


def _existing_dir(paths: Paths, path: str | None) -> Path:
    target = paths.resolve(path or ".")
    if not target.is_dir():
        raise ToolFailure(f"{path}: no such directory in the workspace")
    return target


def _files(base: Path, root: Path) -> Iterator[Path]:
    """Files below `base` in name order; links are never followed out of `root` (or into
    directory loops: linked directories are not entered)."""
    for current, dirs, names in os.walk(base, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for name in sorted(names):
            file = Path(current) / name
            real = resolved(file) if file.is_symlink() else file
            if real is not None and real.is_relative_to(root):
                yield file


def linked_elsewhere(path: Path) -> bool:
    """A file with more than one hard link: resolving its path proves nothing about its
    other names. Commands can create such links where no namespace stops them (a sandbox
    user, on a kernel without protected hard links), and our tools run with more rights."""
    try:
        info = path.lstat()
    except OSError:
        return False
    return not stat.S_ISDIR(info.st_mode) and info.st_nlink > 1


def _text_lines(file: Path) -> Iterator[tuple[int, str]]:
    try:
        real = resolved(file)
        if real is None or linked_elsewhere(real) or real.stat().st_size > _GREP_MAX_BYTES:
            return
        with real.open("rb") as fh:
            if b"\0" in fh.read(_BINARY_PROBE):
                return
        with real.open(encoding="utf-8", errors="replace") as fh:
            for number, line in enumerate(fh, start=1):
                yield number, line.rstrip("\r\n")
    except OSError:
        return
