"""Peak memory and time of `evolve-action validate` on hostile files (issue 23).

Run: `.venv/bin/python bench/validate_limits.py` (add `--keep DIR` to keep the files).
Each file is validated by a fresh process (the console entry point, text output), which
reports its own peak resident set size; the time is the process's wall time, start-up
included. Prints one JSON line per file, then a Markdown table for bench/README.md.

The files: a 10 MB string in an evolve `evals.json`, the same in `evals.jsonc` (with a
comment, so it is JSONC) and in `evals.yaml`; a 10 MB string of `\n` escapes (a regular
expression that backtracks keeps state for each) and 10 MB of `/*` never closed; a `.jsonc`
that needs JSON5 (unquoted keys, so json5 reads it) at the 256 KB it is allowed; 200,000
small values in JSON and in YAML (the value limit), and as many empty cases (three problems
each, of which 1,000 are reported); and the YAML alias bomb (nine levels of
ten aliases: a billion values) as an eval file and as `.evolve.yaml`. The generators are shared with
tests/reliability/test_validate_hostile.py, which asserts the memory bound (never the time).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

BIG = 10_000_000  # characters in the big string

# Runs the command line as the console script does, then prints the process's peak RSS.
# VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over from the forked copy of the
# parent across exec, so it would report this script's own size for a small child.
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

SKILL_MD = "---\nname: s\ndescription: d\n---\nDo it.\n"


def alias_bomb(levels: int = 9, width: int = 10) -> str:
    """`levels` anchors, each a list of `width` aliases of the one before: width**levels."""
    lines = ["a0: &a0 [" + ", ".join(['"lol"'] * width) + "]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def evolve_json(prompt: str, comment: str = "") -> str:
    doc = {"skill_name": "s", "evals": [{"id": 1, "prompt": prompt, "expectations": ["x"]}]}
    return comment + json.dumps(doc)


def evolve_yaml(prompt: str) -> str:
    return f"skill_name: s\nevals:\n  - id: 1\n    prompt: {prompt}\n    expectations: [x]\n"


def many_json(values: int) -> str:
    cases = [{"id": i, "prompt": "p", "expectations": ["x"]} for i in range(values // 5)]
    return json.dumps({"skill_name": "s", "evals": cases}, indent=1)


def many_yaml(values: int) -> str:
    case = "  - id: {}\n    prompt: p\n    expectations: [x]\n"
    return "skill_name: s\nevals:\n" + "".join(case.format(i) for i in range(values // 5))


def json5_jsonc(size: int) -> str:
    """A `.jsonc` of about `size` characters that only json5 reads (unquoted keys)."""
    text = evolve_json("x" * size)
    return text.replace('"skill_name"', "skill_name")


FILES: dict[str, tuple[str, Callable[[], str]]] = {
    "10 MB string, JSON": ("skills/s/evals/evals.json", lambda: evolve_json("x" * BIG)),
    "10 MB string, JSONC": (
        "skills/s/evals/evals.jsonc",
        lambda: evolve_json("x" * BIG, "// a comment\n"),
    ),
    "10 MB string, YAML": ("skills/s/evals/evals.yaml", lambda: evolve_yaml("x" * BIG)),
    "10 MB string of escapes, JSON": (
        "skills/s/evals/evals.json",
        lambda: evolve_json("\n" * (BIG // 2)),
    ),
    "10 MB of unclosed comments, JSONC": ("skills/s/evals/evals.jsonc", lambda: "/*" * (BIG // 2)),
    "256 KB JSONC through json5": ("skills/s/evals/evals.jsonc", lambda: json5_jsonc(262_000)),
    "200,000 values, JSON": ("skills/s/evals/evals.json", lambda: many_json(199_990)),
    "200,000 values, YAML": ("skills/s/evals/evals.yaml", lambda: many_yaml(199_990)),
    "200,000 empty cases, JSON": (
        "skills/s/evals/evals.json",
        lambda: json.dumps({"skill_name": "s", "evals": [{}] * 199_990}),
    ),
    "alias bomb, eval file": ("skills/s/evals/evals.yaml", alias_bomb),
    "alias bomb, .evolve.yaml": (".evolve.yaml", alias_bomb),
}


def make(root: Path, rel: str, text: str) -> Path:
    """A repository at `root` with one skill and `text` at `rel`."""
    (root / "skills" / "s" / "evals").mkdir(parents=True, exist_ok=True)
    (root / "skills" / "s" / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")
    return root / rel


def measure(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], int, float]:
    """Run `evolve-action ARGS` in a fresh process: (the process, peak RSS in KB, seconds)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", LAUNCH, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=300,
        check=False,
    )
    seconds = time.perf_counter() - start
    peak = 0
    for line in done.stderr.splitlines():
        if line.startswith("PEAK_RSS_KB "):
            peak = int(line.split()[1])
    return done, peak, seconds


def run(keep: Path | None, only: str = "") -> list[dict[str, object]]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="evolve-limits-") as scratch:
        base = keep or Path(scratch)
        for index, (label, (rel, build)) in enumerate(FILES.items()):
            if only not in label:
                continue
            root = base / f"repo{index}"
            path = make(root, rel, build())
            size = path.stat().st_size
            target = "." if rel == ".evolve.yaml" else rel
            done, peak, seconds = measure(["validate", target], root)
            last = done.stdout.strip().splitlines()[-1:] or [""]
            rows.append(
                {
                    "file": label,
                    "bytes": size,
                    "exit": done.returncode,
                    "peak_rss_mb": round(peak / 1024, 1),
                    "seconds": round(seconds, 2),
                    "summary": last[0],
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    return rows


def table(rows: list[dict[str, object]]) -> str:
    out = ["| File | Size | Exit | Peak RSS | Time |", "|---|---:|---:|---:|---:|"]
    for row in rows:
        size = f"{int(str(row['bytes'])) / 1_000_000:.1f} MB"
        out.append(
            f"| {row['file']} | {size} | {row['exit']} | {row['peak_rss_mb']} MB"
            f" | {row['seconds']} s |"
        )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keep", type=Path, default=None, help="write the files here")
    parser.add_argument("--only", default="", help="only the files whose label has this")
    args = parser.parse_args()
    print(table(run(args.keep, args.only)))


if __name__ == "__main__":
    main()
