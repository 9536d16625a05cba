"""Scale (issue 7): planning and fingerprints at 24,000 runs, the cache on a second push, and
rendering a comment of 1,000 rows. Prints one JSON line per part.

    .venv/bin/python -m bench.scale_bench plan       # 2,000 cases x 2 models x 3 runs x 2 sides
    .venv/bin/python -m bench.scale_bench render     # fit_comment with 1,000 rows
    .venv/bin/python -m bench.scale_bench cache      # the CLI twice, kit fake, latency 0

`plan` generates the marketplace repository of `bench/load_bench.py` (200 files, 2,000 cases
of every format), loads it once as head and once as base, then times `plan_runs` and one
fingerprint per planned run (`Fingerprinter`, which hashes every skill tree and fixture).

`cache` builds a git repository of plain-model AgentV files (no skill: two calls per run),
branches a PR off `main` that edits one file, and runs `evolve-action run --base main
--mode all` under the peers kit's `measure.py` (fake OpenAI server, latency 0) with a cache
directory: first with an empty cache, then again after a second commit to the PR that edits
another file. The second run must make no base-side call: the base did not change, so every
base run comes from the cache. Calls per side are read from results.json (a run not taken from
the cache made two calls: the answer and the judge).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.load_bench import generate
from evolve_action.formats import load_all
from evolve_action.model.outcomes import Side
from evolve_action.plan.fingerprints import Fingerprinter
from evolve_action.plan.planning import plan_runs
from evolve_action.publish.render.comment import COMMENT_LIMIT, fit_comment
from evolve_action.publish.render.escape import cell
from evolve_action.publish.render.view import CaseRow, CommentView, FailureRow, SuiteRow

REPO = Path(__file__).resolve().parent.parent
# The peers kit sits beside the repository (../shared/peers) wherever the clone is.
KIT = Path(os.environ.get("PEERS_KIT", REPO.parent / "shared" / "peers"))
MODELS = ("openai/fake-a", "openai/fake-b")


def part_plan(work: Path) -> dict[str, Any]:
    root = work / "market"
    generate(root)
    started = time.perf_counter()
    head = [r.suite for r in load_all(root) if r.suite is not None]
    base = [r.suite for r in load_all(root) if r.suite is not None]
    loaded = time.perf_counter() - started
    best: dict[str, float] = {}
    runs = 0
    for _ in range(3):
        t0 = time.perf_counter()
        plan = plan_runs({Side.HEAD: head, Side.BASE: base}, list(MODELS), runs=3)
        t1 = time.perf_counter()
        fp = Fingerprinter("openai/fake-a")  # a fresh one: every tree is hashed again
        prints = {
            fp.run(s.suite, s.case, model=s.model, repetition=s.repetition) for s in plan.runs
        }
        t2 = time.perf_counter()
        runs = len(plan.runs)
        for key, value in (("plan_s", t1 - t0), ("fingerprints_s", t2 - t1), ("total_s", t2 - t0)):
            best[key] = min(best.get(key, value), value)
    cases = sum(len(s.cases) for s in head)
    return {
        "part": "plan",
        "cases": cases,
        "suites": len(head),
        "models": len(MODELS),
        "runs_planned": runs,
        "distinct_fingerprints": len(prints),
        "load_both_sides_s": round(loaded, 3),
        **{f"best_{k}": round(v, 3) for k, v in best.items()},
    }


def _rows(n: int) -> tuple[tuple[FailureRow, ...], tuple[CaseRow, ...], tuple[SuiteRow, ...]]:
    long = cell("the answer never mentions the keyword the prompt asked for " * 3)
    failures = tuple(
        FailureRow(f"`case-{i}`", MODELS[i % 2], 1, cell(f"regex: answer matches kw{i}x"), long)
        for i in range(n)
    )
    regressions = tuple(
        CaseRow(f"`case-{i}`", f"https://x/e.yaml#L{i}", MODELS[i % 2], "3/3", "0/3", "0.05", long)
        for i in range(n)
    )
    suites = tuple(
        SuiteRow(f"suite-{i}", MODELS[i % 2], "90%", "60%", "-30 pts", "regressed", 60, "$0.1")
        for i in range(100)
    )
    return failures, regressions, suites


def part_render() -> dict[str, Any]:
    failures, regressions, suites = _rows(1000)
    base = {
        "marker": "<!-- evolve:sticky key=default -->",
        "icon": "❌",
        "headline": "1,000 evals regressed",
        "scope": "every suite changed in this PR.",
        "overall_base": "90.0%",
        "overall_head": "60.0%",
        "overall_delta": "-30.0 pts · regressed",
        "footer": "$12.00 · 3.1M tokens",
    }
    out: dict[str, Any] = {"part": "render", "limit_bytes": COMMENT_LIMIT}
    shapes = {
        "1000_failure_rows": {"failures": failures, "failures_total": 1000, "suites": suites},
        "1000_regressed_rows": {"regressions": regressions, "suites": suites},
    }
    for name, fields in shapes.items():
        view = CommentView(**base, **fields)  # type: ignore[arg-type]
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            text = fit_comment(view)
            times.append(time.perf_counter() - t0)
        out[name] = {"best_s": round(min(times), 4), "bytes": len(text.encode())}
    return out


EVAL_HEAD = "description: scale {f}\ntests:\n"
EVAL_CASE = """\
  - id: case-{i}
    criteria: The reply mentions kw{i}x{tag}
    input: 'Reply in one sentence about the keyword. Keyword: kw{i}x'
    assertions:
      - {{type: regex, value: '\\bkw{i}x\\b'}}
      - {{type: llm-grader, name: judge}}
"""


def _suite_text(f: int, per_file: int, tag: str = "") -> str:
    cases = "".join(EVAL_CASE.format(i=f * per_file + i, tag=tag) for i in range(per_file))
    return EVAL_HEAD.format(f=f) + cases


def _git(root: Path, *args: str) -> None:
    env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="b")
    env["GIT_COMMITTER_EMAIL"] = "b@x"
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _measure(root: Path, cache: Path, out: Path, label: str, concurrency: int) -> dict[str, Any]:
    cmd = [str(REPO / ".venv/bin/evolve-action"), "run", "--base", "main", "--mode", "all"]
    cmd += ["--root", str(root), "--models", ",".join(MODELS), "--judge-model", MODELS[0]]
    cmd += ["--runs", "3", "--max-concurrency", str(concurrency), "--comment", "off"]
    cmd += ["--cache-dir", str(cache), "--results-dir", str(out)]
    measure = [sys.executable, str(KIT / "measure.py"), "--latency", "0", "--n", "2000"]
    measure += ["--concurrency", str(concurrency), "--repeat", "1", "--label", label]
    measure += ["--logdir", str(out.parent), "--", *cmd]
    env = dict(os.environ, OPENAI_API_KEY="sk-fake")
    env.pop("ANTHROPIC_API_KEY", None)
    done = subprocess.run(measure, cwd=root, env=env, capture_output=True, text=True, check=False)
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    runs = json.loads((out / "results.json").read_text())["runs"]
    by_side: dict[str, dict[str, int]] = {}
    for run in runs:
        side = by_side.setdefault(run["side"], {"runs": 0, "cached": 0, "calls": 0})
        side["runs"] += 1
        if run["cached"]:
            side["cached"] += 1
        else:
            side["calls"] += 2  # the answer and the judge (plain-model cases)
    keep = ("wall_s", "rss_mb", "cpu_s", "requests", "rc")
    return {"label": label, **{k: summary.get(k) for k in keep}, "by_side": by_side}


def part_cache(work: Path, files: int, per_file: int, concurrency: int) -> dict[str, Any]:
    root = work / "repo"
    root.mkdir(parents=True)
    for f in range(files):
        (root / "evals" / f"s{f}").mkdir(parents=True)
        (root / "evals" / f"s{f}" / "EVAL.yaml").write_text(_suite_text(f, per_file))
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    _git(root, "checkout", "-qb", "pr")
    (root / "evals/s0/EVAL.yaml").write_text(_suite_text(0, per_file, tag=" (first push)"))
    _git(root, "commit", "-qam", "first push")
    cache = work / "cache"
    first = _measure(root, cache, work / "out-1", "scale-first-push", concurrency)
    (root / "evals/s1/EVAL.yaml").write_text(_suite_text(1, per_file, tag=" (second push)"))
    _git(root, "commit", "-qam", "second push")
    second = _measure(root, cache, work / "out-2", "scale-second-push", concurrency)
    cases = files * per_file
    return {"part": "cache", "cases": cases, "first": first, "second": second}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("part", choices=("plan", "render", "cache"))
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--per-file", type=int, default=20)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--keep", type=Path, help="work here and keep it")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="scale-bench-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        if args.part == "plan":
            row = part_plan(work)
        elif args.part == "render":
            row = part_render()
        else:
            row = part_cache(work, args.files, args.per_file, args.concurrency)
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
