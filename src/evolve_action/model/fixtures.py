"""The one rule for a fixture, applied where a case is loaded (`validate`) and again where its
workspace is staged, so that what `validate` accepts, a run can stage, and what it refuses,
no run tries. Each format has its own way of finding the file (relative to the eval file,
to the skill, to parent folders); once found, every format's fixture passes through here.

- **Links** are followed while they stay inside the repository: a link to a file of the
  repository is that file, and its bytes are what is staged. A link, or a `..`, that leads
  out of the repository is refused: PR content must not make us copy the runner's files.
- **A directory** is not a fixture: list the files in it.
- **The destination** is a relative path in the workspace: not absolute, no `..`, not
  under `.git`, so a fixture can neither land outside the workspace nor plant git hooks.

At staging the source is resolved again (the checkout could have changed between the two),
and the copy never writes through a link already in the workspace.

A file written inline in the eval file (`Fixture.content`) has no source to resolve; it lands
by the same destination rule, and is bounded in size (`inline_refusal`): the text is PR
content that we write to disk.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path, PurePosixPath

from evolve_action.util.limits import MAX_INLINE_CASE_BYTES, MAX_INLINE_FILE_BYTES


class Refusal(StrEnum):
    """Why a source cannot be a fixture: a clause callers put after the fixture's name."""

    MISSING = "does not exist"
    UNRESOLVABLE = "cannot be resolved (a link loop, or a name the system refuses)"
    OUTSIDE = "resolves outside the repository (through a symlink or '..'); copy the file in"
    NOT_A_FILE = "is not a regular file (a directory?); list the files themselves"


def fixture_source(source: Path, root: Path) -> Path | Refusal:
    """The real file a fixture's bytes come from, or why `source` cannot be one. `root` is the
    repository (or a narrower folder a format confines its inputs to)."""
    try:
        real = source.resolve(strict=True)
        inside = real.is_relative_to(root.resolve())
        regular = real.is_file()
    except FileNotFoundError:
        return Refusal.MISSING
    except (OSError, RuntimeError, ValueError):  # a link loop, a name too long, a NUL
        return Refusal.UNRESOLVABLE
    if not inside:
        return Refusal.OUTSIDE
    if not regular:
        return Refusal.NOT_A_FILE
    return real


def fixture_dest(dest: str) -> str | None:
    """Why `dest` cannot be where a fixture lands in the workspace, or None."""
    path = PurePosixPath(dest)
    if not dest or path.is_absolute() or ".." in path.parts or path.parts[:1] == (".git",):
        return (
            "the destination must be a relative path inside the workspace (no '..', not "
            "absolute, not under .git)"
        )
    return None


def inline_refusal(content: str, earlier: Iterable[str] = ()) -> str | None:
    """Why inline `content` cannot be staged after the case's `earlier` inline files, or None."""
    size = len(content.encode("utf-8", "surrogatepass"))
    if size > MAX_INLINE_FILE_BYTES:
        return (
            f"the inline content is {size:,} bytes, over the {MAX_INLINE_FILE_BYTES:,}-byte limit"
            " for one file; commit the file and name it as its `source`"
        )
    total = size + sum(len(c.encode("utf-8", "surrogatepass")) for c in earlier)
    if total > MAX_INLINE_CASE_BYTES:
        return (
            f"the case's inline files come to {total:,} bytes, over the"
            f" {MAX_INLINE_CASE_BYTES:,}-byte limit for one case; commit them as files instead"
        )
    return None
