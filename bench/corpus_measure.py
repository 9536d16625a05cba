"""How `evolve-action validate` reads other people's skill repositories (the corpus).

Run: `.venv/bin/python -m bench.corpus_measure --split build` (or `build2`, `build3`,
`heldout`, `all`), with
`--data DIR` where the repositories of `bench/corpus/manifest.json` are checked out
(default /work/wt/corpus-data). Each repository is validated by a fresh process
(`validate --format json .` in the repository, the console entry point) under a time limit
and an address-space cap, so a hang or a blow-up is a recorded outcome, not the end of the
run. The process reports its own peak resident set size (VmHWM).

The eval files are the ones the manifest's globs match: the files each convention's own
tool loads. Each is classed by what `validate` said of it:

- accepted: read as an eval file with no error;
- error: at least one error (a red check in a pull request touching it);
- notice: named like an eval file, said not to be one (or not run, with warnings saying why),
  no error;
- unseen: not discovered at all (nothing runs from it, nothing fails for it).

Files a suite file reads (`part_globs`: waza tasks, AXIS scenarios, a case's prompt and
grader files) are counted apart: a part takes its own error, else the class of the eval
file in the nearest folder above it (`parts read` = parts of accepted suites).

`foreign errors` counts the error files of conventions evolve-action does not read today
(`READ_TODAY`); `stray errors` counts errors on files outside the globs (CI workflows and
the like), which turn a check red just the same. Prints a table per convention and split,
then one JSON line. `--details FILE` writes the per-file classes: never for the held-out
split while readers are being built (bench/corpus/README.md).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.corpus.globs import match_files

MANIFEST = Path(__file__).parent / "corpus" / "manifest.json"
DATA = Path("/work/wt/corpus-data")

# Conventions whose format docs/formats.md lists as read (updated 2026-11-28, when AXIS,
# caliper, skillgrade, skill-test-action, `*.eval.md`, best-practice cases and `claude plugin
# eval` were added to the table; before that only the first four were read).
READ_TODAY = frozenset(
    {"skill-creator", "vally-suite", "tessl-plugin", "waza", "axis", "caliper", "skillgrade"}
    | {"skill-test-action", "eval-md", "best-practice-case", "claude-plugin-eval"}
)

LAUNCH = (
    "import re, sys\n"
    "from evolve_action.commands.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stdout.flush()\n"
    "status = open('/proc/self/status').read()\n"
    "peak = re.search(r'VmHWM:\\s+(\\d+)', status)\n"
    "print(f'PEAK_RSS_KB {peak.group(1) if peak else 0}', file=sys.stderr)\n"
    "sys.exit(code)\n"
)
CLASSES = ("accepted", "error", "notice", "unseen")


@dataclass
class RepoResult:
    repo: str
    split: str
    conventions: list[str]
    outcome: str  # ok | red | timeout | crashed | missing
    files: dict[str, str] = field(default_factory=dict)  # eval file -> class
    parts: dict[str, str] = field(default_factory=dict)  # file read through a suite -> class
    first_error: dict[str, str] = field(default_factory=dict)  # error file -> its first error
    stray_errors: int = 0
    traceback: bool = False
    seconds: float = 0.0
    peak_rss_mb: float = 0.0


def limit_memory(megabytes: int) -> None:
    cap = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def run_validate(root: Path, timeout: float, memory_mb: int) -> tuple[str, str, int, float, str]:
    """(stdout, stderr, exit code or -1 on timeout, seconds, outcome)."""
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", LAUNCH, "validate", "--format", "json", "."],
            cwd=root,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
            preexec_fn=lambda: limit_memory(memory_mb),
        )
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else ""
        return "", err, -1, time.perf_counter() - start, "timeout"
    seconds = time.perf_counter() - start
    outcome = {0: "ok", 1: "red"}.get(done.returncode, "crashed")
    return done.stdout, done.stderr, done.returncode, seconds, outcome


def peak_mb(stderr: str) -> float:
    for line in stderr.splitlines():
        if line.startswith("PEAK_RSS_KB "):
            return int(line.split()[1]) / 1024
    return 0.0


def errors_by_path(report: dict[str, Any]) -> dict[str, str]:
    """The first error message of each path that has one, the file's or discovery's."""
    problems = [p for f in report.get("files", []) for p in f.get("problems", [])]
    errors: dict[str, str] = {}
    for problem in [*problems, *report.get("problems", [])]:
        if problem.get("severity") == "error":
            where = f"{problem.get('field') or '-'}: {problem.get('message', '')}"
            errors.setdefault(problem.get("path", ""), where)
    return errors


def classify(report: dict[str, Any], eval_files: list[str]) -> tuple[dict[str, str], int]:
    """Each eval file's class, and the number of error files outside the eval files."""
    said: dict[str, dict[str, Any]] = {f["path"]: f for f in report.get("files", [])}
    errors_at = set(errors_by_path(report))
    classes = {}
    for rel in eval_files:
        entry = said.get(rel)
        if rel in errors_at:
            classes[rel] = "error"
        elif entry is None:
            classes[rel] = "unseen"
        elif not entry.get("eval_file", True) or not entry.get("ok", True):
            classes[rel] = "notice"  # not read, and said why: a notice or a not-run warning
        else:
            classes[rel] = "accepted"
    wanted = set(eval_files)
    return classes, len(errors_at - wanted)


def suite_of(part: str, suites: Iterable[str]) -> str | None:
    """The eval file in the nearest folder above `part`: the suite that reads it."""
    best: str | None = None
    for suite in suites:
        folder = suite.rpartition("/")[0]
        if (not folder or part.startswith(folder + "/")) and (
            best is None or len(folder) > len(best.rpartition("/")[0])
        ):
            best = suite
    return best


def classify_parts(
    parts: list[str], files: dict[str, str], errors: dict[str, str]
) -> dict[str, str]:
    """A part has its own error, else its suite's class (unseen without a suite)."""
    out = {}
    for part in parts:
        suite = suite_of(part, files)
        out[part] = "error" if part in errors else files.get(suite or "", "unseen")
    return out


def measure_repo(entry: dict[str, Any], data: Path, timeout: float, memory_mb: int) -> RepoResult:
    root = data / entry["dir"]
    result = RepoResult(entry["repo"], entry["split"], entry["conventions"], "missing")
    if not root.is_dir():
        return result
    eval_files = match_files(root, entry["eval_globs"], entry.get("exclude_globs", []))
    stdout, stderr, _code, seconds, outcome = run_validate(root, timeout, memory_mb)
    result.outcome, result.seconds, result.peak_rss_mb = outcome, seconds, peak_mb(stderr)
    result.traceback = "Traceback (most recent call last)" in stderr
    if result.traceback:  # a traceback is a crash whatever the exit code
        result.outcome = "crashed"
    try:
        report = json.loads(stdout) if stdout.strip() else {}
    except json.JSONDecodeError:
        report = {}
    parts = match_files(root, entry.get("part_globs", []), entry.get("exclude_globs", []))
    result.files, result.stray_errors = classify(report, eval_files)
    result.first_error = errors_by_path(report)
    if result.outcome in ("timeout", "crashed"):  # nothing it said can be trusted as read
        result.files = {rel: "error" for rel in eval_files}
    result.parts = classify_parts(parts, result.files, result.first_error)
    result.stray_errors -= sum(p in result.first_error for p in parts)
    return result


@dataclass
class Tally:
    repos: int = 0
    files: int = 0
    accepted: int = 0
    error: int = 0
    notice: int = 0
    unseen: int = 0
    parts: int = 0
    parts_read: int = 0
    foreign_errors: int = 0
    stray_errors: int = 0
    red_repos: int = 0
    tracebacks: int = 0
    timeouts: int = 0
    seconds: float = 0.0
    max_seconds: float = 0.0
    peak_rss_mb: float = 0.0

    def add(self, result: RepoResult) -> None:
        self.repos += 1
        self.files += len(result.files)
        for cls in result.files.values():
            setattr(self, cls, getattr(self, cls) + 1)
        self.parts += len(result.parts)
        self.parts_read += sum(c == "accepted" for c in result.parts.values())
        if not READ_TODAY.intersection(result.conventions):
            self.foreign_errors += sum(c == "error" for c in result.files.values())
        self.stray_errors += result.stray_errors
        self.red_repos += result.outcome in ("red", "crashed", "timeout")
        self.tracebacks += result.traceback
        self.timeouts += result.outcome == "timeout"
        self.seconds += result.seconds
        self.max_seconds = max(self.max_seconds, result.seconds)
        self.peak_rss_mb = max(self.peak_rss_mb, result.peak_rss_mb)


def tally(results: Iterable[RepoResult]) -> dict[str, dict[str, Tally]]:
    """Tallies keyed by split, then by convention (and `all`)."""
    out: dict[str, dict[str, Tally]] = {}
    for r in results:
        for split in (r.split, "all"):
            for key in (*r.conventions, "all"):
                out.setdefault(split, {}).setdefault(key, Tally()).add(r)
    return out


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "–"


def table(tallies: dict[str, dict[str, Tally]]) -> str:
    head = (
        "| split | convention | read today | repos | eval files | accepted | errors | notices "
        "| unseen | parts read | foreign errors | stray errors | red repos | tracebacks "
        "| time s (max) | peak RSS MB |"
    )
    lines = [head, "|" + "---|" * 16]
    for split in sorted(tallies):
        for key in sorted(tallies[split], key=lambda k: (k == "all", k)):
            t = tallies[split][key]
            read = "—" if key == "all" else ("yes" if key in READ_TODAY else "no")
            lines.append(
                f"| {split} | {key} | {read} | {t.repos} | {t.files} "
                f"| {t.accepted} ({pct(t.accepted, t.files)}) | {t.error} | {t.notice} "
                f"| {t.unseen} | {t.parts_read} / {t.parts} | {t.foreign_errors} "
                f"| {t.stray_errors} | {t.red_repos} "
                f"| {t.tracebacks} | {t.seconds:.1f} ({t.max_seconds:.2f}) "
                f"| {t.peak_rss_mb:.0f} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    splits = ("build", "build2", "build3", "heldout", "all")
    parser.add_argument("--split", choices=splits, default="build")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per repository")
    parser.add_argument("--memory-mb", type=int, default=2048, help="address-space cap")
    parser.add_argument("--details", type=Path, help="write per-file classes here (JSON)")
    args = parser.parse_args(argv)
    manifest = json.loads(args.manifest.read_text())
    chosen = [e for e in manifest["repos"] if args.split in ("all", e["split"])]
    results = []
    for entry in chosen:
        result = measure_repo(entry, args.data, args.timeout, args.memory_mb)
        print(f"{result.outcome:8} {result.seconds:6.2f}s {entry['repo']}", file=sys.stderr)
        results.append(result)
    tallies = tally(results)
    if args.split != "all":  # the `all` side would repeat the chosen one
        tallies.pop("all", None)
    print(table(tallies))
    summary = {s: {k: asdict(t) for k, t in by.items()} for s, by in tallies.items()}
    print(json.dumps({"split": args.split, "tallies": summary}, sort_keys=True))
    if args.details:
        args.details.write_text(json.dumps([asdict(r) for r in results], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
