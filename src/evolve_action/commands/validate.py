"""`evolve-action validate [PATH...]`: lint eval files of every format, exit 1 on errors.

A PATH is a directory (its eval files are discovered, and its `.evolve.*` config is checked and
supplies `layout` and `paths` unless flags do), one eval file (its format comes from its name,
or `--as`), or a `.evolve.*` config file alone. Problems print as `file:line: field: message`,
then one summary line; inside GitHub Actions each also becomes an annotation at its file and
line.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from evolve_action.formats import discovery, load_file, load_found
from evolve_action.formats.base import LoadContext
from evolve_action.model.evals import Format, LoadResult, Origin, Problem, Severity
from evolve_action.publish.annotations import problem_annotation
from evolve_action.publish.repeats import SHOWN_PER_GROUP, Shown, pattern
from evolve_action.settings import config
from evolve_action.util.text import printable

ALIASES = {"skill-creator": Format.EVOLVE}
FORMAT_NAMES = sorted([*(f.value for f in Format), *ALIASES])


class UsageError(Exception):
    """A PATH or flag we cannot act on; exit 2 with the message."""


@dataclass(frozen=True)
class Entry:
    result: LoadResult
    skill: str  # the skill discovery assigned, known even when the file did not load


@dataclass
class Report:
    entries: list[Entry] = field(default_factory=list)  # one per eval file
    problems: list[Problem] = field(default_factory=list)  # config and discovery problems

    @property
    def results(self) -> list[LoadResult]:
        return [e.result for e in self.entries]

    def all_problems(self) -> list[Problem]:
        return [*map(_shown, self.problems), *(p for r in self.results for p in _problems(r))]

    def counts(self) -> tuple[int, int, int, int]:
        """Eval files, cases, errors, warnings; files that are not eval files are `notices`."""
        problems = self.all_problems()
        errors = sum(p.severity is Severity.ERROR for p in problems)
        warnings = sum(p.severity is Severity.WARNING for p in problems)
        cases = sum(len(r.suite.cases) for r in self.results if r.suite is not None)
        return sum(not r.not_eval for r in self.results), cases, errors, warnings

    @property
    def notices(self) -> int:
        return sum(p.severity is Severity.NOTICE for p in self.all_problems())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "targets",
        nargs="*",
        metavar="PATH",
        help="a directory to search for eval files, or one eval file (default: .)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", dest="output")
    parser.add_argument(
        "--paths",
        action="append",  # one value per flag, so a PATH after it is not taken for a glob
        default=None,
        metavar="GLOB",
        help="only eval files whose path below the PATH directory matches a glob (** allowed);"
        " repeat the flag or separate globs with commas",
    )
    parser.add_argument(
        "--layout",
        choices=discovery.LAYOUTS,
        default=None,
        help="repository layout (default: the config's, else auto)",
    )
    parser.add_argument(
        "--errors-only",
        action="store_true",
        help="print errors only (warnings and notices are still counted in the summary)",
    )
    parser.add_argument(
        "--all",
        dest="every",
        action="store_true",
        help=f"print every problem; by default a message repeated more than {SHOWN_PER_GROUP}"
        " times is shown that often, then counted",
    )
    parser.add_argument(
        "--as",
        dest="as_format",
        choices=FORMAT_NAMES,
        default=None,
        metavar="FORMAT",
        help=f"read eval files named as PATH in this format ({', '.join(FORMAT_NAMES)})",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="a file whose format is not certain (named like an eval file, without its"
        " format's keys) gets errors, not warnings, when its format cannot read it",
    )


def execute(args: argparse.Namespace) -> int:
    try:
        report = collect(
            [Path(p) for p in args.targets or ["."]],
            globs=_split(args.paths),
            layout=args.layout,
            as_format=args.as_format,
            cwd=Path.cwd(),
            strict=args.strict,
        )
    except UsageError as exc:
        print(f"evolve-action validate: error: {printable(str(exc))}", file=sys.stderr)
        return 2
    github = os.environ.get("GITHUB_ACTIONS") == "true"
    for stream in (sys.stdout, sys.stderr):  # a terminal that is not UTF-8 gets escapes
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    shown = Shown(errors_only=args.errors_only, grouped=not args.every)
    try:
        if args.output == "json":
            print(json.dumps(to_json(report, shown), indent=2, ensure_ascii=False))
            write_annotations(report, sys.stderr if github else None, shown)
        else:
            write_text(report, sys.stdout, shown)
            write_annotations(report, sys.stdout if github else None, shown)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader left (`validate | head`): what it read stands, the exit code too. Point
        # stdout at nothing, so the interpreter's last flush cannot raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 1 if report.counts()[2] else 0


# --- collecting ------------------------------------------------------------------------


def collect(
    targets: Sequence[Path],
    *,
    globs: Sequence[str] | None,
    layout: str | None,
    as_format: str | None,
    cwd: Path,
    strict: bool = False,
) -> Report:
    """Load every target; raises UsageError for a PATH or flag that cannot work."""
    fmt = ALIASES.get(as_format or "") or (Format(as_format) if as_format else None)
    report = Report()
    seen: set[Path] = set()
    for target in targets:
        full = target if target.is_absolute() else cwd / target
        if not full.exists():
            raise UsageError(f"{target} does not exist; give a directory or an eval file")
        if full.is_dir():
            if fmt is not None:
                raise UsageError(f"--as names the format of an eval file; {target} is a directory")
            _directory(report, full, cwd, globs=globs, layout=layout, seen=seen, strict=strict)
        elif not full.is_file():
            raise UsageError(f"{target} is neither a directory nor a regular file")
        elif full.name in config.NAMES and fmt is None:
            loaded = config.load_config(full.parent, Path(full.name))
            prefix = _display(full.parent, cwd)
            report.problems.extend(
                _prefixed(p, "" if prefix == "." else prefix) for p in loaded.problems
            )
        elif full.resolve() not in seen:
            seen.add(full.resolve())
            report.entries.append(_file(full, cwd, fmt, strict=strict))
    return report


def _directory(
    report: Report,
    root: Path,
    cwd: Path,
    *,
    globs: Sequence[str] | None,
    layout: str | None,
    seen: set[Path],
    strict: bool = False,
) -> None:
    prefix = _display(root, cwd)
    prefix = "" if prefix == "." else prefix
    loaded = config.load_config(root)
    report.problems.extend(_prefixed(p, prefix) for p in loaded.problems)
    chosen_layout = layout or loaded.config.layout or "auto"
    chosen_globs = globs if globs is not None else loaded.config.paths or ()
    found = discovery.discover(
        root,
        paths=chosen_globs,
        layout=chosen_layout,
        prefix=prefix,
        declared=loaded.config.formats,
    )
    report.problems.extend(found.problems)
    for item in found.files:
        if item.path in seen:
            continue
        seen.add(item.path)
        loaded_file = load_found(found.root, item, strict=strict)
        report.entries.append(Entry(loaded_file, item.skill.name))


def _file(path: Path, cwd: Path, fmt: Format | None, *, strict: bool = False) -> Entry:
    rel = _display(path, cwd)
    root = cwd if path.resolve().is_relative_to(cwd.resolve()) else path.parent
    try:
        item = discovery.describe_file(root, path, fmt, rel=rel)
    except ValueError:
        names = ", ".join(FORMAT_NAMES)
        raise UsageError(
            f"cannot tell the format of {rel} from its name; pass --as FORMAT ({names})"
        ) from None
    ctx = LoadContext(root.resolve(), item.skill)
    # `--as` says what the file is: its format is as certain as `.evolve.yaml` would make it.
    declared = fmt is not None
    loaded = load_file(item.path, item.rel, item.format, ctx, declared=declared, strict=strict)
    return Entry(loaded, item.skill.name)


def _display(path: Path, cwd: Path) -> str:
    """`path` relative to the working directory when below it, as annotations need."""
    try:
        return path.resolve().relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _prefixed(problem: Problem, prefix: str) -> Problem:
    if not prefix:
        return problem
    origin = problem.origin
    moved = Origin(f"{prefix}/{origin.path}", origin.line, origin.pointer)
    return Problem(moved, problem.message, problem.severity)


def _split(globs: Sequence[str] | None) -> list[str] | None:
    if globs is None:
        return None
    return [part.strip() for raw in globs for part in raw.split(",") if part.strip()]


def _problems(result: LoadResult) -> list[Problem]:
    """The file's problems and its suite's warnings, once each, in line order, as shown."""
    problems = list(result.problems)
    if result.suite is not None:
        problems.extend(w for w in result.suite.warnings if w not in problems)
    return [_shown(p) for p in sorted(problems, key=lambda p: p.origin.line or 0)]


def _shown(problem: Problem) -> Problem:
    """The problem with what it quotes from files and their names made printable: a file may
    hold a lone surrogate (no UTF-8 encoding) or escape sequences aimed at a terminal."""
    origin = problem.origin
    shown = Origin(printable(origin.path), origin.line, printable(origin.pointer))
    return Problem(shown, printable(problem.message), problem.severity)


# --- output --------------------------------------------------------------------------------


def summary(report: Report) -> str:
    files, cases, errors, warnings = report.counts()
    parts = [(files, "file"), (cases, "case"), (errors, "error"), (warnings, "warning")]
    if report.notices:  # files named like eval files that are not: said only when there are
        parts.append((report.notices, "notice"))
    return ", ".join(_plural(n, word) for n, word in parts)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def write_text(report: Report, out: TextIO, shown: Shown | None = None) -> None:
    shown = shown or Shown()
    problems, more = shown.pick(report.all_problems())
    for problem in problems:
        out.write(problem.render() + "\n")
    for count, example in more:
        out.write(f"… and {count} more like this: {pattern(example)}\n")
    out.write(summary(report) + "\n")


def write_annotations(report: Report, out: TextIO | None, shown: Shown | None = None) -> None:
    if out is None:
        return
    problems, _ = (shown or Shown()).pick(report.all_problems())
    for problem in problems:
        is_config = problem.origin.path.rpartition("/")[2] in config.NAMES
        title = "invalid config" if is_config and not problem.field else ""
        out.write(problem_annotation(problem, title=title) + "\n")


def to_json(report: Report, shown: Shown | None = None) -> dict[str, Any]:
    """Every problem (repeats are not grouped: a machine reads them), errors only with
    `--errors-only`; the summary counts all."""
    keep = (shown or Shown()).keeps
    files, cases, errors, warnings = report.counts()
    return {
        "version": 1,
        "files": [
            {
                "path": printable(r.rel),
                "format": r.format.value if r.format else None,
                "skill": printable(r.suite.skill.name if r.suite else e.skill),
                "cases": len(r.suite.cases) if r.suite else 0,
                "ok": r.ok,
                "eval_file": not r.not_eval,  # False: named like one, but a notice says what
                "problems": [_problem_json(p) for p in _problems(r) if keep(p)],
            }
            for e in report.entries
            for r in (e.result,)
        ],
        "problems": [_problem_json(_shown(p)) for p in report.problems if keep(p)],
        "summary": {
            "files": files,
            "cases": cases,
            "errors": errors,
            "warnings": warnings,
            "notices": report.notices,
        },
    }


def _problem_json(problem: Problem) -> dict[str, Any]:
    return {
        "path": problem.origin.path,
        "line": problem.origin.line,
        "field": problem.field,
        "severity": problem.severity.value,
        "message": problem.message,
    }
