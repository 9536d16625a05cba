"""clauditor's file rules: staged inputs, captured outputs, and the resolved system prompt.

Inputs (clauditor's "Input files"): paths are relative to the eval file's directory,
never absolute, must exist as regular files, must stay inside that directory after symlinks,
and are staged by basename into the run's working directory, so two inputs with one basename
collide, and so does a literal `output_files` pattern with an input's basename.

The system prompt: an explicit `system_prompt` wins; else an `AGENTS.md` beside a modern
`SKILL.md`, then the repository root's `AGENTS.md`; else the skill file's body without its
frontmatter (an empty body stays "", as in clauditor). There is no fourth fallback.
"""

from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.clauditor import fields as f
from evolve_action.model.evals import Fixture
from evolve_action.model.fixtures import Refusal, fixture_source

_CLAUDITOR_WORDS = {
    Refusal.MISSING: "does not exist next to the eval file; fix the path",
    Refusal.OUTSIDE: "leaves the eval file's folder; keep inputs inside it",
}


def input_files(p: Problems, raw: Any, spec_dir: Path) -> list[Fixture]:
    fixtures: list[Fixture] = []
    seen: dict[str, int] = {}
    base = spec_dir.resolve()
    for i, entry in f.string_list(p, ("input_files",), raw):
        at = ("input_files", i)
        if PurePosixPath(entry).is_absolute() or Path(entry).is_absolute():
            p.error(at, f"{entry!r} is absolute; write a path relative to the eval file's folder")
            continue
        # clauditor confines inputs to the eval file's folder, a narrower root than the repo.
        source = fixture_source(base / entry, base)
        if isinstance(source, Refusal):
            p.error(at, f"{entry!r} {_CLAUDITOR_WORDS.get(source, source)}")
            continue
        if source.name in seen:
            p.error(
                at,
                f"{entry!r} and input_files[{seen[source.name]}] both stage as"
                f" {source.name!r} (inputs are flattened to basenames); rename one",
            )
            continue
        seen[source.name] = i
        fixtures.append(Fixture(source=source, dest=source.name, origin=p.origin(*at)))
    return fixtures


def output_paths(p: Problems, data: dict[str, Any], inputs: list[Fixture]) -> tuple[str, ...]:
    """The files to read as the output: `output_file` wins over `output_files`."""
    single = data.get("output_file")
    many = data.get("output_files")
    patterns: list[tuple[tuple[str | int, ...], str]] = []
    if many is not None:
        patterns += [(("output_files", i), s) for i, s in f.string_list(p, ("output_files",), many)]
    if single is not None:
        text = f.text(p, ("output_file",), single, blank_ok=False)
        if text is not None:
            patterns.insert(0, (("output_file",), text))
    staged = {fx.dest for fx in inputs}
    for at, pattern in patterns:
        path = PurePosixPath(pattern)
        if path.is_absolute() or ".." in path.parts:
            p.error(at, f"{pattern!r} must be a relative path inside the run's working folder")
        elif at != ("output_file",) and not glob.has_magic(pattern) and path.name in staged:
            p.error(
                at,
                f"{pattern!r} has the basename of a staged input, so it would read the input"
                " back; capture the result under another name or folder",
            )
    if single is not None and isinstance(single, str) and single.strip():
        return (single,)
    return tuple(pattern for at, pattern in patterns if at != ("output_file",))


@dataclass(frozen=True)
class SystemPrompt:
    text: str
    source: str  # explicit | agents_md | skill_md (clauditor's system_prompt_source)
    # What `/<skill>` expands to in Claude Code: the skill file's body, whichever prompt won.
    skill_body: str | None = None


def system_prompt(
    p: Problems, explicit: str | None, skill_name: str, ctx: LoadContext
) -> SystemPrompt | None:
    root = ctx.root.resolve()
    skill_file = _skill_file(p.doc.path, skill_name, ctx)
    body, trouble = _body(skill_file, root, skill_name)
    if explicit is not None:
        return SystemPrompt(explicit, "explicit", body)
    candidates = [root / "AGENTS.md"]
    if skill_file is not None and skill_file.name == "SKILL.md":
        candidates.insert(0, skill_file.parent / "AGENTS.md")
    for candidate in candidates:
        text = _read_inside(candidate, root)
        if text is not None:
            return SystemPrompt(text, "agents_md", body)
    if body is None:
        p.error(("system_prompt",), trouble)
        return None
    if not body.strip():
        p.warn(("system_prompt",), "the skill file has no body: the system prompt is empty")
    return SystemPrompt(body, "skill_md", body)


def _body(skill_file: Path | None, root: Path, skill_name: str) -> tuple[str | None, str]:
    """The skill file's body without frontmatter, or None and why it cannot be had."""
    if skill_file is None:
        return None, (
            "no system prompt: 'system_prompt' is not set, there is no AGENTS.md, and the skill"
            f" file (SKILL.md or {skill_name}.md beside the eval file) is missing;"
            " set system_prompt or add the skill"
        )
    text = _read_inside(skill_file, root)
    if text is None:
        return None, f"cannot read the skill file {skill_file.name} as UTF-8 inside the repository"
    body = strip_frontmatter(text)
    if body is None:
        return None, (
            f"the frontmatter of {skill_file.name} is not closed by a '---' line;"
            " fix it or set system_prompt"
        )
    return body, ""


def _skill_file(spec: Path, skill_name: str, ctx: LoadContext) -> Path | None:
    """The skill file the spec belongs to: modern `SKILL.md` first, then legacy `<name>.md`."""
    here = spec.parent
    stem = spec.name.removesuffix(".json").removesuffix(".eval")
    candidates = []
    if ctx.skill.dir is not None:
        candidates.append(ctx.skill.dir / "SKILL.md")
    candidates.append(here / "SKILL.md")
    if here.name == "assets":
        candidates.append(here.parent / "SKILL.md")
    candidates += [here / f"{stem}.md", here / f"{skill_name}.md"]
    return next((c for c in candidates if c.is_file()), None)


def _read_inside(path: Path, root: Path) -> str | None:
    """The file's text when it exists, resolves inside `root` and reads as UTF-8."""
    try:
        resolved = path.resolve(strict=True)
        if not resolved.is_relative_to(root) or not resolved.is_file():
            return None
        return resolved.read_text(encoding="utf-8")
    except (OSError, RuntimeError, UnicodeDecodeError, ValueError):
        return None


def strip_frontmatter(text: str) -> str | None:
    """The body after a leading `---` frontmatter block; None when the block never closes."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n").rstrip() != "---":
        return text
    for i, line in enumerate(lines[1:], start=1):
        if line.rstrip("\r\n").rstrip() == "---":
            return "".join(lines[i + 1 :])
    return None
