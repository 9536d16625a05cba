"""What discovery learns by opening a file, and what it says when it finds nothing.

Discovery goes by names, with three exceptions handled here: an AgentV file that reads other
files as its cases (`tests: ./dataset.jsonl`, `file://cases/*.yaml`, `tests: ./cases/`), so
those are not loaded a second time as suites of their own; the `skill_name` of an
`evals/evals.json` kept directly in a plugin's `evals/`; and the reason a tree that has skills
or eval-like files yielded no eval file at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

from evolve_action.formats.documents import DocumentError, read
from evolve_action.formats.placement import EXTENSIONS, format_for_name

CASE_KEYS = ("tests", "eval_cases", "evalcases", "cases")  # AgentV's names, newest first
CASE_FILES = ("case.yaml", "case.yml")  # one per subfolder of a `tests: ./cases/` folder
_GLOB = frozenset("*?[{")
_SHOWN = 5  # eval-like files named in a "nothing found" warning


def referenced_cases(root: Path, rel: str, candidates: Iterable[str]) -> set[str]:
    """The candidates (root-relative paths) that the AgentV file `rel` reads as its cases."""
    wanted = set(candidates) - {rel}
    if not rel.endswith((".yaml", ".yml")) or not wanted:
        return set()
    path = root / rel
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return set()
    names = {c.rpartition("/")[2] for c in wanted}
    # Parsing every eval file twice is wasted work: only a file naming one can reference it.
    if (
        "file://" not in text
        and "tests:" not in text.replace(" ", "")
        and not any(n in text for n in names)
    ):
        return set()
    try:
        data = read(path, rel, scalar_keys=True).data
    except (DocumentError, RecursionError):
        return set()
    if not isinstance(data, dict):
        return set()
    tests = next((data[k] for k in CASE_KEYS if k in data), None)
    refs = [tests] if isinstance(tests, str) else tests if isinstance(tests, list) else []
    found: set[str] = set()
    for ref in refs:
        if isinstance(ref, str):
            for target in _targets(root, path.parent, ref.removeprefix("file://")):
                found |= {target} & wanted
    return found


def _targets(root: Path, base: Path, ref: str) -> set[str]:
    """Root-relative files a case reference can name (loaders say which one it is)."""
    root = root.resolve()
    folders = [root] if ref.startswith("/") else [base, *base.parents]
    ref = ref.lstrip("/")
    out: set[str] = set()
    for folder in folders:
        try:
            if _GLOB & set(ref):
                paths = glob_inside(folder, ref, root)
            elif (folder / ref).is_dir():
                paths = [d / n for d in (folder / ref).iterdir() for n in CASE_FILES]
            else:
                paths = [folder / ref]
        except (OSError, ValueError, NotImplementedError):
            continue
        for candidate in paths:
            try:
                out.add(candidate.resolve().relative_to(root).as_posix())
            except (OSError, ValueError, RuntimeError):
                continue
        if folder == root or not folder.resolve().is_relative_to(root):
            break
    return out


def glob_inside(base: Path, pattern: str, root: Path) -> list[Path]:
    """`pattern` matched from `base`, never walking outside `root`: the pull request writes the
    pattern, and `../../**` would otherwise walk the whole machine before any filter."""
    parts = PurePosixPath(pattern).parts
    fixed = next((n for n, part in enumerate(parts) if _GLOB & set(part)), len(parts))
    start = base.joinpath(*parts[:fixed]).resolve()
    rest = parts[fixed:]
    if not rest or ".." in rest or not start.is_relative_to(root.resolve()) or not start.is_dir():
        return []
    return sorted(start.glob(str(PurePosixPath(*rest))))


def skill_name_of(path: Path) -> str:
    """The `skill_name` an evals file declares, or ""."""
    try:
        data = read(path).data
    except (DocumentError, RecursionError):
        return ""
    name = data.get("skill_name") if isinstance(data, dict) else None
    return name.strip() if isinstance(name, str) and "/" not in name else ""


def why_nothing(root: Path, index: Mapping[str, Iterable[str]]) -> list[tuple[str, str]]:
    """(path, message) warnings for a tree that yielded no eval file although it has skills
    or files named like evals; nothing when it has neither."""
    skills: list[str] = []
    looks: list[tuple[str, str]] = []
    for rel_dir in sorted(index):
        for name in sorted(index[rel_dir]):
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if name == "SKILL.md":
                skills.append(rel_dir)
            reason = _not_read_because(rel_dir, name)
            if reason:
                looks.append((rel, f"looks like an eval file but was not read: {reason}"))
    if looks:
        return looks[:_SHOWN]
    if not skills:
        return []
    named = ", ".join((d.rpartition("/")[2] or root.name) for d in skills[:_SHOWN])
    more = f" and {len(skills) - _SHOWN} more" if len(skills) > _SHOWN else ""
    return [
        (
            f"{skills[0]}/SKILL.md" if skills[0] else "SKILL.md",
            f"found {len(skills)} skill(s) ({named}{more}) but no eval file: add"
            " <skill>/evals/evals.json (skill-creator), evals/<skill>/evals.json (evolve),"
            " <skill>/SKILL.eval.json (clauditor) or an EVAL.yaml (AgentV)",
        )
    ]


def _not_read_because(rel_dir: str, name: str) -> str:
    lower = name.lower()
    stem, _, ext = lower.rpartition(".")
    folders = rel_dir.split("/")
    if "." + ext in EXTENSIONS and stem in ("evals", "triggers"):
        return (
            f"evolve reads evals/<skill>/{name} (its skill under skills/<skill>/), skill-creator"
            f" reads <skill>/evals/{name} beside the skill's SKILL.md"
        )
    if lower in ("trigger-eval.json", "trigger_eval.json"):
        return "a trigger set is read beside an evals.json that was found"
    if format_for_name(name) is not None and "evals" not in folders:
        return "AgentV reads suite.yaml and dataset*.yaml only below an evals/ folder"
    return ""
